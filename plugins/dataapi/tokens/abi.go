package tokens

import (
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"
)

// Selectors of the token methods the indexer calls.
var (
	selName              = []byte{0x06, 0xfd, 0xde, 0x03} // name()
	selSymbol            = []byte{0x95, 0xd8, 0x9b, 0x41} // symbol()
	selDecimals          = []byte{0x31, 0x3c, 0xe5, 0x67} // decimals()
	selTokenURI          = []byte{0xc8, 0x7b, 0x56, 0xdd} // tokenURI(uint256)
	selURI               = []byte{0x0e, 0x89, 0x34, 0x1c} // uri(uint256)
	selSupportsInterface = []byte{0x01, 0xff, 0xc9, 0xa7} // supportsInterface(bytes4)
	selBalanceOf         = []byte{0x70, 0xa0, 0x82, 0x31} // balanceOf(address)
	selBalanceOf1155     = []byte{0x00, 0xfd, 0xd5, 0x8e} // balanceOf(address,uint256)
)

// ERC-165 interface IDs.
var (
	interfaceERC721  = []byte{0x80, 0xac, 0x58, 0xcd}
	interfaceERC1155 = []byte{0xd9, 0xb6, 0x7a, 0x26}
)

// maxText is the longest name, symbol or URI kept, in bytes.
const maxText = 2048

// calldata returns a selector followed by 32-byte words.
func calldata(sel []byte, words ...[]byte) []byte {
	out := append([]byte(nil), sel...)
	for _, w := range words {
		out = append(out, common.LeftPadBytes(w, 32)...)
	}
	return out
}

// interfaceWord returns an interface ID as the bytes4 argument of
// supportsInterface: left-aligned.
func interfaceWord(id []byte) []byte { return common.RightPadBytes(id, 32) }

// decodeString reads a string return value: the ABI string, or a bytes32
// (some early tokens); "" when it is neither. The text is cut to maxText
// bytes, invalid UTF-8 and NULs removed.
func decodeString(ret []byte) string {
	if len(ret) == 32 {
		return clean(string(trimZeros(ret)))
	}
	if len(ret) < 64 {
		return ""
	}
	off := new(big.Int).SetBytes(ret[:32])
	if !off.IsUint64() || off.Uint64() > uint64(len(ret)-32) {
		return ""
	}
	o := int(off.Uint64())
	n := new(big.Int).SetBytes(ret[o : o+32])
	if !n.IsUint64() || n.Uint64() > uint64(len(ret)-o-32) {
		return ""
	}
	return clean(string(ret[o+32 : o+32+int(n.Uint64())]))
}

// trimZeros drops trailing zero bytes.
func trimZeros(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}

// clean makes s safe to show: valid UTF-8, no NULs, at most maxText bytes.
func clean(s string) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "")
	if len(s) > maxText {
		s = s[:maxText]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}

// decodeUint reads a uint return value; ok is false unless it is one word.
func decodeUint(ret []byte) (*big.Int, bool) {
	if len(ret) != 32 {
		return nil, false
	}
	return new(big.Int).SetBytes(ret), true
}

// decodeBool reads a bool return value.
func decodeBool(ret []byte) bool {
	n, ok := decodeUint(ret)
	return ok && n.Cmp(big.NewInt(1)) == 0
}
