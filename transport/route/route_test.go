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

func TestWildcardPrefixes(t *testing.T) {
	for p, ok := range map[string]bool{
		"/v2/chains/{chainId}/addresses": true, "/v2/{a_1}": true,
		"/{x}": false, "/v2/{}": false, "/v2/x{y}": false, "/v2/{y": false, "/v2/y}": false, "/v2/{a-b}": false,
	} {
		if err := CheckPrefix(p); (err == nil) != ok {
			t.Errorf("CheckPrefix(%q) = %v, want ok %v", p, err, ok)
		}
	}
	const w = "/v2/chains/{chainId}/addresses"
	for path, want := range map[string]bool{
		"/v2/chains/43114/addresses":              true,
		"/v2/chains/43114/addresses/0xab/txs":     true,
		"/v2/chains/43114/addresses/":             true,
		"/v2/chains/43114":                        false,
		"/v2/chains//addresses/0xab":              false,
		"/v2/chains/43114/addressesX":             false,
		"/v2/chains/43114/blocks/addresses":       false,
		"/v2/chains/43114/metrics/addresses/0xab": false,
	} {
		if got := PrefixMatches(w, path); got != want {
			t.Errorf("PrefixMatches(%q, %q) = %v, want %v", w, path, got, want)
		}
	}
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{w, "/v2/chains", true},
		{"/v2/chains", w, false},
		{"/v2/chains/x/addresses", w, true},
		{w, "/v2/chains/x/addresses", false},
		{"/a/b/{y}", "/a/{x}/c", true},
		{"/a/{x}/c", "/a/b/{y}", false},
	} {
		if got := MoreSpecific(tc.a, tc.b); got != tc.want {
			t.Errorf("MoreSpecific(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	if !SamePaths(w, "/v2/chains/{id}/addresses") || SamePaths(w, "/v2/chains/x/addresses") || SamePaths(w, "/v2/chains") {
		t.Error("SamePaths: wildcards of other names are the same, a literal or a shorter prefix is not")
	}
}
