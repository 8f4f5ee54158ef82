package tokens

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/plugins/dataapi/evmrpc"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// ErrQueueFull is Reindex's answer while refetchQueue NFTs wait.
var ErrQueueFull = errors.New("the NFT metadata refetch queue is full: try again later")

// refetchQueue is how many refetches may wait.
const refetchQueue = 1024

// refetch is one NFT to read again.
type refetch struct {
	chain ids.ID
	token store.Token
	id    *big.Int
}

// Refetcher reads NFTs' URIs and metadata again in the background (the
// data API's reindexNft) and records them (store.Store.UpdateNFTs), so
// that neither a request nor the indexer waits for a fetch.
type Refetcher struct {
	store   store.Store
	callers func(chain ids.ID) (Caller, bool)
	opts    Options
	log     hclog.Logger
	queue   chan refetch
}

// NewRefetcher returns a Refetcher writing to st, calling each chain
// through callers; Run does the work.
func NewRefetcher(st store.Store, callers func(chain ids.ID) (Caller, bool), opts Options, log hclog.Logger) *Refetcher {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &Refetcher{store: st, callers: callers, opts: opts, log: log, queue: make(chan refetch, refetchQueue)}
}

// Reindex queues an NFT; ErrQueueFull when the queue is.
func (f *Refetcher) Reindex(_ context.Context, chain ids.ID, token store.Token, nft store.NFT) error {
	select {
	case f.queue <- refetch{chain: chain, token: token, id: nft.TokenID}:
		return nil
	default:
		return ErrQueueFull
	}
}

// Run refetches the queued NFTs, one at a time, until ctx ends.
func (f *Refetcher) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case j := <-f.queue:
			if err := f.refetch(ctx, j); err != nil && ctx.Err() == nil {
				f.log.Warn("NFT metadata refetch failed", "chain", j.chain, "token", j.token.Address, "id", j.id, "error", err)
			}
		}
	}
}

// refetch reads one NFT's URI at the latest block, then its document, and
// records them.
func (f *Refetcher) refetch(ctx context.Context, j refetch) error {
	caller, ok := f.callers(j.chain)
	if !ok {
		return fmt.Errorf("chain %s is not indexed", j.chain)
	}
	n, err := NewReader(caller, f.opts).Latest(ctx, j.token.Address, j.token.Kind, j.id)
	if err != nil {
		return err
	}
	return f.store.UpdateNFTs(ctx, j.chain, []store.NFTRecord{{Token: j.token.Address, NFT: n}})
}

// Latest reads an NFT's URI at the latest block (tokenURI, or uri with
// {id} replaced for ERC-1155) and the metadata document it names.
func (r *Reader) Latest(ctx context.Context, token common.Address, kind store.TokenKind, id *big.Int) (store.NFT, error) {
	word := make([]byte, 32)
	id.FillBytes(word)
	sel := selTokenURI
	if kind == store.KindERC1155 {
		sel = selURI
	}
	res, err := r.rpc.CallMany(ctx, []evmrpc.Call{{To: token, Data: calldata(sel, word)}})
	if err != nil {
		return store.NFT{}, err
	}
	n := store.NFT{TokenID: id}
	if res[0].Err != nil {
		n.Metadata = store.NFTMetadata{Status: statusMissingToken}
		return n, nil
	}
	n.URI = decodeString(res[0].Data)
	if kind == store.KindERC1155 {
		n.URI = substituteID(n.URI, word)
	}
	n.Metadata = r.meta.read(ctx, n.URI)
	return n, nil
}
