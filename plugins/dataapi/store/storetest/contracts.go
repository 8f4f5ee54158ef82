package storetest

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
)

// contractReads adds to add the reads of contracts, token transfers and
// NFT collections: every address's contract record, and every token's
// transfers and NFTs, paged to the end each way.
func contractReads(t *testing.T, s store.Reader, addrs, tokens []common.Address, add func(string, ...any)) {
	t.Helper()
	ctx := context.Background()
	for _, a := range addrs {
		c, err := s.Contract(ctx, chain, a)
		add("contract "+a.Hex(), c, err)
	}
	lists := []store.Page{{Limit: 2}, {Limit: 3, Desc: true}, {Limit: 1000}, {Limit: 2, FromBlock: Fork - 3, ToBlock: Fork + 4, Desc: true}}
	for _, tok := range tokens {
		for _, p := range lists {
			key := fmt.Sprintf("%s %d %v %d-%d", tok.Hex(), p.Limit, p.Desc, p.FromBlock, p.ToBlock)
			add("token transfers "+key, pages(t, func(p store.Page) ([]store.TokenTransfer, []byte, error) {
				return s.TokenTransfers(ctx, chain, tok, p)
			}, p)...)
		}
		for _, limit := range []int{1, 3, 1000} {
			add(fmt.Sprint("collection ", tok.Hex(), " ", limit), pages(t, func(p store.Page) ([]store.NFT, []byte, error) {
				return s.CollectionNFTs(ctx, chain, tok, p)
			}, store.Page{Limit: limit})...)
		}
	}
}

// TestContractReads checks what the contract reads answer against the
// scenario (the reads' agreement across backends, rollbacks and reopens is
// Reads'): every token's transfers are those of its transactions, in
// order; the collections hold the NFTs recorded; a contract created is
// found, an account is not; a cursor of another list is refused.
func TestContractReads(t *testing.T, be Backend) {
	sc := NewScenario()
	ctx := context.Background()
	st := indexed(t, be, sc.A, 5, false, 0)
	var s store.Reader = st
	want := map[common.Address][]string{}
	for _, blk := range sc.A {
		for _, h := range blk.Transactions {
			tx, err := s.Tx(ctx, chain, h.Hash)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range tx.TokenTransfers() {
				tok, li, bi := x.Place()
				want[tok] = append(want[tok], fmt.Sprint(tx.BlockNumber, "/", tx.Index, "/", li, "/", bi))
			}
		}
	}
	if len(want[erc20s[0]]) == 0 || len(want[erc721]) == 0 || len(want[erc1155]) == 0 {
		t.Fatalf("the scenario has no transfers of some token: %v", want)
	}
	for tok, places := range want {
		got := pages(t, func(p store.Page) ([]store.TokenTransfer, []byte, error) { return s.TokenTransfers(ctx, chain, tok, p) }, store.Page{Limit: 3})
		var gotPlaces []string
		for _, x := range got[0].([]store.TokenTransfer) {
			tk, li, bi := x.Place()
			if tk != tok {
				t.Fatalf("a transfer of %s in the list of %s", tk, tok)
			}
			gotPlaces = append(gotPlaces, fmt.Sprint(x.Ref.BlockNumber, "/", x.Ref.TxIndex, "/", li, "/", bi))
		}
		if fmt.Sprint(gotPlaces) != fmt.Sprint(places) {
			t.Errorf("transfers of %s:\n got %v\nwant %v", tok, gotPlaces, places)
		}
	}
	nfts := pages(t, func(p store.Page) ([]store.NFT, []byte, error) { return s.CollectionNFTs(ctx, chain, erc721, p) }, store.Page{Limit: 2})[0].([]store.NFT)
	if len(nfts) == 0 {
		t.Fatal("no NFT in the ERC-721 collection")
	}
	for i, n := range nfts {
		if i > 0 && n.TokenID.Cmp(nfts[i-1].TokenID) <= 0 {
			t.Fatalf("collection out of order: %v after %v", n.TokenID, nfts[i-1].TokenID)
		}
		if one, err := s.NFT(ctx, chain, erc721, n.TokenID); err != nil || one.URI != n.URI {
			t.Fatalf("NFT %v: %+v, %v, listed as %+v", n.TokenID, one, err, n)
		}
	}
	if len(sc.Created) == 0 {
		t.Fatal("the scenario creates no contract")
	}
	if c, err := s.Contract(ctx, chain, sc.Created[0]); err != nil || c.Address != sc.Created[0] || c.TxHash == (common.Hash{}) {
		t.Errorf("contract %s: %+v, %v", sc.Created[0], c, err)
	}
	if _, err := s.Contract(ctx, chain, fakeevm.Account(0)); err != store.ErrNotFound {
		t.Errorf("an account's contract: %v, want not found", err)
	}
	if _, _, err := s.TokenTransfers(ctx, chain, erc721, store.Page{Limit: 1, Cursor: []byte{1, 2}}); err != store.ErrBadCursor {
		t.Errorf("a foreign cursor: %v, want ErrBadCursor", err)
	}
	if _, _, err := s.CollectionNFTs(ctx, chain, erc721, store.Page{Limit: 1, Cursor: []byte{1, 2}}); err != store.ErrBadCursor {
		t.Errorf("a foreign cursor: %v, want ErrBadCursor", err)
	}
	// A refetched NFT's metadata replaces the recorded one; an NFT never
	// recorded stays unrecorded.
	up := nfts[0]
	up.Metadata.Status, up.Metadata.Name = "INDEXED", "refetched"
	ghost := store.NFT{TokenID: new(big.Int).SetUint64(1 << 40), Metadata: store.NFTMetadata{Status: "INDEXED"}}
	if err := st.UpdateNFTs(ctx, chain, []store.NFTRecord{{Token: erc721, NFT: up}, {Token: erc721, NFT: ghost}}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.NFT(ctx, chain, erc721, up.TokenID); err != nil || got.Metadata.Name != "refetched" {
		t.Errorf("updated NFT: %+v, %v", got, err)
	}
	if _, err := s.NFT(ctx, chain, erc721, ghost.TokenID); err != store.ErrNotFound {
		t.Errorf("an NFT never recorded after an update: %v, want not found", err)
	}
}

// TestBackfillTokenTransfers checks that a store of the release before the token
// transfer lists gets them on open: unlist, given a store written with
// undo records, makes it what that release left (no list, no undo record
// of one) and opens it again. It then answers every read as a store
// written by this release, and a rollback removes the transfers it
// backfilled.
func TestBackfillTokenTransfers(t *testing.T, be Backend, unlist func(t *testing.T, s store.Store) store.Store) {
	sc := NewScenario()
	ctx := context.Background()
	want := Reads(t, indexed(t, be, sc.A, 5, false, 0), sc)
	wantKept := Reads(t, indexed(t, be, sc.A[:Fork], 5, false, 0), sc)
	s := unlist(t, indexed(t, be, sc.A, 5, true, 0))
	Same(t, "backfilled", want, Reads(t, s, sc))
	if _, err := s.Rollback(ctx, chain, Fork); err != nil {
		t.Fatal(err)
	}
	Same(t, "backfilled, rolled back", wantKept, Reads(t, s, sc))
}
