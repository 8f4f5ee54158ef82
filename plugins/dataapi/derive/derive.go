// Package derive turns a chain's blocks, as the EVM's indexer_getBlocks
// answers them, into the data API's records: transactions with their
// method, token transfers from logs, internal transactions and contract
// creations from call frames, block totals and token balances. It is pure:
// what it needs from outside (token metadata, current balances, what a new
// contract is) it lists in Needs, and the indexer answers in Resolved.
package derive

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Decoded is a run of consecutive blocks with their logs and call frames
// decoded.
type Decoded struct {
	Blocks []evmapi.Block
	txs    [][]decodedTx // by block, by transaction
}

// decodedTx is one transaction's transfers, internal transactions and
// creations.
type decodedTx struct {
	transfers []transfer
	internal  []store.InternalTx
	created   []creation
}

// Decode decodes the logs and call frames of blocks, consecutive and in
// order.
func Decode(blocks []evmapi.Block) *Decoded {
	d := &Decoded{Blocks: blocks, txs: make([][]decodedTx, len(blocks))}
	for i := range blocks {
		txs := blocks[i].Transactions
		d.txs[i] = make([]decodedTx, len(txs))
		for j := range txs {
			dt := &d.txs[i][j]
			for k := range txs[j].Logs {
				dt.transfers = append(dt.transfers, decodeLog(&txs[j].Logs[k])...)
			}
			dt.internal, dt.created = frames(&txs[j])
		}
	}
	return d
}

// TokenNeed is a token contract whose metadata is needed, with the kind of
// its first transfer and the block it first appears in.
type TokenNeed struct {
	Kind  store.TokenKind
	Block uint64
}

// NFTKey names one NFT.
type NFTKey struct {
	Token common.Address
	ID    common.Hash // the token ID, 32 bytes big-endian
}

// BigID returns the token ID.
func (k NFTKey) BigID() *big.Int { return new(big.Int).SetBytes(k.ID[:]) }

// NFTNeed is an NFT whose URI and metadata are needed: its standard and the
// block it first appears in.
type NFTNeed struct {
	Kind  store.TokenKind
	Block uint64
}

// BalanceKey names a holder's balance of a token: ERC-20 (ERC1155 false,
// ID zero) or one ERC-1155 token.
type BalanceKey struct {
	Holder  common.Address
	Token   common.Address
	ERC1155 bool
	ID      common.Hash
}

// BalanceAt is a balance after a block.
type BalanceAt struct {
	Key   BalanceKey
	Block uint64
}

// Needs is what deriving a run needs from outside.
type Needs struct {
	Tokens map[common.Address]TokenNeed
	NFTs   map[NFTKey]NFTNeed
	// Balances are the balances the run changes; their values before the
	// run are needed.
	Balances map[BalanceKey]struct{}
	// Contracts are the contracts the run creates, by the block that
	// created each: what standard they follow is needed.
	Contracts map[common.Address]uint64
}

// Needs lists what d needs from outside.
func (d *Decoded) Needs() *Needs {
	n := &Needs{
		Tokens:    map[common.Address]TokenNeed{},
		NFTs:      map[NFTKey]NFTNeed{},
		Balances:  map[BalanceKey]struct{}{},
		Contracts: map[common.Address]uint64{},
	}
	for i := range d.Blocks {
		number := uint64(d.Blocks[i].Number)
		for _, dt := range d.txs[i] {
			for _, tr := range dt.transfers {
				k := tr.kind.tokenKind()
				if _, ok := n.Tokens[tr.token]; !ok {
					n.Tokens[tr.token] = TokenNeed{Kind: k, Block: number}
				}
				if tr.id != nil {
					key := NFTKey{Token: tr.token, ID: common.BigToHash(tr.id)}
					if _, ok := n.NFTs[key]; !ok {
						n.NFTs[key] = NFTNeed{Kind: k, Block: number}
					}
				}
				if tr.kind != erc721 {
					for _, holder := range [2]common.Address{tr.from, tr.to} {
						if holder != (common.Address{}) {
							n.Balances[balanceKey(tr, holder)] = struct{}{}
						}
					}
				}
			}
			for _, c := range dt.created {
				n.Contracts[c.address] = number
			}
		}
	}
	return n
}

// balanceKey returns the key of holder's balance that tr changes.
func balanceKey(tr transfer, holder common.Address) BalanceKey {
	k := BalanceKey{Holder: holder, Token: tr.token}
	if tr.kind == erc1155 {
		k.ERC1155, k.ID = true, common.BigToHash(tr.id)
	}
	return k
}

