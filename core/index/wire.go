package index

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// checksumLen is the length of the checksum in the hex encoding of
// container bytes.
const checksumLen = 4

// appendHexWithChecksum appends what ids.HexWithChecksum returns for b:
// "0x", the hex of b and of the last 4 bytes of its sha256.
func appendHexWithChecksum(out, b []byte) []byte {
	sum := sha256.Sum256(b)
	out = append(out, "0x"...)
	out = hex.AppendEncode(out, b)
	return hex.AppendEncode(out, sum[len(sum)-checksumLen:])
}

// hexWithChecksum is ids.HexWithChecksum with fewer copies.
func hexWithChecksum(b []byte) string {
	return string(appendHexWithChecksum(make([]byte, 0, 2+hex.EncodedLen(len(b)+checksumLen)), b))
}

// wireSize estimates the length of c's JSON.
func wireSize(c Container) int {
	return hex.EncodedLen(len(c.Bytes)) + 200
}

// appendWire appends c's JSON as the index API writes it, the same bytes
// json.Marshal(toWire(c)) writes, without reflection or an escaping pass:
// none of its strings needs escaping (CB58, hex, RFC 3339, digits). A range
// answers up to 1024 containers; this keeps its encoding to one pass over
// the bytes.
func appendWire(out []byte, c Container) []byte {
	out = append(out, `{"id":"`...)
	out = append(out, c.ID.String()...)
	out = append(out, `","bytes":"`...)
	out = appendHexWithChecksum(out, c.Bytes)
	out = append(out, `","timestamp":"`...)
	out = c.Timestamp.UTC().AppendFormat(out, time.RFC3339Nano)
	out = append(out, `","encoding":"`+encodingHex+`","index":"`...)
	out = strconv.AppendUint(out, c.Index, 10)
	return append(out, `"}`...)
}

// appendWires appends the JSON array of cs.
func appendWires(out []byte, cs []Container) []byte {
	out = append(out, '[')
	for i, c := range cs {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendWire(out, c)
	}
	return append(out, ']')
}
