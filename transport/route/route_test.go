package route

import "testing"

func TestCheckPrefix(t *testing.T) {
	for p, ok := range map[string]bool{
		"/v1/chains": true, "/v1": true,
		"": false, "/": false, "v1": false, "/v1/": false, "/v1//x": false, "/v1/./x": false,
		"/v1/..": false, "/v1?x": false, "/v1#x": false, "/ext": false, "/ext/bc": false, "/extra": true,
	} {
		if err := CheckPrefix(p); (err == nil) != ok {
			t.Errorf("CheckPrefix(%q) = %v, want ok %v", p, err, ok)
		}
	}
}

func TestPrefixMatches(t *testing.T) {
	for _, tc := range []struct {
		prefix, path string
		want         bool
	}{
		{"/v1/chains", "/v1/chains", true},
		{"/v1/chains", "/v1/chains/43112", true},
		{"/v1/chains", "/v1/chainsX", false},
		{"/v1/chains", "/v1", false},
	} {
		if got := PrefixMatches(tc.prefix, tc.path); got != tc.want {
			t.Errorf("PrefixMatches(%q, %q) = %v, want %v", tc.prefix, tc.path, got, tc.want)
		}
	}
}

func TestCheckSegments(t *testing.T) {
	for p, ok := range map[string]bool{"/a/b": true, "/a/./b": false, "/a/..": false, "/a/..b": true, "": true} {
		if err := CheckSegments(p); (err == nil) != ok {
			t.Errorf("CheckSegments(%q) = %v, want ok %v", p, err, ok)
		}
	}
}
