package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/avax/utxoclient"
	"github.com/chainhost/chainhost/plugins/pvm/bls"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/plugins/pvm/warp"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Wallet acts with one key on a P-Chain: it builds, signs and issues
// transfers, imports and exports, stakers, subnets and L1 validators in avalanchego's formats.
type Wallet struct {
	Client *Client
	// Account is the key, the network and chain IDs that NewWallet reads
	// and the clock.
	utxoclient.Account
	// Config is the chain's rules, read by NewWallet.
	Config pvmapi.Config
}

// NewWallet returns a wallet of key on the client's chain, after reading
// the network ID, the chain's ID and the chain's rules.
func NewWallet(ctx context.Context, c *Client, key *avax.PrivateKey) (*Wallet, error) {
	account, err := utxoclient.NewAccount(ctx, &c.Conn, key)
	if err != nil {
		return nil, err
	}
	w := &Wallet{Client: c, Account: account}
	if w.Config, err = c.GetConfig(ctx); err != nil {
		return nil, fmt.Errorf("the chain's rules: %w", err)
	}
	return w, nil
}

// FormatAddress returns an address as the chain shows it ("P-local1...").
func (w *Wallet) FormatAddress(a avax.ShortID) string {
	return w.Account.FormatAddress(w.Client.Chain(), a)
}

// output returns an output of amount AVAX to one address.
func (w *Wallet) output(amount uint64, to avax.ShortID) avax.TransferableOutput {
	return utxoclient.Output(w.Config.AVAXAssetID, amount, to)
}

// ErrInsufficientFunds is matched when the key's UTXOs cannot pay.
var ErrInsufficientFunds = utxoclient.ErrInsufficientFunds

// spend selects UTXOs the key alone may spend now covering need nAVAX,
// largest first, and returns their inputs and the change back to the key.
func (w *Wallet) spend(ctx context.Context, need uint64) ([]avax.TransferableInput, []avax.TransferableOutput, error) {
	all, err := w.Client.AllUTXOs(ctx, []string{w.FormatAddress(w.Address())}, "")
	if err != nil {
		return nil, nil, err
	}
	return utxoclient.Spend(w.Spendable(all), w.Address(), map[ids.ID]uint64{w.Config.AVAXAssetID: need})
}

// base returns the common fields of a transaction that pays need (the fee
// included) from the key's UTXOs, with outs besides the change.
func (w *Wallet) base(ctx context.Context, need uint64, outs ...avax.TransferableOutput) (txs.BaseTx, error) {
	var sum uint64
	for _, o := range outs {
		sum += o.Out.Amt
	}
	ins, change, err := w.spend(ctx, need+sum)
	if err != nil {
		return txs.BaseTx{}, err
	}
	return txs.BaseTx{NetworkID: w.NetworkID, BlockchainID: w.ChainID, Outs: append(change, outs...), Ins: ins}, nil
}

// Sign sorts u's inputs and outputs as the codec requires and signs every
// input, and the authorization if u has one, with the key.
func (w *Wallet) Sign(u txs.Unsigned) *txs.Tx {
	b := u.Base()
	avax.SortInputs[struct{}](b.Ins, nil)
	avax.SortOutputs(b.Outs)
	switch t := u.(type) {
	case *txs.ImportTx:
		avax.SortInputs[struct{}](t.ImportedIns, nil)
	case *txs.ExportTx:
		avax.SortOutputs(t.ExportedOuts)
	}
	return txs.Sign(u, utxoclient.Keys(w.Key, txs.NumCredentials(u)))
}

// issue signs and issues u and returns the transaction's ID once accepted.
func (w *Wallet) issue(ctx context.Context, u txs.Unsigned) (ids.ID, error) {
	tx := w.Sign(u)
	return w.Client.IssueTx(ctx, tx.Bytes())
}

// BuildSend returns a signed transfer of amount nAVAX to an address.
func (w *Wallet) BuildSend(ctx context.Context, amount uint64, to avax.ShortID) (*txs.Tx, error) {
	b, err := w.base(ctx, uint64(w.Config.TxFee), w.output(amount, to))
	if err != nil {
		return nil, err
	}
	return w.Sign(&b), nil
}

