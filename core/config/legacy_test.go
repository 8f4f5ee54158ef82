package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestLegacyIndexKinds: legacy-index-kinds loads from a file, is validated
// and survives the `chainhost config` round trip.
func TestLegacyIndexKinds(t *testing.T) {
	tests := []struct {
		name    string
		kinds   string // YAML list
		want    []string
		wantErr string // "" for valid
	}{
		{name: "absent", kinds: "", want: nil},
		{name: "one", kinds: "[vtx]", want: []string{"vtx"}},
		{name: "two", kinds: "[vtx, old-block_2]", want: []string{"vtx", "old-block_2"}},
		{name: "empty name", kinds: `[""]`, wantErr: `config: chains[0].legacy-index-kinds[0]: "" is not a valid index kind`},
		{name: "slash", kinds: "[a/b]", wantErr: `config: chains[0].legacy-index-kinds[0]: "a/b" is not a valid index kind`},
		{name: "twice", kinds: "[vtx, tx, vtx]", wantErr: `config: chains[0].legacy-index-kinds[2]: "vtx" is listed twice`},
		{name: "not a list", kinds: "{a: 1}", wantErr: "chains[0].legacy-index-kinds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			content := "chains:\n  - alias: X\n    vm: avm\n"
			if tt.kinds != "" {
				content += "    legacy-index-kinds: " + tt.kinds + "\n"
			}
			c, err := Load(LoadOptions{Args: []string{"--config", writeFile(t, "c.yaml", content)}, Environ: homeEnv})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Load = %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got := c.Chains[0].LegacyIndexKinds; !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("legacy-index-kinds = %q, want %q", got, tt.want)
			}
			out, err := c.YAML()
			if err != nil {
				t.Fatal(err)
			}
			if has := strings.Contains(string(out), "legacy-index-kinds"); has != (tt.want != nil) {
				t.Fatalf("config output mentions legacy-index-kinds: %v, want %v:\n%s", has, tt.want != nil, out)
			}
			again, err := Load(LoadOptions{Args: []string{"--config", writeFile(t, "again.yaml", string(out))}, Environ: homeEnv})
			if err != nil {
				t.Fatalf("reload the config output: %v", err)
			}
			if got := again.Chains[0].LegacyIndexKinds; !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("after the round trip legacy-index-kinds = %q, want %q", got, tt.want)
			}
		})
	}
}
