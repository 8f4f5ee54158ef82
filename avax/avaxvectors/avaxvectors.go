// Package avaxvectors reads the files of byte vectors that avalanchego's
// own code made (testdata/xchain and testdata/pchain beside this file;
// docs/xvm.md, Formats) for the tests of the chains' codecs.
package avaxvectors

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// EwoqKey is avalanchego's well-known local-network key, hex, which the
// vectors are signed with.
const EwoqKey = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"

// Vectors are the values of a vectors file, by name.
type Vectors map[string]json.RawMessage

// LoadX reads the X-Chain's vectors, failing t when it cannot.
func LoadX(t testing.TB) Vectors {
	t.Helper()
	return load(t, "xchain")
}

// LoadP reads the P-Chain's vectors, failing t when it cannot.
func LoadP(t testing.TB) Vectors {
	t.Helper()
	return load(t, "pchain")
}

// load reads testdata/<chain>/avalanchego-v1.14.2.json beside this file.
func load(t testing.TB, chain string) Vectors {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "testdata", chain, "avalanchego-v1.14.2.json")
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v Vectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// String returns a vector holding one string.
func (v Vectors) String(t testing.TB, name string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(v[name], &s); err != nil {
		t.Fatalf("vector %s: %v", name, err)
	}
	return s
}

// Strings returns a vector holding a list of strings.
func (v Vectors) Strings(t testing.TB, name string) []string {
	t.Helper()
	var s []string
	if err := json.Unmarshal(v[name], &s); err != nil {
		t.Fatalf("vector %s: %v", name, err)
	}
	return s
}

// Map returns a vector holding an object of strings.
func (v Vectors) Map(t testing.TB, name string) map[string]string {
	t.Helper()
	var m map[string]string
	if err := json.Unmarshal(v[name], &m); err != nil {
		t.Fatalf("vector %s: %v", name, err)
	}
	return m
}

// Bytes returns a vector holding hex.
func (v Vectors) Bytes(t testing.TB, name string) []byte {
	t.Helper()
	return Hex(t, v.String(t, name))
}

// Hex decodes hex digits, failing t when it cannot.
func Hex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("hex %q: %v", s, err)
	}
	return b
}
