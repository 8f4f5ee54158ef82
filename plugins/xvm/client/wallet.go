package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxoclient"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Wallet moves one key's funds on an X-Chain: it builds, signs and issues
// transfers, exports, imports and new assets in avalanchego's formats.
type Wallet struct {
	Client *Client
	// Account is the key, the network and chain IDs that NewWallet reads
	// and the clock.
	utxoclient.Account
	// FeeAsset, Fee and CreateAssetFee (a CreateAssetTx's) are the
	// chain's, read by NewWallet.
	FeeAsset       ids.ID
	Fee            uint64
	CreateAssetFee uint64
}

// NewWallet returns a wallet of key on the client's chain, after reading
// the chain's network, ID, fee asset ("AVAX", else the asset the fee is
// paid in must be given with WithFeeAsset) and fee.
func NewWallet(ctx context.Context, c *Client, key *avax.PrivateKey) (*Wallet, error) {
	account, err := utxoclient.NewAccount(ctx, &c.Conn, key)
	if err != nil {
		return nil, err
	}
	w := &Wallet{Client: c, Account: account}
	a, err := c.GetAssetDescription(ctx, "AVAX")
	if err != nil {
		return nil, fmt.Errorf("fee asset: %w", err)
	}
	w.FeeAsset = a.ID
	if w.Fee, w.CreateAssetFee, err = c.GetTxFee(ctx); err != nil {
		return nil, fmt.Errorf("fee: %w", err)
	}
	return w, nil
}

// FormatAddress returns an address as the chain shows it ("X-local1...").
func (w *Wallet) FormatAddress(a avax.ShortID) string {
	return w.Account.FormatAddress(w.Client.Chain(), a)
}

// spendable returns the UTXOs the key alone may spend now, of the chain
// or, with source set, of those source exported to it.
func (w *Wallet) spendable(ctx context.Context, source string) ([]avax.UTXO, error) {
	all, err := w.Client.AllUTXOs(ctx, []string{w.FormatAddress(w.Address())}, source)
	if err != nil {
		return nil, err
	}
	return w.Spendable(all), nil
}

// ErrInsufficientFunds is matched by a transfer or export the key's
// UTXOs cannot pay for.
var ErrInsufficientFunds = utxoclient.ErrInsufficientFunds