// Send sends amount nAVAX to an address.
func (w *Wallet) Send(ctx context.Context, amount uint64, to avax.ShortID) (ids.ID, error) {
	tx, err := w.BuildSend(ctx, amount, to)
	if err != nil {
		return ids.ID{}, err
	}
	return w.Client.IssueTx(ctx, tx.Bytes())
}

// BuildExport returns a signed ExportTx sending amount nAVAX to an
// address on chain dest (the X- or C-Chain) through shared memory; the
// address imports it there.
func (w *Wallet) BuildExport(ctx context.Context, dest ids.ID, amount uint64, to avax.ShortID) (*txs.Tx, error) {
	b, err := w.base(ctx, uint64(w.Config.TxFee)+amount)
	if err != nil {
		return nil, err
	}
	return w.Sign(&txs.ExportTx{BaseTx: b, Export: avax.Export{DestinationChain: dest, ExportedOuts: []avax.TransferableOutput{w.output(amount, to)}}}), nil
}

// ErrNothingToImport is matched when the source chain exported nothing
// the key may import.
var ErrNothingToImport = errors.New("nothing to import")

// BuildImport returns a signed ImportTx of every UTXO chain source (alias
// or ID) exported to the P-Chain that the key may spend, to an address;
// the fee is paid from the imported AVAX.
func (w *Wallet) BuildImport(ctx context.Context, source string, to avax.ShortID) (*txs.Tx, error) {
	sourceID, err := w.Client.ResolveChain(ctx, source)
	if err != nil {
		return nil, fmt.Errorf("source %w", err)
	}
	all, err := w.Client.AllUTXOs(ctx, []string{w.FormatAddress(w.Address())}, source)
	if err != nil {
		return nil, err
	}
	var sum uint64
	var imported []avax.TransferableInput
	for _, u := range w.Spendable(all) {
		if u.AssetID == w.Config.AVAXAssetID {
			sum += u.Out.Amt
			imported = append(imported, utxoclient.Input(u, w.Address()))
		}
	}
	fee := uint64(w.Config.TxFee)
	switch {
	case len(imported) == 0:
		return nil, fmt.Errorf("%w: chain %s exported no AVAX this key may spend to %s", ErrNothingToImport, source, w.Client.Chain())
	case sum <= fee:
		return nil, fmt.Errorf("%w: the imported UTXOs hold %d nAVAX, not more than the fee of %d", ErrInsufficientFunds, sum, fee)
	}
	return w.Sign(&txs.ImportTx{
		BaseTx: txs.BaseTx{NetworkID: w.NetworkID, BlockchainID: w.ChainID, Outs: []avax.TransferableOutput{w.output(sum-fee, to)}},
		Import: avax.Import{SourceChain: sourceID, ImportedIns: imported},
	}), nil
}

// Stake describes a validator's or delegator's period and weight.
type Stake struct {
	NodeID avax.NodeID
	Weight uint64
	// Start is the period's start, unix seconds; 0 (or a time passed) is
	// now.
	Start uint64
	End   uint64
	// RewardAddress owns the rewards; the zero address is the key's.
	RewardAddress avax.ShortID
}

func (w *Wallet) stakeParts(ctx context.Context, s Stake) (txs.BaseTx, txs.Validator, []avax.TransferableOutput, avax.OutputOwners, error) {
	reward := s.RewardAddress
	if reward.IsZero() {
		reward = w.Address()
	}
	b, err := w.base(ctx, uint64(w.Config.TxFee)+s.Weight)
	if err != nil {
		return txs.BaseTx{}, txs.Validator{}, nil, avax.OutputOwners{}, err
	}
	v := txs.Validator{NodeID: s.NodeID, Start: s.Start, End: s.End, Weight: s.Weight}
	return b, v, []avax.TransferableOutput{w.output(s.Weight, w.Address())}, utxoclient.Owner(reward), nil
}

