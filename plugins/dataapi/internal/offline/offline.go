// Package offline indexes blocks into a store without a chain to call,
// for the data API's store tests and write-path benchmarks: the same
// derive and write steps as the indexer, with token metadata made up from
// the addresses and balances read from the store.
package offline

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/dataapi/derive"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Index indexes blocks (consecutive, going on from the chain's state) in
// runs of perWrite blocks, one atomic write each.
func Index(ctx context.Context, st store.Store, chain ids.ID, evmChainID uint64, blocks []evmapi.Block, perWrite int) error {
	state, err := st.State(ctx, chain)
	if err != nil {
		return err
	}
	state.EVMChainID = evmChainID
	known := map[common.Address]bool{}
	for start := 0; start < len(blocks); start += perWrite {
		d := derive.Decode(blocks[start:min(start+perWrite, len(blocks))])
		n := d.Needs()
		r := &derive.Resolved{
			Tokens: map[common.Address]store.Token{}, NFTs: map[derive.NFTKey]store.NFT{},
			Balances: map[derive.BalanceKey]*big.Int{}, Contracts: map[common.Address]store.Token{},
		}
		for a, need := range n.Tokens {
			tok := store.Token{Address: a, Kind: need.Kind, Name: "Token " + a.Hex()[2:6], Symbol: a.Hex()[2:5], Decimals: 18}
			r.Tokens[a] = tok
			if !known[a] {
				known[a] = true
				r.NewTokens = append(r.NewTokens, tok)
			}
		}
		for k := range n.NFTs {
			r.NFTs[k] = store.NFT{TokenID: k.BigID(), URI: "https://x.invalid/" + k.BigID().String(), Metadata: store.NFTMetadata{Status: "UNINDEXED"}}
		}
		for k := range n.Balances {
			var id *big.Int
			if k.ERC1155 {
				id = k.BigID()
			}
			bal, err := st.Balance(ctx, chain, k.Holder, k.Token, id)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			r.Balances[k] = bal
		}
		batch, _ := d.Build(chain, state, r)
		if err := st.Write(ctx, batch); err != nil {
			return err
		}
		state = batch.State
	}
	return nil
}
