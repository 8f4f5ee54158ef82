package confjson

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestDecode(t *testing.T) {
	type cfg struct {
		A int      `json:"a"`
		W Duration `json:"wait"`
	}
	for _, tc := range []struct {
		in      string
		want    cfg
		wantErr string
	}{
		{in: ``, want: cfg{A: 7, W: Duration(time.Second)}},
		{in: ` null `, want: cfg{A: 7, W: Duration(time.Second)}},
		{in: `{"a":1}`, want: cfg{A: 1, W: Duration(time.Second)}},
		{in: `{"wait":"250ms"}`, want: cfg{A: 7, W: Duration(250 * time.Millisecond)}},
		{in: `{"wait":1.5}`, want: cfg{A: 7, W: Duration(1500 * time.Millisecond)}},
		{in: `{"b":1}`, wantErr: `unknown field "b"`},
		{in: `{"a":1} {}`, wantErr: "unexpected data after"},
		{in: `{"wait":"soon"}`, wantErr: `duration "soon"`},
		{in: `{"wait":"-1s"}`, wantErr: "must not be negative"},
		{in: `{"wait":true}`, wantErr: "number of seconds"},
	} {
		got := cfg{A: 7, W: Duration(time.Second)}
		err := Decode([]byte(tc.in), &got)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want one containing %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestDurationMarshal(t *testing.T) {
	b, err := Duration(90 * time.Second).MarshalJSON()
	if err != nil || string(b) != `"1m30s"` {
		t.Fatalf("got %s, %v", b, err)
	}
}

// TestDecodeNamesKey: a bad duration is reported at its key, however deep
// (a map value at the map's key).
func TestDecodeNamesKey(t *testing.T) {
	var v struct {
		Inner struct {
			W Duration `json:"wait"`
		} `json:"inner"`
		M map[string]Duration `json:"by-name"`
	}
	for in, want := range map[string]string{
		`{"inner":{"wait":"soon"}}`: `inner.wait: duration "soon": must be like "2s" or "500ms"`,
		`{"inner":{"wait":"-2s"}}`:  `inner.wait: duration -2s: must not be negative`,
		`{"by-name":{"a":true}}`:    `by-name: duration must be a string like "2s" or a number of seconds, got true`,
	} {
		if err := Decode([]byte(in), &v); err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
	var d Duration
	if err := Decode([]byte(`"soon"`), &d); err == nil || err.Error() != `duration "soon": must be like "2s" or "500ms"` {
		t.Errorf("top-level duration: error %v", err)
	}
}

// limits is a config whose Validate refuses a negative Max.
type limits struct {
	Max int `json:"max"`
}

func (l limits) Validate() error {
	if l.Max < 0 {
		return errors.New("max: must not be negative")
	}
	return nil
}

func TestParse(t *testing.T) {
	got, err := Parse([]byte(`{}`), limits{Max: 3})
	if err != nil || got.Max != 3 {
		t.Fatalf("defaults: got %+v, %v", got, err)
	}
	if _, err := Parse([]byte(`{"max":-1}`), limits{}); err == nil || err.Error() != "max: must not be negative" {
		t.Fatalf("a bad value: got %v", err)
	}
	if _, err := Parse([]byte(`{"min":1}`), limits{}); err == nil || !strings.Contains(err.Error(), `unknown field "min"`) {
		t.Fatalf("an unknown key: got %v", err)
	}
}
