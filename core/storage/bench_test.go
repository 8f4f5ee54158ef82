package storage

import (
	"encoding/binary"
	"testing"
)

// BenchmarkBatchWrite writes batches of 100 puts of 1 KiB values, split
// over two namespaces as a VM commit with its index entry would be.
func BenchmarkBatchWrite(b *testing.B) {
	for _, sync := range []bool{false, true} {
		name := "nosync"
		if sync {
			name = "sync"
		}
		b.Run(name, func(b *testing.B) {
			db, _ := openTest(b)
			vm, host := db.Namespace("vm"), db.Namespace("host")
			value := make([]byte, 1024)
			const perBatch = 100
			b.SetBytes(perBatch * int64(len(value)))
			b.ReportAllocs()
			var key [8]byte
			n := uint64(0)
			for b.Loop() {
				batch := vm.NewBatch()
				idx := batch.In(host)
				for i := range perBatch {
					n++
					binary.BigEndian.PutUint64(key[:], n)
					if i%10 == 0 {
						idx.Put(key[:], value)
					} else {
						batch.Put(key[:], value)
					}
				}
				if err := db.Write(batch, sync); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