func (k kind) tokenKind() store.TokenKind {
	switch k {
	case erc20:
		return store.KindERC20
	case erc721:
		return store.KindERC721
	}
	return store.KindERC1155
}

// Resolved answers Needs.
type Resolved struct {
	// Tokens holds the metadata of every token of Needs.Tokens.
	Tokens map[common.Address]store.Token
	// NFTs holds every NFT of Needs.NFTs.
	NFTs map[NFTKey]store.NFT
	// Balances holds the balances of Needs.Balances before the run.
	Balances map[BalanceKey]*big.Int
	// Contracts holds what each contract of Needs.Contracts answered when
	// probed (its kind and token metadata).
	Contracts map[common.Address]store.Token
	// Overrides are balances read from the token (balanceOf) where the
	// transfer events fell short: they replace what the events add up to.
	Overrides map[BalanceAt]*big.Int
	// NewTokens and NewNFTs are metadata read for the first time, recorded
	// with the run.
	NewTokens []store.Token
	NewNFTs   []store.NFTRecord
}

// Build derives the records of d on chain, whose state before the run is
// state. Shortfalls are balances that the transfer events would take below
// zero (a token that changed balances without an event): Build writes them
// as zero; read them from the token, add them to r.Overrides and build
// again.
func (d *Decoded) Build(chain ids.ID, state store.ChainState, r *Resolved) (b *store.Batch, shortfalls []BalanceAt) {
	b = &store.Batch{Chain: chain, Tokens: r.NewTokens, NFTs: r.NewNFTs}
	balances := make(map[BalanceKey]*big.Int, len(r.Balances))
	for k, v := range r.Balances {
		balances[k] = new(big.Int).Set(v)
	}
	cumulative := state.CumulativeTxs
	next := state.Next
	for i := range d.Blocks {
		blk := &d.Blocks[i]
		number := uint64(blk.Number)
		baseFee := bigOf(blk.BaseFee)
		fees := new(big.Int)
		touched := map[BalanceKey]bool{}
		var touchedOrder []BalanceKey
		for j := range blk.Transactions {
			src := &blk.Transactions[j]
			dt := &d.txs[i][j]
			tx := nativeTx(blk, src, baseFee)
			fees.Add(fees, new(big.Int).Mul(new(big.Int).SetUint64(tx.GasUsed), tx.GasPrice))
			tx.Internal = dt.internal
			for _, tr := range dt.transfers {
				tok := tokenOf(r, tr)
				switch tr.kind {
				case erc20:
					tx.ERC20 = append(tx.ERC20, store.ERC20Transfer{LogIndex: tr.log, From: tr.from, To: tr.to, Value: tr.value, Token: tok})
				case erc721:
					nft := nftOf(r, tr)
					tx.ERC721 = append(tx.ERC721, store.ERC721Transfer{LogIndex: tr.log, From: tr.from, To: tr.to, Token: tok, NFT: nft})
					b.Ownerships = append(b.Ownerships, store.Ownership{Token: tok, NFT: nft, From: tr.from, To: tr.to, Block: number})
					continue
				case erc1155:
					tx.ERC1155 = append(tx.ERC1155, store.ERC1155Transfer{
						LogIndex: tr.log, BatchIndex: tr.batch, From: tr.from, To: tr.to, Value: tr.value, Token: tok, NFT: nftOf(r, tr),
					})
				}
				for _, side := range [2]struct {
					holder common.Address
					sign   int
				}{{tr.from, -1}, {tr.to, 1}} {
					if side.holder == (common.Address{}) {
						continue // mints and burns: the zero address holds nothing
					}
					k := balanceKey(tr, side.holder)
					bal := balances[k]
					if bal == nil {
						bal = new(big.Int)
						balances[k] = bal
					}
					if side.sign < 0 {
						bal.Sub(bal, tr.value)
					} else {
						bal.Add(bal, tr.value)
					}
					if !touched[k] {
						touched[k] = true
						touchedOrder = append(touchedOrder, k)
					}
				}
			}
			for _, c := range dt.created {
				probe := r.Contracts[c.address]
				b.Contracts = append(b.Contracts, store.Contract{
					Address: c.address, Kind: probe.Kind, Name: probe.Name, Symbol: probe.Symbol, Decimals: probe.Decimals,
					Deployer: tx.From, Factory: c.factory, TxHash: tx.Hash, BlockNumber: number, TxIndex: tx.Index, Frame: c.frame,
				})
			}
			b.Txs = append(b.Txs, tx)
		}
		for _, k := range touchedOrder {
			bal := balances[k]
			if o, ok := r.Overrides[BalanceAt{Key: k, Block: number}]; ok {
				bal.Set(o)
			} else if bal.Sign() < 0 {
				shortfalls = append(shortfalls, BalanceAt{Key: k, Block: number})
				bal.SetInt64(0)
			}
			change := store.BalanceChange{Holder: k.Holder, Token: tokenOfKey(r, k), Block: number, Balance: new(big.Int).Set(bal)}
			if k.ERC1155 {
				nft := r.NFTs[NFTKey{Token: k.Token, ID: k.ID}]
				if nft.TokenID == nil {
					nft = unknownNFT(k.BigID())
				}
				change.NFT = &nft
			}
			b.Balances = append(b.Balances, change)
		}
		cumulative += uint64(len(blk.Transactions))
		b.Blocks = append(b.Blocks, store.Block{
			Number: number, Hash: blk.Hash, ParentHash: blk.ParentHash, Timestamp: uint64(blk.Timestamp),
			GasLimit: uint64(blk.GasLimit), GasUsed: uint64(blk.GasUsed), BaseFee: baseFee,
			TxCount: uint64(len(blk.Transactions)), CumulativeTxs: cumulative, FeesSpent: fees,
		})
		next = number + 1
	}
	b.State = store.ChainState{EVMChainID: state.EVMChainID, Next: next, CumulativeTxs: cumulative}
	return b, shortfalls
}

