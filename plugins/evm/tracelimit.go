package evm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/eth/tracers/logger"
	"github.com/ethereum/go-ethereum/rpc"
)

// codeTraceTimeout is the code of a trace stopped at the chain's limit:
// go-ethereum's for an execution it aborts (eth_call's timeout, a
// tracer's own).
const codeTraceTimeout = -32000

// traceAPI replaces go-ethereum's debug_trace* methods with the same ones
// bounded by the chain's rpc-trace-timeout and rpc-trace-max-size
// (docs/evm.md): each call stops at the time limit, whatever timeout the
// caller passes, and an answer over the size limit is not sent; both
// answer a limitError. go-ethereum's own timeout bounds one transaction's
// tracer; the limit bounds the whole call, state regeneration and every
// transaction of a block included.
type traceAPI struct {
	api     *tracers.API
	inner   *rpc.Client // debug_traceCall: go-ethereum keeps its argument types internal
	limit   time.Duration
	maxSize int
	subs    *subscriptionCap
}

// TraceTransaction is debug_traceTransaction.
func (t traceAPI) TraceTransaction(ctx context.Context, hash common.Hash, config *tracers.TraceConfig) (any, error) {
	return traced(ctx, t, hash, config, t.api.TraceTransaction)
}

// TraceBlockByNumber is debug_traceBlockByNumber.
func (t traceAPI) TraceBlockByNumber(ctx context.Context, number rpc.BlockNumber, config *tracers.TraceConfig) (any, error) {
	return traced(ctx, t, number, config, t.api.TraceBlockByNumber)
}

// TraceBlockByHash is debug_traceBlockByHash.
func (t traceAPI) TraceBlockByHash(ctx context.Context, hash common.Hash, config *tracers.TraceConfig) (any, error) {
	return traced(ctx, t, hash, config, t.api.TraceBlockByHash)
}

// TraceBlock is debug_traceBlock (a block given as RLP).
func (t traceAPI) TraceBlock(ctx context.Context, blob hexutil.Bytes, config *tracers.TraceConfig) (any, error) {
	return traced(ctx, t, blob, config, t.api.TraceBlock)
}

// TraceBadBlock is debug_traceBadBlock.
func (t traceAPI) TraceBadBlock(ctx context.Context, hash common.Hash, config *tracers.TraceConfig) (any, error) {
	return traced(ctx, t, hash, config, t.api.TraceBadBlock)
}

// IntermediateRoots is debug_intermediateRoots, which re-executes a block.
func (t traceAPI) IntermediateRoots(ctx context.Context, hash common.Hash, config *tracers.TraceConfig) (any, error) {
	return traced(ctx, t, hash, config, t.api.IntermediateRoots)
}

// traced calls method, one of go-ethereum's debug_trace* methods, with
// its config clamped, bounded by the limits.
func traced[A, R any](ctx context.Context, t traceAPI, arg A, config *tracers.TraceConfig,
	method func(context.Context, A, *tracers.TraceConfig) (R, error)) (any, error) {
	return t.bound(ctx, func(ctx context.Context) (any, error) {
		return method(ctx, arg, t.clamp(config))
	})
}

// TraceCall is debug_traceCall. It runs on the inner server with the
// tracer's timeout clamped, which bounds its one execution there; the
// call's context bounds the answer.
func (t traceAPI) TraceCall(ctx context.Context, args json.RawMessage, block *json.RawMessage, config *json.RawMessage) (any, error) {
	params := []any{args, block}
	if config == nil && (t.limit > 0 || t.maxSize > 0) {
		empty := json.RawMessage(`{}`)
		config = &empty
	}
	if config != nil {
		clamped, err := t.clampRaw(*config)
		if err != nil {
			return nil, err
		}
		params = append(params, clamped)
	}
	return t.bound(ctx, func(ctx context.Context) (any, error) {
		var res json.RawMessage
		if err := t.inner.CallContext(ctx, &res, "debug_traceCall", params...); err != nil {
			return nil, err
		}
		return res, nil
	})
}

// TraceChain is debug_subscribe("traceChain"): a subscription, counted as
// one, whose every transaction's tracer is held to the limit.
func (t traceAPI) TraceChain(ctx context.Context, start, end rpc.BlockNumber, config *tracers.TraceConfig) (*rpc.Subscription, error) {
	return t.subs.add(ctx, func() (*rpc.Subscription, error) {
		return t.api.TraceChain(ctx, start, end, t.clamp(config))
	})
}

