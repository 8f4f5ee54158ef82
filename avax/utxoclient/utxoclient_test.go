package utxoclient_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxoclient"
)

// TestAddresses: an address written for a chain reads back in each form
// the wallets accept, and one of another network's HRP is refused.
func TestAddresses(t *testing.T) {
	a := avax.ShortID{1, 2, 3}
	x := utxoclient.FormatAddress("X", avax.LocalID, a)
	if !strings.HasPrefix(x, "X-local1") {
		t.Fatalf("FormatAddress: %s, want X-local1...", x)
	}
	_, bech, _ := strings.Cut(x, "-")
	for _, s := range []string{x, "P-" + bech, bech, a.String()} {
		if got, err := utxoclient.ParseAddress(s, avax.LocalID); err != nil || got != a {
			t.Fatalf("ParseAddress(%s): %s, %v; want %s", s, got, err, a)
		}
	}
	if _, err := utxoclient.ParseAddress(x, 1); err == nil || !strings.Contains(err.Error(), `HRP "local"`) {
		t.Fatalf("ParseAddress of a local address on mainnet (network 1): %v, want the HRP refused", err)
	}
	if _, err := utxoclient.ParseAddress("X-nonsense", avax.LocalID); err == nil {
		t.Fatal("ParseAddress(X-nonsense) took it")
	}
}

// TestSpendable keeps, in order, what the owner alone may spend now: not a
// UTXO of two signatures, of another owner, or locked past now.
func TestSpendable(t *testing.T) {
	me, other := avax.ShortID{1}, avax.ShortID{2}
	now := time.Unix(1000, 0)
	utxo := func(n uint64, lock uint64, threshold uint32, owners ...avax.ShortID) avax.UTXO {
		return avax.UTXO{Out: avax.TransferOutput{Amt: n, OutputOwners: avax.OutputOwners{Locktime: lock, Threshold: threshold, Addrs: owners}}}
	}
	all := []avax.UTXO{
		utxo(1, 0, 1, me),
		utxo(2, 0, 2, me, other),
		utxo(3, 0, 1, other),
		utxo(4, 1001, 1, me),
		utxo(5, 1000, 1, other, me),
	}
	got := utxoclient.Spendable(all, me, func() time.Time { return now })
	if len(got) != 2 || got[0].Out.Amt != 1 || got[1].Out.Amt != 5 {
		t.Fatalf("Spendable kept %+v, want the UTXOs of 1 and 5", got)
	}
}
