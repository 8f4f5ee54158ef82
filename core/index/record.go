package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/chainhost/chainhost/sdk/ids"
)

// Key prefixes inside one index's namespace.
const (
	prefixNext   = 0x00 // the next index (the single key {0x00})
	prefixRecord = 0x01 // index -> record
	prefixID     = 0x02 // container ID -> index
)

// recordVersion is the first byte of every record.
const recordVersion = 0x00

// recordHeaderLen is the length of a record before the container bytes:
// version, timestamp, ID.
const recordHeaderLen = 1 + 8 + ids.Len

// keyNext is the key of the next-index counter.
var keyNext = []byte{prefixNext}

// Lengths of the keys.
const (
	recordKeyLen = 1 + 8
	idKeyLen     = 1 + ids.Len
)

// recordKey returns the key of the record at index i.
func recordKey(i uint64) []byte {
	return appendRecordKey(make([]byte, 0, recordKeyLen), i)
}

// appendRecordKey appends the key of the record at index i to dst.
func appendRecordKey(dst []byte, i uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, prefixRecord), i)
}

// idKey returns the key of the index of container id.
func idKey(id ids.ID) []byte {
	return appendIDKey(make([]byte, 0, idKeyLen), id)
}

// appendIDKey appends the key of the index of container id to dst.
func appendIDKey(dst []byte, id ids.ID) []byte {
	return append(append(dst, prefixID), id[:]...)
}

// encodeUint64 returns the 8-byte big-endian form of v.
func encodeUint64(v uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, v)
}

// decodeUint64 reads an 8-byte big-endian value.
func decodeUint64(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("want 8 bytes, got %d", len(b))
	}
	return binary.BigEndian.Uint64(b), nil
}

// appendRecord appends the stored form of a container to dst.
func appendRecord(dst []byte, id ids.ID, b []byte, unixNano int64) []byte {
	dst = append(dst, recordVersion)
	dst = binary.BigEndian.AppendUint64(dst, uint64(unixNano))
	dst = append(dst, id[:]...)
	return append(dst, b...)
}

// decodeRecord reads a stored container found at index i. The container
// keeps a reference to rec.
func decodeRecord(i uint64, rec []byte) (Container, error) {
	if len(rec) < recordHeaderLen {
		return Container{}, fmt.Errorf("record at index %d: %d bytes, want at least %d", i, len(rec), recordHeaderLen)
	}
	if rec[0] != recordVersion {
		return Container{}, fmt.Errorf("record at index %d: unknown version %d", i, rec[0])
	}
	ts := int64(binary.BigEndian.Uint64(rec[1:9]))
	return Container{
		ID:        ids.ID(rec[9:recordHeaderLen]),
		Bytes:     rec[recordHeaderLen:],
		Index:     i,
		Timestamp: stamp(ts),
	}, nil
}

// stamp returns the time of unix nanoseconds, in UTC.
func stamp(unixNano int64) time.Time {
	return time.Unix(0, unixNano).UTC()
}

// errCorrupt reports stored data that contradicts itself.
var errCorrupt = errors.New("index data corrupted")