// spend selects UTXOs covering need (per asset) and returns their inputs
// and the change outputs back to the key.
func (w *Wallet) spend(ctx context.Context, need map[ids.ID]uint64) ([]avax.TransferableInput, []avax.TransferableOutput, error) {
	utxos, err := w.spendable(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	return utxoclient.Spend(utxos, w.Address(), need)
}

// Sign sorts u's inputs and outputs as the codec requires and signs every
// input with the key.
func (w *Wallet) Sign(u txs.Unsigned) *txs.Tx {
	base := u.Base()
	avax.SortInputs[struct{}](base.Ins, nil)
	avax.SortOutputs(base.Outs)
	switch t := u.(type) {
	case *txs.ImportTx:
		avax.SortInputs[struct{}](t.ImportedIns, nil)
	case *txs.ExportTx:
		avax.SortOutputs(t.ExportedOuts)
	}
	return txs.Sign(u, utxoclient.Keys(w.Key, u.NumInputs()))
}

// BuildSend returns a signed BaseTx sending amount of asset to an address,
// with change back to the key; the fee is paid in the fee asset.
func (w *Wallet) BuildSend(ctx context.Context, asset ids.ID, amount uint64, to avax.ShortID, memo []byte) (*txs.Tx, error) {
	need := map[ids.ID]uint64{asset: amount}
	need[w.FeeAsset] += w.Fee
	ins, change, err := w.spend(ctx, need)
	if err != nil {
		return nil, err
	}
	u := &txs.BaseTx{NetworkID: w.NetworkID, BlockchainID: w.ChainID, Ins: ins,
		Outs: append(change, utxoclient.Output(asset, amount, to)), Memo: memo}
	return w.Sign(u), nil
}

// Send sends amount of asset to an address and returns the transaction ID
// once it is accepted.
func (w *Wallet) Send(ctx context.Context, asset ids.ID, amount uint64, to avax.ShortID) (ids.ID, error) {
	tx, err := w.BuildSend(ctx, asset, amount, to, nil)
	if err != nil {
		return ids.ID{}, err
	}
	return w.Client.IssueTx(ctx, tx.Bytes())
}

// BuildExport returns a signed ExportTx sending amount of asset to an
// address on chain dest, through shared memory; the address imports it
// there.
func (w *Wallet) BuildExport(ctx context.Context, dest ids.ID, asset ids.ID, amount uint64, to avax.ShortID) (*txs.Tx, error) {
	need := map[ids.ID]uint64{asset: amount}
	need[w.FeeAsset] += w.Fee
	ins, change, err := w.spend(ctx, need)
	if err != nil {
		return nil, err
	}
	u := &txs.ExportTx{
		BaseTx: txs.BaseTx{NetworkID: w.NetworkID, BlockchainID: w.ChainID, Ins: ins, Outs: change},
		Export: avax.Export{DestinationChain: dest, ExportedOuts: []avax.TransferableOutput{utxoclient.Output(asset, amount, to)}},
	}
	return w.Sign(u), nil
}

// Export exports amount of asset to an address on chain dest and returns
// the transaction ID once it is accepted.
func (w *Wallet) Export(ctx context.Context, dest ids.ID, asset ids.ID, amount uint64, to avax.ShortID) (ids.ID, error) {
	tx, err := w.BuildExport(ctx, dest, asset, amount, to)
	if err != nil {
		return ids.ID{}, err
	}
	return w.Client.IssueTx(ctx, tx.Bytes())
}

// NewAsset is what BuildCreateAsset makes: an asset's description and its
// whole supply, held by an address (a fixed-cap asset).
type NewAsset struct {
	Name         string
	Symbol       string
	Denomination uint8
	Supply       uint64
	To           avax.ShortID
}

// BuildCreateAsset returns a signed CreateAssetTx of a, paying the
// chain's asset creation fee, with change back to the key. Its ID is the
// new asset's.
func (w *Wallet) BuildCreateAsset(ctx context.Context, a NewAsset) (*txs.Tx, error) {
	ins, change, err := w.spend(ctx, map[ids.ID]uint64{w.FeeAsset: w.CreateAssetFee})
	if err != nil {
		return nil, err
	}
	u := &txs.CreateAssetTx{
		BaseTx: txs.BaseTx{NetworkID: w.NetworkID, BlockchainID: w.ChainID, Ins: ins, Outs: change},
		Name:   a.Name, Symbol: a.Symbol, Denomination: a.Denomination,
		States: []txs.InitialState{{Outs: []txs.StateOutput{{Out: avax.TransferOutput{Amt: a.Supply, OutputOwners: utxoclient.Owner(a.To)}}}}},
	}
	return w.Sign(u), nil
}

// CreateAsset creates an asset and returns its ID (its transaction's)
// once the chain accepts it.
func (w *Wallet) CreateAsset(ctx context.Context, a NewAsset) (ids.ID, error) {
	tx, err := w.BuildCreateAsset(ctx, a)
	if err != nil {
		return ids.ID{}, err
	}
	return w.Client.IssueTx(ctx, tx.Bytes())
}

// ErrNothingToImport is matched when source exported nothing the key may
// import.
var ErrNothingToImport = errors.New("nothing to import")

// BuildImport returns a signed ImportTx of every UTXO chain source
// (alias or ID) exported to this chain that the key may spend, to an
// address; the fee is paid from the imported fee asset.
func (w *Wallet) BuildImport(ctx context.Context, source string, to avax.ShortID) (*txs.Tx, error) {
	sourceID, err := w.Client.ResolveChain(ctx, source)
	if err != nil {
		return nil, fmt.Errorf("source %w", err)
	}
	utxos, err := w.spendable(ctx, source)
	if err != nil {
		return nil, err
	}
	if len(utxos) == 0 {
		return nil, fmt.Errorf("%w: chain %s exported no UTXO this key may spend to %s", ErrNothingToImport, source, w.Client.Chain())
	}
	sums := map[ids.ID]uint64{}
	var imported []avax.TransferableInput
	for _, u := range utxos {
		sums[u.AssetID] += u.Out.Amt
		imported = append(imported, utxoclient.Input(u, w.Address()))
	}
	if sums[w.FeeAsset] <= w.Fee {
		return nil, fmt.Errorf("%w: the imported UTXOs hold %d of the fee asset, not more than the fee of %d", ErrInsufficientFunds, sums[w.FeeAsset], w.Fee)
	}
	sums[w.FeeAsset] -= w.Fee
	var outs []avax.TransferableOutput
	for asset, v := range sums {
		outs = append(outs, utxoclient.Output(asset, v, to))
	}
	u := &txs.ImportTx{
		BaseTx: txs.BaseTx{NetworkID: w.NetworkID, BlockchainID: w.ChainID, Outs: outs},
		Import: avax.Import{SourceChain: sourceID, ImportedIns: imported},
	}
	return w.Sign(u), nil
}

// Import imports every UTXO chain source exported to the key and returns
// the transaction ID once it is accepted.
func (w *Wallet) Import(ctx context.Context, source string, to avax.ShortID) (ids.ID, error) {
	tx, err := w.BuildImport(ctx, source, to)
	if err != nil {
		return ids.ID{}, err
	}
	return w.Client.IssueTx(ctx, tx.Bytes())
}
