package client

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxoclient"
	atx "github.com/chainhost/chainhost/plugins/evm/atomic"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Context is what a wallet builds transactions for: the network, the EVM
// chain's ID and the AVAX asset (avalanchego's wallets read them from the
// info API and the X-Chain).
type Context struct {
	NetworkID   uint32
	ChainID     ids.ID
	AVAXAssetID ids.ID
}

// Wallet imports into and exports from an EVM chain for one key: its
// X-Chain style address owns the UTXOs it imports and, by default, those
// it exports; its EVM address pays exports and, by default, receives
// imports.
type Wallet struct {
	Client *Client
	Key    *avax.PrivateKey
	Ctx    Context
	// Now is the time locktimes are compared with; time.Now when nil.
	Now func() time.Time
}

// ErrInsufficientFunds is matched by an import or export the key's funds
// cannot pay for.
var ErrInsufficientFunds = utxoclient.ErrInsufficientFunds

// EVMAddress returns the key's EVM address.
func (w *Wallet) EVMAddress() common.Address { return EVMAddress(w.Key) }

// EVMAddress returns the EVM address of a key.
func EVMAddress(k *avax.PrivateKey) common.Address {
	priv, err := crypto.ToECDSA(k.Bytes())
	if err != nil {
		panic(fmt.Sprintf("a valid key is not valid for go-ethereum: %v", err)) // ParsePrivateKey checks the same
	}
	return crypto.PubkeyToAddress(priv.PublicKey)
}

// Address returns the key's address as the chain shows it
// ("C-local1...").
func (w *Wallet) Address() string {
	return utxoclient.FormatAddress(w.Client.Chain(), w.Ctx.NetworkID, w.Key.Address())
}

// fee returns what a transaction of gas pays under the chain's rule.
func (w *Wallet) fee(ctx context.Context, gas uint64) (uint64, error) {
	rule, err := w.Client.FeeRule(ctx)
	if err != nil {
		return 0, err
	}
	if !rule.Dynamic {
		return rule.Fixed, nil
	}
	baseFee, err := w.Client.BaseFee(ctx)
	if err != nil {
		return 0, fmt.Errorf("base fee: %w", err)
	}
	return atx.DynamicFee(gas, baseFee)
}

// Importable returns the UTXOs source exported to the key that it alone
// may spend now.
func (w *Wallet) Importable(ctx context.Context, source string) ([]avax.UTXO, error) {
	all, err := w.Client.AllUTXOs(ctx, []string{w.Address()}, source)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(utxoclient.Spendable(all, w.Key.Address(), w.Now), func(u avax.UTXO) bool { return u.AssetID != w.Ctx.AVAXAssetID }), nil
}

// BuildImport builds and signs an import of every AVAX UTXO source
// (whose ID is sourceID) exported to the key, less the fee, to the EVM
// address to.
func (w *Wallet) BuildImport(ctx context.Context, source string, sourceID ids.ID, to common.Address) (*atx.Tx, error) {
	utxos, err := w.Importable(ctx, source)
	if err != nil {
		return nil, err
	}
	if len(utxos) == 0 {
		return nil, fmt.Errorf("%w: %s exported nothing to %s that it may import now", ErrInsufficientFunds, source, w.Address())
	}
	me := w.Key.Address()
	tx := &atx.ImportTx{NetworkID: w.Ctx.NetworkID, BlockchainID: w.Ctx.ChainID, SourceChain: sourceID}
	var total uint64
	for _, u := range utxos {
		tx.ImportedIns = append(tx.ImportedIns, utxoclient.Input(u, me))
		total += u.Out.Amt
	}
	avax.SortInputs[struct{}](tx.ImportedIns, nil)
	// The gas of the transaction with its one output, as avalanchego's
	// wallet counts it.
	fee, err := w.fee(ctx, atx.GasUsed(atx.New(tx, nil))+atx.EVMOutputGas)
	if err != nil {
		return nil, err
	}
	if total <= fee {
		return nil, fmt.Errorf("%w: the UTXOs hold %d nAVAX, the fee is %d", ErrInsufficientFunds, total, fee)
	}
	tx.Outs = []atx.EVMOutput{{Address: to, Amount: total - fee, AssetID: w.Ctx.AVAXAssetID}}
	return atx.Sign(tx, utxoclient.Keys(w.Key, len(tx.ImportedIns))), nil
}

// BuildExport builds and signs an export of amount nAVAX from the key's
// EVM balance to dest (whose ID is destID), owned there by to; the fee
// comes on top.
func (w *Wallet) BuildExport(ctx context.Context, destID ids.ID, amount uint64, to avax.ShortID) (*atx.Tx, error) {
	tx := &atx.ExportTx{NetworkID: w.Ctx.NetworkID, BlockchainID: w.Ctx.ChainID, DestinationChain: destID,
		ExportedOuts: []avax.TransferableOutput{utxoclient.Output(w.Ctx.AVAXAssetID, amount, to)}}
	// The gas of the transaction with its one input, as avalanchego's
	// wallet counts it.
	fee, err := w.fee(ctx, atx.GasUsed(atx.New(tx, nil))+atx.EVMInputGas)
	if err != nil {
		return nil, err
	}
	from := w.EVMAddress()
	balance, err := w.Client.Balance(ctx, from)
	if err != nil {
		return nil, fmt.Errorf("balance of %s: %w", from, err)
	}
	need := new(big.Int).Mul(new(big.Int).SetUint64(amount+fee), big.NewInt(atx.X2CRate))
	if balance.Cmp(need) < 0 {
		return nil, fmt.Errorf("%w: %s holds %s wei, the export takes %s (%d nAVAX and the fee of %d)", ErrInsufficientFunds, from, balance, need, amount, fee)
	}
	nonce, err := w.Client.Nonce(ctx, from)
	if err != nil {
		return nil, fmt.Errorf("nonce of %s: %w", from, err)
	}
	tx.Ins = []atx.EVMInput{{Address: from, Amount: amount + fee, AssetID: w.Ctx.AVAXAssetID, Nonce: nonce}}
	return atx.Sign(tx, [][]*avax.PrivateKey{{w.Key}}), nil
}

// Issue issues a transaction and waits until the chain accepts it.
func (w *Wallet) Issue(ctx context.Context, tx *atx.Tx) (ids.ID, error) {
	id, err := w.Client.IssueTx(ctx, tx.Bytes())
	if err != nil {
		return ids.ID{}, err
	}
	if _, err := w.Client.WaitAccepted(ctx, id); err != nil {
		return id, err
	}
	return id, nil
}

// Import imports everything source exported to the key into to's EVM
// balance, less the fee, and waits until it is accepted.
func (w *Wallet) Import(ctx context.Context, source string, sourceID ids.ID, to common.Address) (ids.ID, error) {
	tx, err := w.BuildImport(ctx, source, sourceID, to)
	if err != nil {
		return ids.ID{}, err
	}
	return w.Issue(ctx, tx)
}

// Export exports amount nAVAX to dest for to, and waits until it is
// accepted.
func (w *Wallet) Export(ctx context.Context, destID ids.ID, amount uint64, to avax.ShortID) (ids.ID, error) {
	tx, err := w.BuildExport(ctx, destID, amount, to)
	if err != nil {
		return ids.ID{}, err
	}
	return w.Issue(ctx, tx)
}
