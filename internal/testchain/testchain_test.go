package testchain

import (
	"bytes"
	"os"
	"testing"
)

// TestGenerate: a chain holds the transactions asked for, of every kind,
// at most TxsPerBlock a block, each succeeding or failing as meant (which
// Generate checks), and the same Options make the same file.
func TestGenerate(t *testing.T) {
	opts := Options{Txs: 700, TxsPerBlock: 20, Mix: Varied}
	a, err := Generate(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Txs) != opts.Txs {
		t.Errorf("%d transactions, want %d", len(a.Txs), opts.Txs)
	}
	// The set-up block holds 14 transactions; then 20 a block.
	if want := uint64(1 + (opts.Txs-14+19)/20); a.Head != want || len(a.Hashes) != int(want) {
		t.Errorf("head %d with %d hashes, want %d", a.Head, len(a.Hashes), want)
	}
	sent := 0
	for _, n := range a.Sent {
		sent += n
	}
	if sent != opts.Txs || len(a.Sent) != senders {
		t.Errorf("%d senders sent %d transactions", len(a.Sent), sent)
	}
	for _, kind := range []string{"ERC-20 transfer", "ERC-20 burn", "native transfer", "ERC-721 mint", "ERC-721 transfer",
		"ERC-1155 mint", "ERC-1155 transfer", "ERC-1155 batch mint", "ERC-1155 batch transfer", "ERC-1155 burn",
		"Factory.mixed", "Factory.make", "deploy Token20", "failing call"} {
		if a.Kinds[kind] == 0 {
			t.Errorf("no %s in %v", kind, a.Kinds)
		}
	}
	if a.Failed != a.Kinds["failing call"] {
		t.Errorf("%d failed, %d meant to", a.Failed, a.Kinds["failing call"])
	}
	// Senders, recipients, the four other contracts of the set-up, every
	// ERC-20 deployed and two children per Factory.make.
	if want := senders + 24 + 4 + a.Kinds["deploy Token20"] + 2*a.Kinds["Factory.make"]; len(a.Addresses) != want {
		t.Errorf("%d addresses, want %d", len(a.Addresses), want)
	}

	b, err := Generate(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	fa, _ := os.ReadFile(a.File)
	fb, _ := os.ReadFile(b.File)
	if len(fa) == 0 || !bytes.Equal(fa, fb) {
		t.Errorf("two chains of the same options differ (%d and %d bytes)", len(fa), len(fb))
	}
}

// TestGenerateFullBlocks: without TxsPerBlock, blocks fill to about half
// the gas limit, and the transfers-and-calls mix alternates its two kinds.
func TestGenerateFullBlocks(t *testing.T) {
	c, err := Generate(t.TempDir(), Options{Txs: 800, Mix: TransfersAndCalls})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Txs) != 800 || c.Kinds["ERC-20 transfer"] < 350 || c.Kinds["Factory.mixed"] < 350 || c.Failed != 0 {
		t.Errorf("%d transactions: %v, %d failed", len(c.Txs), c.Kinds, c.Failed)
	}
	// A block stops below 13M gas, about 160 of these transactions: five
	// blocks after the set-up, not one per block nor all in one.
	if c.Head < 4 || c.Head > 8 {
		t.Errorf("%d blocks for 800 transactions", c.Head)
	}
}
