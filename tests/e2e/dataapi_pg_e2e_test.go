package e2e

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore/pgtest"
	"github.com/chainhost/chainhost/sdk/plugintest"
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
	lt := newLoadTxs(t, token, forwarder)
	from := common.HexToAddress(evmLocalAddr)
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
				signed := lt.tx(nonce+uint64(k), round*6+k)
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

// loadTxs makes the load's transactions.
type loadTxs struct {
	key              *ecdsa.PrivateKey
	signer           types.Signer
	token, forwarder common.Address
	erc20            abi.ABI
}

func newLoadTxs(t *testing.T, token, forwarder common.Address) *loadTxs {
	return &loadTxs{key: evmKey(t), signer: types.LatestSignerForChainID(big.NewInt(evmChainID)),
		token: token, forwarder: forwarder, erc20: loadContracts(t)["Token20"].abi}
}

// tx returns the load's transaction number i, with a nonce: a native
// transfer, an ERC-20 transfer or a value forwarded, in turn, to the
// recipients in turn.
func (l *loadTxs) tx(nonce uint64, i int) *types.Transaction {
	to := loadRecipients[(i/3)%len(loadRecipients)]
	tx := &types.DynamicFeeTx{ChainID: big.NewInt(evmChainID), Nonce: nonce, Gas: 100_000, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(100e9)}
	switch i % 3 {
	case 0:
		tx.To, tx.Value = &to, big.NewInt(int64(1000+i))
	case 1:
		data, _ := l.erc20.Pack("transfer", to, big.NewInt(int64(1+i)))
		tx.To, tx.Data = &l.token, data
	case 2:
		tx.To, tx.Value, tx.Data = &l.forwarder, big.NewInt(int64(7+i)), common.LeftPadBytes(to[:], 32)
	}
	return types.MustSignNewTx(l.key, l.signer, tx)
}

// sendBurst sends count of the load's transactions to n as fast as it
// takes them, and waits until the last is in a block.
func sendBurst(t *testing.T, n *nodetest.Node, token, forwarder common.Address, count int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := evmDial(t, n, "C", "rpc")
	lt := newLoadTxs(t, token, forwarder)
	nonce, err := c.PendingNonceAt(ctx, common.HexToAddress(evmLocalAddr))
	if err != nil {
		t.Fatal(err)
	}
	var last common.Hash
	for i := range count {
		tx := lt.tx(nonce+uint64(i), i)
		if err := c.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("send %d of %d: %v", i, count, err)
		}
		last = tx.Hash()
	}
	evmReceipt(t, ctx, c, last)
}

// ackedSoFar returns how many transactions the load has seen acknowledged.
func (l *dataLoad) ackedSoFar() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acked
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
	plugintest.Eventually(t, within, func() error {
		if h, ok := dataHeight(t, n); !ok || h < height {
			return fmt.Errorf("the data API is at block %d, not %d", h, height)
		}
		return nil
	})
}

// settledHead returns the C-Chain's head on n once the load's sender has
// no transaction waiting in the pool: those a stopped load sent last may
// still go into a block, which every reader must then have before the
// answers are compared.
func settledHead(t *testing.T, n *nodetest.Node) uint64 {
	t.Helper()
	c := evmDial(t, n, "C", "rpc")
	from := common.HexToAddress(evmLocalAddr)
	plugintest.Eventually(t, time.Minute, func() error {
		ctx := context.Background()
		pending, err := c.PendingNonceAt(ctx, from)
		if err != nil {
			return err
		}
		mined, err := c.NonceAt(ctx, from, nil)
		if err != nil {
			return err
		}
		if pending != mined {
			return fmt.Errorf("%d of the load's transactions are not in a block yet", pending-mined)
		}
		return nil
	})
	return chainHead(t, n)
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
