package chaindb

import (
	"fmt"
	"testing"

	"github.com/ava-labs/avalanchego/database/dbtest"
)

// BenchmarkInterface runs avalanchego's database benchmarks on a chain's
// database, for comparison with its own leveldb's.
func BenchmarkInterface(b *testing.B) {
	for _, size := range dbtest.BenchmarkSizes {
		keys, values := dbtest.SetupBenchmark(b, size[0], size[1], size[2])
		for name, bench := range dbtest.Benchmarks {
			b.Run(fmt.Sprintf("%d_pairs_%d_keys_%d_values_%s", size[0], size[1], size[2], name), func(b *testing.B) {
				bench(b, chain(openStorage(b), "X"), keys, values)
			})
		}
	}
}
