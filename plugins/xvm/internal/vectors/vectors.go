// Package vectors loads the avalanchego byte vectors of
// plugins/xvm/testdata for the X-Chain's tests (plugins/internal/avaxvectors
// reads them).
package vectors

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/chainhost/chainhost/plugins/internal/avaxvectors"
)

// EwoqKey is avalanchego's well-known local-network key, hex.
const EwoqKey = avaxvectors.EwoqKey

// Vectors are the values of testdata/avalanchego-v1.14.2.json.
type Vectors = avaxvectors.Vectors

// Load reads the vectors, failing t when it cannot.
func Load(t testing.TB) Vectors {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return avaxvectors.Load(t, filepath.Join(filepath.Dir(file), "..", "..", "testdata", "avalanchego-v1.14.2.json"))
}
