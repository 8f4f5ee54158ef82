package derive

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
)

// create3 is the internal transaction type of a CREATE run by a contract
// that the same transaction made with CREATE2: the CREATE3 pattern, where a
// CREATE2 proxy deploys the real contract so that its address depends on
// the salt only.
const create3 = "CREATE3"

// creation is a contract creation a transaction made.
type creation struct {
	frame   uint64
	address common.Address
	factory common.Address // zero when the transaction itself created it
}

// frames derives a transaction's listed internal transactions and the
// contracts it created from its call frames. Listed are the frames below
// the transaction's own call (depth 1 and more) that are a CALL or
// CALLCODE moving value, or a CREATE or CREATE2 (CREATE3 when the creator
// is a contract the transaction made with CREATE2). A frame is reverted
// when it or a frame above it failed; reverted creations made nothing.
func frames(tx *evmapi.Transaction) ([]store.InternalTx, []creation) {
	var (
		internal  []store.InternalTx
		created   []creation
		create2   map[common.Address]bool
		revertedD []bool // by depth: whether the frame on the path at that depth failed
	)
	if tx.To == nil && tx.Status == 1 && tx.ContractAddress != nil {
		created = append(created, creation{frame: 0, address: *tx.ContractAddress})
	}
	for i := range tx.Calls {
		f := &tx.Calls[i]
		if f.Depth < 0 || f.Depth > len(revertedD) {
			continue // not depth-first: a malformed trace
		}
		reverted := f.Reverted || (f.Depth > 0 && revertedD[f.Depth-1])
		revertedD = append(revertedD[:f.Depth], reverted)
		if f.Type == evmapi.Create2Type {
			if create2 == nil {
				create2 = map[common.Address]bool{}
			}
			create2[f.To] = true
		}
		if f.Depth == 0 {
			continue
		}
		value := bigOf(f.Value)
		typ := f.Type
		switch typ {
		case evmapi.CallType, evmapi.CallCodeType:
			if value.Sign() == 0 {
				continue
			}
		case evmapi.CreateType, evmapi.Create2Type:
			if typ == evmapi.CreateType && create2[f.From] {
				typ = create3
			}
			if !reverted {
				created = append(created, creation{frame: uint64(i), address: f.To, factory: f.From})
			}
		default:
			continue
		}
		internal = append(internal, store.InternalTx{
			Frame: uint64(i), Type: typ, From: f.From, To: f.To, Value: value,
			Reverted: reverted, GasLimit: uint64(f.Gas), GasUsed: uint64(f.GasUsed),
		})
	}
	return internal, created
}

// bigOf returns a copy of v, zero when nil.
func bigOf(v *hexutil.Big) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return new(big.Int).Set(v.ToInt())
}
