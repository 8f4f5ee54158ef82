package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore/pgtest"
)

// pgDatabase starts a throwaway PostgreSQL cluster for the test and
// returns the superuser URL of a new database in it.
func pgDatabase(t *testing.T) string {
	c := pgtest.New(t)
	return c.URL(c.NewDatabase(t))
}

// pgDataConfig is dataConfig on PostgreSQL at dbURL, with more lines of the
// module's config (indented by six spaces).
func pgDataConfig(dbURL, more string) string {
	return fmt.Sprintf(`
modules:
  - name: data
    plugin: dataapi
    config:
      rate-limit: {anonymous: {per-second: 0}}
      store: {engine: postgres, url: %q}
%s`, dbURL, more)
}

// dataLoad sends transactions of every kind the data API lists from the
// funded key to the node current returns, until stopped: native
// transfers, ERC-20 transfers and value forwarded by an internal CALL, to
// a few recipients. It survives the node being killed and restarted (on
// another port): sends that fail are retried after a pause.
type dataLoad struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	acked int // transactions whose receipt was seen
}

// loadRecipients are the addresses the load pays.
var loadRecipients = []common.Address{
	common.HexToAddress("0x00000000000000000000000000000000000a0001"),
	common.HexToAddress("0x00000000000000000000000000000000000a0002"),
	common.HexToAddress("0x00000000000000000000000000000000000a0003"),
}

// loadContracts deploys the load's ERC-20 token and forwarder on n's
// C-Chain and returns their addresses.
func deployLoadContracts(t *testing.T, n *nodetest.Node) (token, forwarder common.Address) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := newSender(t, ctx, evmDial(t, n, "C", "rpc"), evmKey(t))
	tok := loadContracts(t)["Token20"]
	supply := new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e18))
	token = s.send(ctx, nil, nil, append(tok.bin, tok.pack(t, "", supply)...), 2_000_000).ContractAddress
	forwarder = s.send(ctx, nil, nil, forwarderCode, 200_000).ContractAddress
	return token, forwarder
}

// startDataLoad starts the load on the node current returns.
func startDataLoad(t *testing.T, current func() *nodetest.Node, token, forwarder common.Address) *dataLoad {
	ctx, cancel := context.WithCancel(context.Background())
	l := &dataLoad{cancel: cancel}
	key := evmKey(t)
	signer := types.LatestSignerForChainID(big.NewInt(evmChainID))
	from := common.HexToAddress(evmLocalAddr)
	transfer := loadContracts(t)["Token20"].abi
	l.wg.Go(func() {
		var c *ethclient.Client
		var at string
		defer func() {
			if c != nil {
				c.Close()
			}
		}()
		for round := 0; ctx.Err() == nil; round++ {
			if n := current(); n.URL != at {
				if c != nil {
					c.Close()
				}
				raw, err := rpc.DialContext(ctx, n.URL+"/ext/bc/C/rpc")
				if err != nil {
					pause(ctx, 20*time.Millisecond)
					continue
				}
				c, at = ethclient.NewClient(raw), n.URL
			}
			nonce, err := c.PendingNonceAt(ctx, from)
			if err != nil {
				pause(ctx, 20*time.Millisecond)
				continue
			}
			var last common.Hash
			sent := 0
			for k := range 6 {
				to := loadRecipients[(round+k)%len(loadRecipients)]
				tx := &types.DynamicFeeTx{ChainID: big.NewInt(evmChainID), Nonce: nonce + uint64(k), Gas: 100_000,
					GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(100e9)}
				switch k % 3 {
				case 0:
					tx.To, tx.Value = &to, big.NewInt(int64(1000+round))
				case 1:
					data, _ := transfer.Pack("transfer", to, big.NewInt(int64(1+round)))
					tx.To, tx.Data = &token, data
				case 2:
					tx.To, tx.Value, tx.Data = &forwarder, big.NewInt(int64(7+round)), common.LeftPadBytes(to[:], 32)
				}
				signed := types.MustSignNewTx(key, signer, tx)
				if c.SendTransaction(ctx, signed) != nil {
					break
				}
				last, sent = signed.Hash(), sent+1
			}
			// The last receipt; without one after 3s the transactions were
			// in the pool of a killed process.
			deadline := time.Now().Add(3 * time.Second)
			for sent > 0 && ctx.Err() == nil && time.Now().Before(deadline) {
				if _, err := c.TransactionReceipt(ctx, last); err == nil {
					l.mu.Lock()
					l.acked += sent
					l.mu.Unlock()
					break
				}
				pause(ctx, 10*time.Millisecond)
			}
			// A steady trickle: the readers of the tests must keep up.
			pause(ctx, 50*time.Millisecond)
		}
	})
	return l
}

// stop ends the load and returns how many transactions were acknowledged.
func (l *dataLoad) stop() int {
	l.cancel()
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acked
}

// dataHeight returns the C-Chain's height as the data module of n
// reports it in /ext/health, and whether it has one.
func dataHeight(t *testing.T, n *nodetest.Node) (uint64, bool) {
	t.Helper()
	status, body := dataGetBounded(t, n.URL+"/ext/health")
	if status != 200 && status != 503 {
		return 0, false
	}
	var h struct {
		Checks map[string]struct {
			Details struct {
				Chains map[string]struct {
					Height *uint64 `json:"height"`
				} `json:"chains"`
			} `json:"details"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatalf("health: %v: %s", err, body)
	}
	c := h.Checks["module/data"].Details.Chains["C"]
	if c.Height == nil {
		return 0, false
	}
	return *c.Height, true
}

// waitDataHeight waits until the data module of n has indexed block
// height of the C-Chain.
func waitDataHeight(t *testing.T, n *nodetest.Node, height uint64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if h, ok := dataHeight(t, n); ok && h >= height {
			return
		}
		if time.Now().After(deadline) {
			h, _ := dataHeight(t, n)
			t.Fatalf("the data API is at block %d, not %d, after %s", h, height, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// chainHead returns the C-Chain's head block number on n.
func chainHead(t *testing.T, n *nodetest.Node) uint64 {
	t.Helper()
	head, err := evmDial(t, n, "C", "rpc").BlockNumber(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return head
}

// pageTokenRE matches the page token of an answer.
var pageTokenRE = regexp.MustCompile(`"nextPageToken":"([^"]*)"`)

// dataGetTimeout bounds one request of the PostgreSQL tests: far more
// than any takes, so that a stuck one fails the test with the nodes'
// output.
const dataGetTimeout = time.Minute

// dataGetBounded GETs a URL within dataGetTimeout.
func dataGetBounded(t *testing.T, url string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), dataGetTimeout)
	defer cancel()
	return restGet(t, ctx, url)
}

// dataPage GETs a path of n's data API and returns the status, the body
// with its page token blanked (a token holds the second it was sealed in)
// and the token.
func dataPage(t *testing.T, n *nodetest.Node, path string) (int, string, string) {
	t.Helper()
	status, body := dataGetBounded(t, n.URL+path)
	token := ""
	if m := pageTokenRE.FindSubmatch(body); m != nil {
		token = string(m[1])
	}
	return status, pageTokenRE.ReplaceAllString(string(body), `"nextPageToken":"…"`), token
}

// withToken sets the pageToken of a path.
func withToken(path, token string) string {
	p, q, _ := strings.Cut(path, "?")
	values, _ := url.ParseQuery(q)
	values.Set("pageToken", token)
	return p + "?" + values.Encode()
}
