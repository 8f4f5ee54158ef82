package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestUint64Unmarshal(t *testing.T) {
	tests := []struct {
		name, in string
		want     Uint64
		wantErr  string
	}{
		{name: "number", in: `12`, want: 12},
		{name: "zero", in: `0`, want: 0},
		{name: "decimal string", in: `"12"`, want: 12},
		{name: "leading zeros in a string", in: `"007"`, want: 7},
		{name: "max", in: `18446744073709551615`, want: 18446744073709551615},
		{name: "max string", in: `"18446744073709551615"`, want: 18446744073709551615},
		{name: "escaped digits", in: `"\u0031\u0032"`, want: 12},
		{name: "negative", in: `-1`, wantErr: "want an unsigned integer, got -1"},
		{name: "negative zero", in: `-0`, wantErr: "want an unsigned integer, got -0"},
		{name: "negative string", in: `"-5"`, wantErr: `want an unsigned integer, got "-5"`},
		{name: "fraction", in: `1.5`, wantErr: "want an unsigned integer, got 1.5"},
		{name: "integral fraction", in: `1.0`, wantErr: "want an unsigned integer, got 1.0"},
		{name: "exponent", in: `1e3`, wantErr: "want an unsigned integer, got 1e3"},
		{name: "hex string", in: `"0x10"`, wantErr: `want a decimal unsigned integer, got "0x10"`},
		{name: "upper hex string", in: `"0X10"`, wantErr: `want a decimal unsigned integer, got "0X10"`},
		{name: "plus sign", in: `"+1"`, wantErr: `want an unsigned integer, got "+1"`},
		{name: "spaces", in: `" 1"`, wantErr: `want an unsigned integer, got " 1"`},
		{name: "underscore", in: `"1_000"`, wantErr: `want an unsigned integer, got "1_000"`},
		{name: "overflow", in: `18446744073709551616`, wantErr: "want an unsigned integer of at most 18446744073709551615, got 18446744073709551616"},
		{name: "overflow string", in: `"99999999999999999999"`, wantErr: `want an unsigned integer of at most 18446744073709551615, got "99999999999999999999"`},
		{name: "empty string", in: `""`, wantErr: `want an unsigned integer, got ""`},
		{name: "words", in: `"twelve"`, wantErr: `want an unsigned integer, got "twelve"`},
		{name: "long garbage is clipped", in: `"` + strings.Repeat("z", 100) + `"`, wantErr: `got "` + strings.Repeat("z", 40) + `..."`},
		{name: "boolean", in: `false`, wantErr: "want an unsigned integer, got boolean"},
		{name: "object", in: `{}`, wantErr: "want an unsigned integer, got object"},
		{name: "array", in: `[1]`, wantErr: "want an unsigned integer, got array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got Uint64
			err := json.Unmarshal([]byte(tc.in), &got)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Unmarshal(%s) error = %v, want containing %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Unmarshal(%s): %v", tc.in, err)
			}
			if got != tc.want {
				t.Fatalf("Unmarshal(%s) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

func TestUint64NullKeepsValue(t *testing.T) {
	v := Uint64(9)
	if err := json.Unmarshal([]byte(`null`), &v); err != nil || v != 9 {
		t.Fatalf("Unmarshal(null) = %d, %v; want 9 unchanged", v, err)
	}
}

func TestUint64Marshal(t *testing.T) {
	tests := []struct {
		in   Uint64
		want string
	}{
		{0, `"0"`},
		{12, `"12"`},
		{18446744073709551615, `"18446744073709551615"`},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			got, err := json.Marshal(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("Marshal(%d) = %s, want %s", uint64(tc.in), got, tc.want)
			}
			var back Uint64
			if err := json.Unmarshal(got, &back); err != nil || back != tc.in {
				t.Fatalf("round trip = %d, %v; want %d", back, err, tc.in)
			}
			if s := tc.in.String(); `"`+s+`"` != tc.want {
				t.Fatalf("String = %s, want %s unquoted", s, tc.want)
			}
		})
	}
}