// AddValidator adds a primary-network validator staking from the key, with
// a delegation fee in millionths, and a BLS key when pop is not nil
// (AddPermissionlessValidatorTx; AddValidatorTx without one).
func (w *Wallet) AddValidator(ctx context.Context, s Stake, shares uint32, pop *txs.ProofOfPossession) (ids.ID, error) {
	b, v, stake, reward, err := w.stakeParts(ctx, s)
	if err != nil {
		return ids.ID{}, err
	}
	if pop == nil {
		return w.issue(ctx, &txs.AddValidatorTx{BaseTx: b, Validator: v, StakeOuts: stake, RewardsOwner: reward, DelegationShares: shares})
	}
	return w.issue(ctx, &txs.AddPermissionlessValidatorTx{BaseTx: b, Validator: v, Signer: pop, StakeOuts: stake,
		ValidatorRewardsOwner: reward, DelegatorRewardsOwner: reward, DelegationShares: shares})
}

// AddDelegator stakes on a primary-network validator from the key.
func (w *Wallet) AddDelegator(ctx context.Context, s Stake) (ids.ID, error) {
	b, v, stake, reward, err := w.stakeParts(ctx, s)
	if err != nil {
		return ids.ID{}, err
	}
	return w.issue(ctx, &txs.AddPermissionlessDelegatorTx{BaseTx: b, Validator: v, StakeOuts: stake, RewardsOwner: reward})
}

// CreateSubnet creates a subnet the key owns and returns its ID.
func (w *Wallet) CreateSubnet(ctx context.Context) (ids.ID, error) {
	b, err := w.base(ctx, uint64(w.Config.CreateSubnetTxFee))
	if err != nil {
		return ids.ID{}, err
	}
	return w.issue(ctx, &txs.CreateSubnetTx{BaseTx: b, Owner: utxoclient.Owner(w.Address())})
}

// subnetAuth authorizes a change of a subnet the key owns alone.
var subnetAuth = txs.Auth{SigIndices: []uint32{0}}

// CreateChain creates a chain of a subnet the key owns and returns its ID.
func (w *Wallet) CreateChain(ctx context.Context, subnetID ids.ID, name string, vmID ids.ID, genesis []byte) (ids.ID, error) {
	b, err := w.base(ctx, uint64(w.Config.CreateChainTxFee))
	if err != nil {
		return ids.ID{}, err
	}
	return w.issue(ctx, &txs.CreateChainTx{BaseTx: b, SubnetID: subnetID, ChainName: name, VMID: vmID, GenesisData: genesis, SubnetAuth: subnetAuth})
}

// DevBLSKey is the BLS key the wallet gives a node it makes an L1 or
// primary-network validator: derived from the wallet's key and the node
// ID, so that the same key can sign the node's Warp messages later
// (docs/pchain.md). A development convenience, not a key for real funds.
func (w *Wallet) DevBLSKey(nodeID avax.NodeID) *bls.SecretKey {
	return bls.DeriveSecretKey(append(append([]byte("chainhost dev BLS key "), w.Key.Bytes()...), nodeID[:]...))
}

// NewL1Validator describes an L1 validator to make: its node, weight and
// balance; the key owns what is left of the balance and may disable it.
type NewL1Validator struct {
	NodeID  avax.NodeID
	Weight  uint64
	Balance uint64
}

func (w *Wallet) pOwner() warp.PChainOwner {
	return warp.PChainOwner{Threshold: 1, Addrs: []avax.ShortID{w.Address()}}
}

