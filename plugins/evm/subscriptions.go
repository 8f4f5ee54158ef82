package evm

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/ethereum/go-ethereum/eth/downloader"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/rpc"
)

// codeLimitExceeded is EIP-1474's "limit exceeded": a request over a limit
// the node sets.
const codeLimitExceeded = -32005

// limitError is the JSON-RPC error of a request over one of the chain's
// limits; go-ethereum's server answers it with its code.
type limitError struct {
	code int
	msg  string
}

func (e *limitError) Error() string  { return e.msg }
func (e *limitError) ErrorCode() int { return e.code }

// subscriptionCap holds each connection to the most subscriptions
// rpc-ws-max-subscriptions allows (docs/evm.md). go-ethereum's server has
// no such cap: every subscription the public server offers goes through
// add, keyed by the connection go-ethereum serves the call on, and counts
// until go-ethereum ends it (an unsubscribe or the connection closing).
type subscriptionCap struct {
	max int // 0: no cap

	mu   sync.Mutex
	live map[*rpc.Client]*connSubs // absent for a connection with none
}

// connSubs are one connection's subscriptions: those being opened, and
// those open.
type connSubs struct {
	opening int
	open    []*rpc.Subscription
}

func newSubscriptionCap(max int) *subscriptionCap {
	return &subscriptionCap{max: max, live: map[*rpc.Client]*connSubs{}}
}

// add runs subscribe if the connection of ctx holds fewer than max
// subscriptions, and counts the subscription it opens.
func (c *subscriptionCap) add(ctx context.Context, subscribe func() (*rpc.Subscription, error)) (*rpc.Subscription, error) {
	conn, ok := rpc.ClientFromContext(ctx)
	if c.max == 0 || !ok { // no cap, or not over a connection (where go-ethereum refuses subscriptions)
		return subscribe()
	}
	c.mu.Lock()
	s := c.live[conn]
	if s == nil {
		s = &connSubs{}
		c.live[conn] = s
	}
	// go-ethereum ends a subscription before it answers the unsubscribe,
	// so one the client saw end is never counted here.
	s.open = slices.DeleteFunc(s.open, ended)
	if s.opening+len(s.open) >= c.max {
		c.forget(conn, s)
		c.mu.Unlock()
		return nil, &limitError{code: codeLimitExceeded, msg: fmt.Sprintf(
			"too many subscriptions: this connection holds %d, the limit (rpc-ws-max-subscriptions); unsubscribe one first", c.max)}
	}
	s.opening++
	c.mu.Unlock()

	sub, err := subscribe()
	c.mu.Lock()
	defer c.mu.Unlock()
	s.opening--
	if err != nil {
		c.forget(conn, s)
		return sub, err
	}
	s.open = append(s.open, sub)
	go c.drop(conn, s, sub)
	return sub, nil
}

// drop uncounts sub once go-ethereum ends it, so that a closed
// connection's entry goes too.
func (c *subscriptionCap) drop(conn *rpc.Client, s *connSubs, sub *rpc.Subscription) {
	<-sub.Err()
	c.mu.Lock()
	defer c.mu.Unlock()
	s.open = slices.DeleteFunc(s.open, func(o *rpc.Subscription) bool { return o == sub })
	c.forget(conn, s)
}

// forget removes a connection's entry once it counts nothing.
func (c *subscriptionCap) forget(conn *rpc.Client, s *connSubs) {
	if s.opening == 0 && len(s.open) == 0 && c.live[conn] == s {
		delete(c.live, conn)
	}
}

// ended reports whether go-ethereum has ended sub: it closes Err then.
func ended(sub *rpc.Subscription) bool {
	select {
	case <-sub.Err():
		return true
	default:
		return false
	}
}

// subscriptionsAPI replaces the eth_subscribe subscriptions of
// go-ethereum's filters and downloader with the same ones, counted by subs.
// debug_subscribe's traceChain is counted by traceAPI.
type subscriptionsAPI struct {
	subs       *subscriptionCap
	filters    *filters.FilterAPI
	downloader *downloader.DownloaderAPI
}

// NewHeads is eth_subscribe("newHeads").
func (s subscriptionsAPI) NewHeads(ctx context.Context) (*rpc.Subscription, error) {
	return s.subs.add(ctx, func() (*rpc.Subscription, error) { return s.filters.NewHeads(ctx) })
}

// Logs is eth_subscribe("logs", criteria).
func (s subscriptionsAPI) Logs(ctx context.Context, crit filters.FilterCriteria) (*rpc.Subscription, error) {
	return s.subs.add(ctx, func() (*rpc.Subscription, error) { return s.filters.Logs(ctx, crit) })
}

// NewPendingTransactions is eth_subscribe("newPendingTransactions", fullTx).
func (s subscriptionsAPI) NewPendingTransactions(ctx context.Context, fullTx *bool) (*rpc.Subscription, error) {
	return s.subs.add(ctx, func() (*rpc.Subscription, error) { return s.filters.NewPendingTransactions(ctx, fullTx) })
}

// TransactionReceipts is eth_subscribe("transactionReceipts", query).
func (s subscriptionsAPI) TransactionReceipts(ctx context.Context, query *filters.TransactionReceiptsQuery) (*rpc.Subscription, error) {
	return s.subs.add(ctx, func() (*rpc.Subscription, error) { return s.filters.TransactionReceipts(ctx, query) })
}

// Syncing is eth_subscribe("syncing").
func (s subscriptionsAPI) Syncing(ctx context.Context) (*rpc.Subscription, error) {
	return s.subs.add(ctx, func() (*rpc.Subscription, error) { return s.downloader.Syncing(ctx) })
}

// serviceOf returns the service of type T among apis.
func serviceOf[T any](apis []rpc.API) (T, error) {
	for _, api := range apis {
		if s, ok := api.Service.(T); ok {
			return s, nil
		}
	}
	var zero T
	return zero, fmt.Errorf("go-ethereum offers no %T service", zero)
}
