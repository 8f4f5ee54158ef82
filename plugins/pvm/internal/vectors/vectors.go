// Package vectors loads the avalanchego byte vectors of
// plugins/pvm/testdata for the P-Chain's tests.
package vectors

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// EwoqKey is the well-known local network key the vectors are signed with.
const EwoqKey = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"

// Vectors are the values of testdata/avalanchego-v1.14.2.json.
type Vectors map[string]json.RawMessage

// Load reads the vectors, failing t when it cannot.
func Load(t testing.TB) Vectors {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "testdata", "avalanchego-v1.14.2.json"))
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
