package compat

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/gas"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/fx"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/p"
	pbuilder "github.com/ava-labs/avalanchego/wallet/chain/p/builder"
	psigner "github.com/ava-labs/avalanchego/wallet/chain/p/signer"
	pwallet "github.com/ava-labs/avalanchego/wallet/chain/p/wallet"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary/common"
)

// pchainConfig runs the P-Chain with the ewoq key funded, on a manual
// clock at 2026-01-01, with the admin API to alias its endpoint, under
// avalanchego's P-Chain ID (the zero ID), which avalanchego's wallet
// writes in every transaction.
const pchainConfig = `
api-admin-enabled: true
chains:
  - alias: P
    id: 11111111111111111111111111111111LpoYY
    vm: platform
    genesis:
      avaxAssetID: 2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe
      timestamp: 1767225600
      allocations: [{address: P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u, amount: "300000000000000000"}]
    config: {clock: manual, dev-api-enabled: true}
`

// pWallet is avalanchego's P-Chain wallet of keys, built as
// primary.MakePWallet builds it (the UTXOs from platform.getUTXOs through
// client) but for its context: chainhost serves no fee state
// (docs/pchain.md), so the context is pContext's. owners holds the owners
// of the subnets the wallet may sign for.
func pWallet(t *testing.T, uri string, client *platformvm.Client, keys ...*secp256k1.PrivateKey) (w pwallet.Wallet, owners map[ids.ID]fx.Owner) {
	t.Helper()
	ctx := context.Background()
	assetID, err := client.GetStakingAssetID(ctx, constants.PrimaryNetworkID)
	if err != nil {
		t.Fatalf("getStakingAssetID: %v", err)
	}
	networkID, err := info.NewClient(uri).GetNetworkID(ctx)
	if err != nil {
		t.Fatalf("info.getNetworkID: %v", err)
	}
	return newPWallet(t, client, pContext(networkID, assetID), keys)
}

// pContext is avalanchego's P-Chain builder context with its local gas
// weights at a price that makes every transaction's fee above chainhost's
// static fees (docs/pchain.md).
func pContext(networkID uint32, avaxAssetID ids.ID) *pbuilder.Context {
	return &pbuilder.Context{NetworkID: networkID, AVAXAssetID: avaxAssetID, GasPrice: 100_000,
		ComplexityWeights: gas.Dimensions{gas.Bandwidth: 1, gas.DBRead: 1_000, gas.DBWrite: 1_000, gas.Compute: 4}}
}

// newPWallet is avalanchego's P-Chain wallet of keys with the builder
// context bctx, its UTXOs and those the chains of sources exported to it
// read through client.
func newPWallet(t *testing.T, client *platformvm.Client, bctx *pbuilder.Context, keys []*secp256k1.PrivateKey, sources ...ids.ID) (w pwallet.Wallet, owners map[ids.ID]fx.Owner) {
	t.Helper()
	kc := secp256k1fx.NewKeychain(keys...)
	utxos := common.NewUTXOs()
	for _, src := range append([]ids.ID{constants.PlatformChainID}, sources...) {
		if err := primary.AddAllUTXOs(context.Background(), utxos, client, txs.Codec, src, constants.PlatformChainID, kc.Addresses().List()); err != nil {
			t.Fatalf("avalanchego reads chainhost's P-Chain UTXOs from %s: %v", src, err)
		}
	}
	owners = map[ids.ID]fx.Owner{}
	backend := pwallet.NewBackend(common.NewChainUTXOs(constants.PlatformChainID, utxos), owners)
	return pwallet.New(p.NewClient(client, backend), pbuilder.New(kc.Addresses(), bctx, backend), psigner.New(kc, backend)), owners
}

