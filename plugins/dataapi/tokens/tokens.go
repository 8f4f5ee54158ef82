// Package tokens reads what the data indexer needs to know about token
// contracts through eth_call: ERC-20 metadata (name, symbol, decimals),
// which standard a new contract follows (ERC-165 supportsInterface, then
// ERC-20's decimals), NFT URIs (tokenURI, uri) and the metadata documents
// they name, and balanceOf where transfer events do not add up.
package tokens

import (
	"context"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/derive"
	"github.com/chainhost/chainhost/plugins/dataapi/evmrpc"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
)

// Caller runs eth_calls; *evmrpc.Client is one.
type Caller interface {
	CallMany(ctx context.Context, calls []evmrpc.Call) ([]evmrpc.Result, error)
}

// Reader reads token data from one chain.
type Reader struct {
	rpc      Caller
	meta     metadataReader
	parallel int
}

// Options configures a Reader.
type Options struct {
	// Fetch says how NFT metadata documents are fetched.
	Fetch FetchOptions
	// Parallel is how many metadata documents are fetched at once; 0: 8.
	Parallel int
	// Now is the clock of metadataLastUpdatedTimestamp; nil: time.Now.
	Now func() time.Time
}

// NewReader returns a Reader calling through rpc.
func NewReader(rpc Caller, opts Options) *Reader {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Parallel <= 0 {
		opts.Parallel = 8
	}
	if opts.Fetch.MaxBytes <= 0 {
		opts.Fetch.MaxBytes = 1 << 20
	}
	if opts.Fetch.Timeout <= 0 {
		opts.Fetch.Timeout = 5 * time.Second
	}
	if opts.Fetch.Client == nil {
		opts.Fetch.Client = newClient(opts.Fetch)
	}
	return &Reader{rpc: rpc, meta: metadataReader{opts: opts.Fetch, now: opts.Now}, parallel: opts.Parallel}
}

// callAt runs calls at their blocks; a call the node could not run there
// (state pruned, say) but did not revert is run again at the latest block.
func (r *Reader) callAt(ctx context.Context, calls []evmrpc.Call) ([]evmrpc.Result, error) {
	res, err := r.rpc.CallMany(ctx, calls)
	if err != nil {
		return nil, err
	}
	var again []int
	for i, x := range res {
		if x.Err != nil && !evmrpc.Reverted(x.Err) && calls[i].Block != nil {
			again = append(again, i)
		}
	}
	if len(again) == 0 {
		return res, nil
	}
	retry := make([]evmrpc.Call, len(again))
	for j, i := range again {
		retry[j] = evmrpc.Call{To: calls[i].To, Data: calls[i].Data}
	}
	res2, err := r.rpc.CallMany(ctx, retry)
	if err != nil {
		return nil, err
	}
	for j, i := range again {
		res[i] = res2[j]
	}
	return res, nil
}

// at returns a pointer to n.
func at(n uint64) *uint64 { return &n }

// Tokens reads name, symbol and decimals of each token, after the block it
// first appears in. A method a token lacks leaves its field empty.
func (r *Reader) Tokens(ctx context.Context, needs map[common.Address]derive.TokenNeed) (map[common.Address]store.Token, error) {
	addrs := make([]common.Address, 0, len(needs))
	calls := make([]evmrpc.Call, 0, 3*len(needs))
	for a, n := range needs {
		addrs = append(addrs, a)
		calls = append(calls,
			evmrpc.Call{To: a, Data: selName, Block: at(n.Block)},
			evmrpc.Call{To: a, Data: selSymbol, Block: at(n.Block)},
			evmrpc.Call{To: a, Data: selDecimals, Block: at(n.Block)})
	}
	res, err := r.callAt(ctx, calls)
	if err != nil {
		return nil, err
	}
	out := make(map[common.Address]store.Token, len(addrs))
	for i, a := range addrs {
		tok := store.Token{Address: a, Kind: needs[a].Kind}
		fillToken(&tok, res[3*i], res[3*i+1], res[3*i+2])
		out[a] = tok
	}
	return out, nil
}

// fillToken sets tok's name, symbol and decimals from the answers.
func fillToken(tok *store.Token, name, symbol, decimals evmrpc.Result) {
	if name.Err == nil {
		tok.Name = decodeString(name.Data)
	}
	if symbol.Err == nil {
		tok.Symbol = decodeString(symbol.Data)
	}
	if d, ok := decodeUint(decimals.Data); decimals.Err == nil && ok && d.IsUint64() && d.Uint64() <= 255 {
		tok.Decimals = d.Uint64()
	}
}

