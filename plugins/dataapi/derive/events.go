package derive

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax/evmapi"
)

// Event signatures of the token standards.
var (
	// TransferTopic is Transfer(address,address,uint256), of ERC-20 (value
	// in the data) and ERC-721 (token ID as a fourth topic).
	TransferTopic = common.HexToHash("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")
	// TransferSingleTopic is ERC-1155's
	// TransferSingle(address,address,address,uint256,uint256).
	TransferSingleTopic = common.HexToHash("0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62")
	// TransferBatchTopic is ERC-1155's
	// TransferBatch(address,address,address,uint256[],uint256[]).
	TransferBatchTopic = common.HexToHash("0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb")
)

// maxBatchItems caps the items read from one TransferBatch event.
const maxBatchItems = 1 << 16

// transfer is a token transfer decoded from a log.
type transfer struct {
	kind     kind
	log      uint64
	batch    uint64 // position in a TransferBatch
	token    common.Address
	from, to common.Address
	id       *big.Int // ERC-721 and ERC-1155
	value    *big.Int // ERC-20 and ERC-1155
}

// kind is the standard of a decoded transfer.
type kind uint8

const (
	erc20 kind = iota + 1
	erc721
	erc1155
)

// decodeLog returns the transfers a log records, none when it is not a
// well-formed transfer event of ERC-20, ERC-721 or ERC-1155. ERC-20 and
// ERC-721 share the Transfer event: three topics and a 32-byte value is
// ERC-20, four topics and no data is ERC-721.
func decodeLog(l *evmapi.Log) []transfer {
	if len(l.Topics) == 0 {
		return nil
	}
	base := transfer{log: uint64(l.Index), token: l.Address}
	switch l.Topics[0] {
	case TransferTopic:
		switch {
		case len(l.Topics) == 3 && len(l.Data) == 32:
			base.kind, base.from, base.to = erc20, topicAddress(l.Topics[1]), topicAddress(l.Topics[2])
			base.value = new(big.Int).SetBytes(l.Data)
			return []transfer{base}
		case len(l.Topics) == 4 && len(l.Data) == 0:
			base.kind, base.from, base.to = erc721, topicAddress(l.Topics[1]), topicAddress(l.Topics[2])
			base.id = new(big.Int).SetBytes(l.Topics[3][:])
			return []transfer{base}
		}
	case TransferSingleTopic:
		if len(l.Topics) == 4 && len(l.Data) == 64 {
			base.kind, base.from, base.to = erc1155, topicAddress(l.Topics[2]), topicAddress(l.Topics[3])
			base.id = new(big.Int).SetBytes(l.Data[:32])
			base.value = new(big.Int).SetBytes(l.Data[32:])
			return []transfer{base}
		}
	case TransferBatchTopic:
		if len(l.Topics) != 4 {
			return nil
		}
		ids, ok1 := uintArray(l.Data, 0)
		values, ok2 := uintArray(l.Data, 32)
		if !ok1 || !ok2 || len(ids) != len(values) {
			return nil
		}
		out := make([]transfer, len(ids))
		for i := range ids {
			out[i] = base
			out[i].kind, out[i].batch = erc1155, uint64(i)
			out[i].from, out[i].to = topicAddress(l.Topics[2]), topicAddress(l.Topics[3])
			out[i].id, out[i].value = ids[i], values[i]
		}
		return out
	}
	return nil
}

// topicAddress returns the address an indexed address topic holds.
func topicAddress(h common.Hash) common.Address { return common.BytesToAddress(h[12:]) }

// uintArray decodes the ABI uint256[] whose offset is the word at head in
// data; ok is false when the data is malformed.
func uintArray(data []byte, head int) ([]*big.Int, bool) {
	off, ok := word(data, head)
	if !ok {
		return nil, false
	}
	n, ok := word(data, off)
	if !ok || n > maxBatchItems || off+32+32*n > len(data) {
		return nil, false
	}
	out := make([]*big.Int, n)
	for i := range n {
		start := off + 32 + 32*i
		out[i] = new(big.Int).SetBytes(data[start : start+32])
	}
	return out, true
}

// word returns the 32-byte word at offset at as an int; ok is false when
// it is out of data or too large to be an offset or a length.
func word(data []byte, at int) (int, bool) {
	if at < 0 || at+32 > len(data) {
		return 0, false
	}
	w := new(big.Int).SetBytes(data[at : at+32])
	if !w.IsInt64() || w.Int64() > int64(len(data)) {
		return 0, false
	}
	return int(w.Int64()), true
}