// bound runs call with the limit as its deadline; past the deadline the
// answer is the limit's error, whatever call returned (a tracer stopped
// midway, the deadline itself, a block's traces cut short). An answer
// larger than maxSize is the size limit's error.
func (t traceAPI) bound(ctx context.Context, call func(context.Context) (any, error)) (any, error) {
	res, err := t.timed(ctx, call)
	if err != nil || t.maxSize == 0 {
		return res, err
	}
	out, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encode the trace: %w", err)
	}
	if len(out) > t.maxSize {
		return nil, &limitError{code: codeLimitExceeded, msg: fmt.Sprintf(
			"trace too large: its answer is over this chain's limit of %d bytes (rpc-trace-max-size); trace less at once or with a lighter tracer", t.maxSize)}
	}
	return json.RawMessage(out), nil
}

// timed runs call with the time limit as its deadline (bound).
func (t traceAPI) timed(ctx context.Context, call func(context.Context) (any, error)) (any, error) {
	if t.limit == 0 {
		return call(ctx)
	}
	deadline := time.Now().Add(t.limit)
	limited, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	res, err := call(limited)
	// By the clock, not limited.Err(): the inner server's tracer may stop
	// at its own timeout before the deadline's timer has run.
	if !time.Now().Before(deadline) && ctx.Err() == nil {
		return nil, &limitError{code: codeTraceTimeout, msg: fmt.Sprintf(
			"trace aborted: it ran longer than this chain's limit of %s (rpc-trace-timeout)", t.limit)}
	}
	return res, err
}

// clamp returns config with its tracer timeout at most the time limit (a
// timeout that does not parse is left for go-ethereum to refuse) and its
// struct logger's output at most the size limit, past which the logger
// stops recording and the answer is over the limit.
func (t traceAPI) clamp(config *tracers.TraceConfig) *tracers.TraceConfig {
	c := tracers.TraceConfig{}
	if config != nil {
		c = *config
	}
	if t.limit > 0 && !t.timeoutWithin(c.Timeout) {
		limit := t.limit.String()
		c.Timeout = &limit
	}
	if t.maxSize > 0 && (c.Config == nil || c.Config.Limit <= 0 || c.Config.Limit > t.maxSize) {
		lc := logger.Config{}
		if c.Config != nil {
			lc = *c.Config
		}
		lc.Limit = t.maxSize
		c.Config = &lc
	}
	return &c
}

// timeoutWithin reports whether a caller's tracer timeout may stand: at
// most the limit, or not a duration (go-ethereum refuses it).
func (t traceAPI) timeoutWithin(timeout *string) bool {
	if timeout == nil {
		return false
	}
	d, err := time.ParseDuration(*timeout)
	return err != nil || d <= t.limit
}

// clampRaw is clamp for a config kept as JSON. go-ethereum matches its
// keys without regard to case, and the last of several wins, so a config
// with more than one spelling of "timeout" or "limit" gets the chain's
// limit; one value of the wrong type is left for go-ethereum to refuse.
func (t traceAPI) clampRaw(raw json.RawMessage) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || fields == nil {
		return raw, nil // not an object: go-ethereum refuses it
	}
	changed := false
	if t.limit > 0 {
		c, err := clampKey(fields, "timeout", t.limit.String(), func(v json.RawMessage) bool {
			var s string
			if json.Unmarshal(v, &s) != nil {
				return true
			}
			return t.timeoutWithin(&s)
		})
		if err != nil {
			return nil, err
		}
		changed = changed || c
	}
	if t.maxSize > 0 {
		c, err := clampKey(fields, "limit", t.maxSize, func(v json.RawMessage) bool {
			var n int
			if json.Unmarshal(v, &n) != nil {
				return true
			}
			return n > 0 && n <= t.maxSize
		})
		if err != nil {
			return nil, err
		}
		changed = changed || c
	}
	if !changed {
		return raw, nil
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("encode the trace config: %w", err)
	}
	return out, nil
}

// clampKey sets the key name of fields (matched without regard to case)
// to want, unless it is given once and keep accepts its value; it reports
// whether it changed fields.
func clampKey(fields map[string]json.RawMessage, name string, want any, keep func(json.RawMessage) bool) (bool, error) {
	var given []string
	for k := range fields {
		if strings.EqualFold(k, name) {
			given = append(given, k)
		}
	}
	if len(given) == 1 && keep(fields[given[0]]) {
		return false, nil
	}
	for _, k := range given {
		delete(fields, k)
	}
	v, err := json.Marshal(want)
	if err != nil {
		return false, fmt.Errorf("encode the trace %s: %w", name, err)
	}
	fields[name] = v
	return true, nil
}