// Probe tells what standard each new contract follows, after the block
// that created it: ERC-721 or ERC-1155 when it says so through ERC-165,
// ERC-20 when it answers decimals() and symbol(), unknown otherwise; with
// its name, symbol and decimals.
func (r *Reader) Probe(ctx context.Context, contracts map[common.Address]uint64) (map[common.Address]store.Token, error) {
	addrs := make([]common.Address, 0, len(contracts))
	calls := make([]evmrpc.Call, 0, 5*len(contracts))
	for a, block := range contracts {
		addrs = append(addrs, a)
		calls = append(calls,
			evmrpc.Call{To: a, Data: calldata(selSupportsInterface, interfaceWord(interfaceERC721)), Block: at(block)},
			evmrpc.Call{To: a, Data: calldata(selSupportsInterface, interfaceWord(interfaceERC1155)), Block: at(block)},
			evmrpc.Call{To: a, Data: selName, Block: at(block)},
			evmrpc.Call{To: a, Data: selSymbol, Block: at(block)},
			evmrpc.Call{To: a, Data: selDecimals, Block: at(block)})
	}
	res, err := r.callAt(ctx, calls)
	if err != nil {
		return nil, err
	}
	out := make(map[common.Address]store.Token, len(addrs))
	for i, a := range addrs {
		x := res[5*i : 5*i+5]
		tok := store.Token{Address: a}
		fillToken(&tok, x[2], x[3], x[4])
		_, hasDecimals := decodeUint(x[4].Data)
		switch {
		case x[0].Err == nil && decodeBool(x[0].Data):
			tok.Kind = store.KindERC721
		case x[1].Err == nil && decodeBool(x[1].Data):
			tok.Kind = store.KindERC1155
		case x[4].Err == nil && hasDecimals && x[3].Err == nil && len(x[3].Data) > 0:
			tok.Kind = store.KindERC20
		}
		if tok.Kind != store.KindERC20 {
			tok.Decimals = 0
		}
		out[a] = tok
	}
	return out, nil
}

// NFTs reads the URI of each NFT (tokenURI for ERC-721, uri with {id}
// replaced for ERC-1155) after the block it first appears in, then its
// metadata document: data: URIs always, remote ones when fetching is on.
// A token whose URI call reverts is MISSING_TOKEN.
func (r *Reader) NFTs(ctx context.Context, needs map[derive.NFTKey]derive.NFTNeed) (map[derive.NFTKey]store.NFT, error) {
	keys := make([]derive.NFTKey, 0, len(needs))
	calls := make([]evmrpc.Call, 0, len(needs))
	for k, n := range needs {
		keys = append(keys, k)
		sel := selTokenURI
		if n.Kind == store.KindERC1155 {
			sel = selURI
		}
		calls = append(calls, evmrpc.Call{To: k.Token, Data: calldata(sel, k.ID[:]), Block: at(n.Block)})
	}
	res, err := r.callAt(ctx, calls)
	if err != nil {
		return nil, err
	}
	// Each document is read by its own goroutine into its own slot.
	nfts := make([]store.NFT, len(keys))
	var (
		wg  sync.WaitGroup
		sem = make(chan struct{}, r.parallel)
	)
	for i, k := range keys {
		nfts[i] = store.NFT{TokenID: k.BigID()}
		if res[i].Err != nil {
			nfts[i].Metadata = store.NFTMetadata{Status: statusMissingToken}
			continue
		}
		nfts[i].URI = decodeString(res[i].Data)
		if needs[k].Kind == store.KindERC1155 {
			nfts[i].URI = substituteID(nfts[i].URI, k.ID[:])
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			nfts[i].Metadata = r.meta.read(ctx, nfts[i].URI)
		})
	}
	wg.Wait()
	out := make(map[derive.NFTKey]store.NFT, len(keys))
	for i, k := range keys {
		out[k] = nfts[i]
	}
	return out, nil
}

// BalancesOf reads each balance from its token (balanceOf) after its
// block.
func (r *Reader) BalancesOf(ctx context.Context, want []derive.BalanceAt) (map[derive.BalanceAt]*big.Int, error) {
	calls := make([]evmrpc.Call, len(want))
	for i, w := range want {
		data := calldata(selBalanceOf, w.Key.Holder[:])
		if w.Key.ERC1155 {
			data = calldata(selBalanceOf1155, w.Key.Holder[:], w.Key.ID[:])
		}
		calls[i] = evmrpc.Call{To: w.Key.Token, Data: data, Block: at(w.Block)}
	}
	res, err := r.rpc.CallMany(ctx, calls)
	if err != nil {
		return nil, err
	}
	out := make(map[derive.BalanceAt]*big.Int, len(want))
	for i, w := range want {
		bal, ok := decodeUint(res[i].Data)
		if res[i].Err != nil || !ok {
			bal = new(big.Int) // the token cannot say: keep the events' floor of zero
		}
		out[w] = bal
	}
	return out, nil
}
