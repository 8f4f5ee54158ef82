// Package vectors loads the avalanchego byte vectors of
// plugins/pvm/testdata for the P-Chain's tests (plugins/internal/avaxvectors
// reads them).
package vectors

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/chainhost/chainhost/plugins/internal/avaxvectors"
)

// EwoqKey is the well-known local network key the vectors are signed with,
// "0x" and hex.
const EwoqKey = "0x" + avaxvectors.EwoqKey

// Vectors are the values of testdata/avalanchego-v1.14.2.json.
type Vectors = avaxvectors.Vectors

// Load reads the vectors, failing t when it cannot.
func Load(t testing.TB) Vectors {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return avaxvectors.Load(t, filepath.Join(filepath.Dir(file), "..", "..", "testdata", "avalanchego-v1.14.2.json"))
}

// Hex decodes hex digits, failing t when it cannot.
func Hex(t testing.TB, s string) []byte {
	t.Helper()
	return avaxvectors.Hex(t, s)
}