// ConvertSubnet makes a subnet the key owns an L1 managed from address of
// chain, with its first validators (their BLS keys DevBLSKey); it returns
// the transaction ID and the validators' validation IDs, in the order of
// vdrs.
func (w *Wallet) ConvertSubnet(ctx context.Context, subnetID, chainID ids.ID, address []byte, vdrs []NewL1Validator) (ids.ID, []ids.ID, error) {
	list := make([]txs.ConvertValidator, len(vdrs))
	var balances uint64
	for i, v := range vdrs {
		list[i] = txs.ConvertValidator{NodeID: v.NodeID.Bytes(), Weight: v.Weight, Balance: v.Balance,
			Signer: txs.NewProofOfPossession(w.DevBLSKey(v.NodeID)), RemainingBalanceOwner: w.pOwner(), DeactivationOwner: w.pOwner()}
		balances += v.Balance
	}
	slices.SortFunc(list, func(a, b txs.ConvertValidator) int { return strings.Compare(string(a.NodeID), string(b.NodeID)) })
	b, err := w.base(ctx, uint64(w.Config.TxFee)+balances)
	if err != nil {
		return ids.ID{}, nil, err
	}
	id, err := w.issue(ctx, &txs.ConvertSubnetToL1Tx{BaseTx: b, Subnet: subnetID, ChainID: chainID, Address: address, Validators: list, SubnetAuth: subnetAuth})
	if err != nil {
		return ids.ID{}, nil, err
	}
	vids := make([]ids.ID, len(vdrs))
	for i, v := range vdrs {
		at := slices.IndexFunc(list, func(c txs.ConvertValidator) bool { return string(c.NodeID) == string(v.NodeID[:]) })
		vids[i] = txs.ConvertValidationID(subnetID, uint32(at))
	}
	return id, vids, nil
}

// BuildIncreaseBalance returns a signed top-up of amount nAVAX for an L1
// validator's balance.
func (w *Wallet) BuildIncreaseBalance(ctx context.Context, validationID ids.ID, amount uint64) (*txs.Tx, error) {
	b, err := w.base(ctx, uint64(w.Config.TxFee)+amount)
	if err != nil {
		return nil, err
	}
	return w.Sign(&txs.IncreaseL1ValidatorBalanceTx{BaseTx: b, ValidationID: validationID, Balance: amount}), nil
}

// IncreaseBalance adds amount nAVAX to an L1 validator's balance.
func (w *Wallet) IncreaseBalance(ctx context.Context, validationID ids.ID, amount uint64) (ids.ID, error) {
	tx, err := w.BuildIncreaseBalance(ctx, validationID, amount)
	if err != nil {
		return ids.ID{}, err
	}
	return w.Client.IssueTx(ctx, tx.Bytes())
}

// Disable disables an L1 validator the key may disable; what is left of
// its balance returns to its remaining balance owner.
func (w *Wallet) Disable(ctx context.Context, validationID ids.ID) (ids.ID, error) {
	b, err := w.base(ctx, uint64(w.Config.TxFee))
	if err != nil {
		return ids.ID{}, err
	}
	return w.issue(ctx, &txs.DisableL1ValidatorTx{BaseTx: b, ValidationID: validationID, DisableAuth: txs.Auth{SigIndices: []uint32{0}}})
}

// RegisterL1Validator registers an L1 validator with a balance, as the
// L1's validator manager asks in a Warp message the wallet signs with the
// L1 validators' keys (ManagerMessage); the node's BLS key is DevBLSKey.
// It returns the transaction ID and the validation ID.
func (w *Wallet) RegisterL1Validator(ctx context.Context, subnetID ids.ID, v NewL1Validator, expiry uint64) (ids.ID, ids.ID, error) {
	sk := w.DevBLSKey(v.NodeID)
	reg := &warp.RegisterL1Validator{SubnetID: subnetID, NodeID: v.NodeID.Bytes(), BLSPublicKey: sk.PublicKey().Bytes(),
		Expiry: expiry, RemainingBalanceOwner: w.pOwner(), DisableOwner: w.pOwner(), Weight: v.Weight}
	msg, err := w.ManagerMessage(ctx, subnetID, reg.Bytes())
	if err != nil {
		return ids.ID{}, ids.ID{}, err
	}
	b, err := w.base(ctx, uint64(w.Config.TxFee)+v.Balance)
	if err != nil {
		return ids.ID{}, ids.ID{}, err
	}
	id, err := w.issue(ctx, &txs.RegisterL1ValidatorTx{BaseTx: b, Balance: v.Balance, ProofOfPossession: sk.SignProofOfPossession().Bytes(), Message: msg})
	return id, reg.ValidationID(), err
}