// BigID returns the token ID of an ERC-1155 balance key.
func (k BalanceKey) BigID() *big.Int { return new(big.Int).SetBytes(k.ID[:]) }

// nativeTx returns the record of a transaction, without transfers.
func nativeTx(blk *evmapi.Block, src *evmapi.Transaction, baseFee *big.Int) store.Tx {
	tx := store.Tx{
		BlockNumber: uint64(blk.Number), BlockHash: blk.Hash, BlockTimestamp: uint64(blk.Timestamp),
		Index: uint64(src.Index), Hash: src.Hash, Type: uint64(src.Type), From: src.From,
		Value: bigOf(src.Value), Nonce: uint64(src.Nonce), GasLimit: uint64(src.Gas), GasUsed: uint64(src.GasUsed),
		GasPrice: bigOf(src.GasPrice), BaseFee: baseFee, Success: src.Status == 1,
		MaxFeePerGas: new(big.Int), MaxPriorityFeePerGas: new(big.Int),
		Input: []byte(src.Input), Method: []byte(src.Input[:min(4, len(src.Input))]),
	}
	if src.MaxFeePerGas != nil {
		tx.DynamicFee = true
		tx.MaxFeePerGas, tx.MaxPriorityFeePerGas = bigOf(src.MaxFeePerGas), bigOf(src.MaxPriorityFeePerGas)
	}
	switch {
	case src.To != nil:
		tx.To = *src.To
	case src.ContractAddress != nil:
		tx.Creation, tx.To = true, *src.ContractAddress
	default:
		tx.Creation = true
	}
	return tx
}

// tokenOf returns the metadata of tr's token, of the kind tr shows.
func tokenOf(r *Resolved, tr transfer) store.Token {
	tok, ok := r.Tokens[tr.token]
	if !ok {
		tok = store.Token{Address: tr.token}
	}
	tok.Kind = tr.kind.tokenKind()
	return tok
}

// tokenOfKey returns the metadata of the token of a balance.
func tokenOfKey(r *Resolved, k BalanceKey) store.Token {
	tok, ok := r.Tokens[k.Token]
	if !ok {
		tok = store.Token{Address: k.Token}
	}
	tok.Kind = store.KindERC20
	if k.ERC1155 {
		tok.Kind = store.KindERC1155
	}
	return tok
}

// nftOf returns the NFT tr moves.
func nftOf(r *Resolved, tr transfer) store.NFT {
	nft, ok := r.NFTs[NFTKey{Token: tr.token, ID: common.BigToHash(tr.id)}]
	if !ok || nft.TokenID == nil {
		return unknownNFT(tr.id)
	}
	return nft
}

// unknownNFT is an NFT whose metadata was not read.
func unknownNFT(id *big.Int) store.NFT {
	return store.NFT{TokenID: new(big.Int).Set(id), Metadata: store.NFTMetadata{Status: "UNKNOWN"}}
}