// TestPChainAvalanchegoWallet: avalanchego v1.14's P-Chain wallet
// (wallet/chain/p, with platformvm.Client and primary.AddAllUTXOs) builds
// and signs a transfer, a primary-network validator with its BLS key, a
// delegator, a subnet, its manager chain, its conversion to an L1, a
// top-up and a disable; chainhost accepts each as it is (the wallet's
// dynamic fee is priced to cover chainhost's static fees: chainhost serves
// no fee state, docs/pchain.md). avalanchego's client reads chainhost's
// answers: the staking asset, the validators (the L1's too), an L1
// validator, the subnet, the transactions and the blocks, whose bytes
// decode with avalanchego's codec.
func TestPChainAvalanchegoWallet(t *testing.T) {
	n := startNode(t, pchainConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ewoq := ewoqKey(t)
	// avalanchego's client calls /ext/P, which chainhost serves as
	// /ext/bc/P, as avalanchego's node does (docs/pchain.md).
	client := platformvm.NewClient(n.URL)
	assetID, err := client.GetStakingAssetID(ctx, constants.PrimaryNetworkID)
	if err != nil || assetID.String() != "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe" {
		t.Fatalf("getStakingAssetID: %s, %v", assetID, err)
	}
	w, owners := pWallet(t, n.URL, client, ewoq)
	me := ewoq.Address()
	owner := &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{me}}
	var issued []*txs.Tx
	issue := func(tx *txs.Tx, err error) *txs.Tx {
		t.Helper()
		if err != nil {
			t.Fatalf("tx %d, built by avalanchego's wallet: %v", len(issued)+1, err)
		}
		issued = append(issued, tx)
		return tx
	}

	issue(w.IssueBaseTx([]*avax.TransferableOutput{{Asset: avax.Asset{ID: assetID},
		Out: &secp256k1fx.TransferOutput{Amt: 5_000_000_000, OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{{7}}}}}}))
	now, err := client.GetTimestamp(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nodeID := ids.BuildTestNodeID([]byte("chainhost compat node"))
	sk, err := localsigner.New()
	if err != nil {
		t.Fatal(err)
	}
	pop, err := signer.NewProofOfPossession(sk)
	if err != nil {
		t.Fatal(err)
	}
	end := uint64(now.Add(30 * 24 * time.Hour).Unix())
	vdr := &txs.SubnetValidator{Validator: txs.Validator{NodeID: nodeID, End: end, Wght: 2_000_000_000_000}, Subnet: constants.PrimaryNetworkID}
	issue(w.IssueAddPermissionlessValidatorTx(vdr, pop, assetID, owner, owner, 20_000))
	del := &txs.SubnetValidator{Validator: txs.Validator{NodeID: nodeID, End: end - 86400, Wght: 25_000_000_000}, Subnet: constants.PrimaryNetworkID}
	issue(w.IssueAddPermissionlessDelegatorTx(del, assetID, owner))
	subnetTx := issue(w.IssueCreateSubnetTx(owner))
	subnetID := subnetTx.ID()
	owners[subnetID] = owner
	chainTx := issue(w.IssueCreateChainTx(subnetID, []byte("{}"), ids.ID{'s', 'u', 'b', 'n', 'e', 't', 'e', 'v', 'm'}, nil, "manager"))
	l1Key, _ := localsigner.New()
	l1PoP, _ := signer.NewProofOfPossession(l1Key)
	l1Node := ids.BuildTestNodeID([]byte("chainhost compat L1 node"))
	pOwner := message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{me}}
	issue(w.IssueConvertSubnetToL1Tx(subnetID, chainTx.ID(), []byte{0xab}, []*txs.ConvertSubnetToL1Validator{{
		NodeID: l1Node.Bytes(), Weight: 100, Balance: 1_000_000_000, Signer: *l1PoP, RemainingBalanceOwner: pOwner, DeactivationOwner: pOwner,
	}}))
	validationID := subnetID.Append(0)
	issue(w.IssueIncreaseL1ValidatorBalanceTx(validationID, 500_000_000))

	// avalanchego's client reads what chainhost answers.
	vdrs, err := client.GetCurrentValidators(ctx, constants.PrimaryNetworkID, []ids.NodeID{nodeID})
	if err != nil || len(vdrs) != 1 || vdrs[0].Weight != 2_000_000_000_000 || vdrs[0].EndTime != end ||
		vdrs[0].DelegatorCount == nil || *vdrs[0].DelegatorCount != 1 || vdrs[0].Signer == nil ||
		!bytes.Equal(vdrs[0].Signer.PublicKey[:], bls.PublicKeyToCompressedBytes(sk.PublicKey())) {
		t.Fatalf("getCurrentValidators, read by avalanchego: %+v, %v", vdrs, err)
	}
	l1, _, err := client.GetL1Validator(ctx, validationID)
	if err != nil || l1.NodeID != l1Node || l1.Weight != 100 || l1.Balance != 1_500_000_000 || l1.SubnetID != subnetID {
		t.Fatalf("getL1Validator, read by avalanchego: %+v, %v", l1, err)
	}
	sub, err := client.GetSubnet(ctx, subnetID)
	if err != nil || sub.IsPermissioned || sub.ManagerChainID != chainTx.ID() || !bytes.Equal(sub.ManagerAddress, []byte{0xab}) {
		t.Fatalf("getSubnet, read by avalanchego: %+v, %v", sub, err)
	}
	issue(w.IssueDisableL1ValidatorTx(validationID))
	if l1, _, err := client.GetL1Validator(ctx, validationID); err != nil || l1.Balance != 0 {
		t.Fatalf("after the disable: %+v, %v", l1, err)
	}
	// Every transaction as chainhost stores it, and the blocks.
	for _, want := range issued {
		got, err := client.GetTx(ctx, want.ID())
		if err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("getTx %s: %v", want.ID(), err)
		}
		st, err := client.GetTxStatus(ctx, want.ID())
		if err != nil || st.Status.String() != "Committed" {
			t.Fatalf("getTxStatus %s: %+v, %v", want.ID(), st, err)
		}
	}
	height, err := client.GetHeight(ctx)
	if err != nil || height != uint64(len(issued)) {
		t.Fatalf("height %d, %v; want %d", height, err, len(issued))
	}
	for h := uint64(1); h <= height; h++ {
		raw, err := client.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := block.Parse(block.Codec, raw)
		if err != nil || blk.Height() != h || len(blk.Txs()) != 1 || blk.Txs()[0].ID() != issued[h-1].ID() {
			t.Fatalf("block %d, parsed by avalanchego: %v", h, err)
		}
	}
}