// SetL1ValidatorWeight sets an L1 validator's weight (0 removes it), as
// its validator manager asks in a Warp message the wallet signs; the nonce
// is the validator's next.
func (w *Wallet) SetL1ValidatorWeight(ctx context.Context, validationID ids.ID, weight uint64) (ids.ID, error) {
	v, err := w.Client.GetL1Validator(ctx, validationID)
	if err != nil {
		return ids.ID{}, err
	}
	m := &warp.L1ValidatorWeight{ValidationID: validationID, Nonce: uint64(v.MinNonce), Weight: weight}
	msg, err := w.ManagerMessage(ctx, v.SubnetID, m.Bytes())
	if err != nil {
		return ids.ID{}, err
	}
	return w.IssueWeightMessage(ctx, msg)
}

// IssueWeightMessage issues a SetL1ValidatorWeightTx of a signed Warp
// message (ManagerMessage of an L1ValidatorWeight).
func (w *Wallet) IssueWeightMessage(ctx context.Context, msg []byte) (ids.ID, error) {
	b, err := w.base(ctx, uint64(w.Config.TxFee))
	if err != nil {
		return ids.ID{}, err
	}
	return w.issue(ctx, &txs.SetL1ValidatorWeightTx{BaseTx: b, Message: msg})
}

// ErrCannotSign is matched when the wallet holds too few of the keys of
// the validators that sign for an L1's manager.
var ErrCannotSign = errors.New("cannot sign for the L1's validator manager")

// ManagerMessage returns the Warp message of an L1's validator manager
// carrying payload: an addressed call from the manager's address on its
// chain, signed by the active validators of the manager chain's subnet
// whose keys the wallet derives (DevBLSKey). The wallet signs for an L1
// whose validators it made.
func (w *Wallet) ManagerMessage(ctx context.Context, subnetID ids.ID, payload []byte) ([]byte, error) {
	sn, err := w.Client.GetSubnet(ctx, subnetID)
	if err != nil {
		return nil, fmt.Errorf("subnet %s: %w", subnetID, err)
	}
	if sn.IsPermissioned || sn.ManagerAddress == nil {
		return nil, fmt.Errorf("subnet %s is not an L1", subnetID)
	}
	chains, err := w.Client.GetBlockchains(ctx)
	if err != nil {
		return nil, err
	}
	signing := ids.ID{}
	for _, c := range chains {
		if c.ID == sn.ManagerChainID {
			signing = c.SubnetID
		}
	}
	if signing != subnetID {
		return nil, fmt.Errorf("%w: the manager chain %s is not a chain of L1 %s", ErrCannotSign, sn.ManagerChainID, subnetID)
	}
	vdrs, err := w.Client.GetL1Validators(ctx, subnetID)
	if err != nil {
		return nil, err
	}
	var set []warp.Validator
	keys := map[[bls.PublicKeyLen]byte]*bls.SecretKey{}
	for _, v := range vdrs {
		if v.Balance == 0 {
			set = append(set, warp.Validator{Weight: uint64(v.Weight)}) // inactive: cannot sign
			continue
		}
		pk, err := bls.PublicKeyFromBytes(v.PublicKey)
		if err != nil {
			return nil, fmt.Errorf("L1 validator %s: %w", v.ValidationID, err)
		}
		set = append(set, warp.Validator{PublicKey: pk, Weight: uint64(v.Weight)})
		if sk := w.DevBLSKey(v.NodeID); sk.PublicKey().Bytes() == pk.Bytes() {
			keys[pk.Bytes()] = sk
		}
	}
	vs, err := warp.NewValidatorSet(set)
	if err != nil {
		return nil, err
	}
	call := warp.AddressedCall{SourceAddress: *sn.ManagerAddress, Payload: payload}
	msg, err := warp.Sign(warp.UnsignedMessage{NetworkID: w.NetworkID, SourceChainID: sn.ManagerChainID, Payload: call.Bytes()}, vs, keys)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCannotSign, err)
	}
	if err := msg.Verify(w.NetworkID, vs); err != nil {
		return nil, fmt.Errorf("%w: the wallet holds the keys of too few of its validators: %w", ErrCannotSign, err)
	}
	return msg.Bytes(), nil
}
