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
	"github.com/ethereum/go-ethereum/rpc"
)

// codeTraceTimeout is the code of a trace stopped at the chain's limit:
// go-ethereum's for an execution it aborts (eth_call's timeout, a
// tracer's own).
const codeTraceTimeout = -32000

// traceAPI replaces go-ethereum's debug_trace* methods with the same ones
// bounded by the chain's rpc-trace-timeout (docs/evm.md): each call stops
// at the limit, whatever timeout the caller passes, and answers a
// limitError. go-ethereum's own timeout bounds one transaction's tracer;
// the limit bounds the whole call, state regeneration and every
// transaction of a block included.
type traceAPI struct {
	api   *tracers.API
	inner *rpc.Client // debug_traceCall: go-ethereum keeps its argument types internal
	limit time.Duration
	subs  *subscriptionCap
}

// TraceTransaction is debug_traceTransaction.
func (t traceAPI) TraceTransaction(ctx context.Context, hash common.Hash, config *tracers.TraceConfig) (any, error) {
	return t.bound(ctx, func(ctx context.Context) (any, error) {
		return t.api.TraceTransaction(ctx, hash, t.clamp(config))
	})
}

// TraceBlockByNumber is debug_traceBlockByNumber.
func (t traceAPI) TraceBlockByNumber(ctx context.Context, number rpc.BlockNumber, config *tracers.TraceConfig) (any, error) {
	return t.bound(ctx, func(ctx context.Context) (any, error) {
		return t.api.TraceBlockByNumber(ctx, number, t.clamp(config))
	})
}

// TraceBlockByHash is debug_traceBlockByHash.
func (t traceAPI) TraceBlockByHash(ctx context.Context, hash common.Hash, config *tracers.TraceConfig) (any, error) {
	return t.bound(ctx, func(ctx context.Context) (any, error) {
		return t.api.TraceBlockByHash(ctx, hash, t.clamp(config))
	})
}

// TraceBlock is debug_traceBlock (a block given as RLP).
func (t traceAPI) TraceBlock(ctx context.Context, blob hexutil.Bytes, config *tracers.TraceConfig) (any, error) {
	return t.bound(ctx, func(ctx context.Context) (any, error) {
		return t.api.TraceBlock(ctx, blob, t.clamp(config))
	})
}

// TraceBadBlock is debug_traceBadBlock.
func (t traceAPI) TraceBadBlock(ctx context.Context, hash common.Hash, config *tracers.TraceConfig) (any, error) {
	return t.bound(ctx, func(ctx context.Context) (any, error) {
		return t.api.TraceBadBlock(ctx, hash, t.clamp(config))
	})
}

// IntermediateRoots is debug_intermediateRoots, which re-executes a block.
func (t traceAPI) IntermediateRoots(ctx context.Context, hash common.Hash, config *tracers.TraceConfig) (any, error) {
	return t.bound(ctx, func(ctx context.Context) (any, error) {
		return t.api.IntermediateRoots(ctx, hash, t.clamp(config))
	})
}

// TraceCall is debug_traceCall. It runs on the inner server with the
// tracer's timeout clamped, which bounds its one execution there; the
// call's context bounds the answer.
func (t traceAPI) TraceCall(ctx context.Context, args json.RawMessage, block *json.RawMessage, config *json.RawMessage) (any, error) {
	params := []any{args, block}
	if config != nil {
		clamped, err := t.clampRaw(*config)
		if err != nil {
			return nil, err
		}
		params = append(params, clamped)
	} else if t.limit > 0 {
		params = append(params, map[string]string{"timeout": t.limit.String()})
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
// midway, the deadline itself, a block's traces cut short).
func (t traceAPI) bound(ctx context.Context, call func(context.Context) (any, error)) (any, error) {
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

// clamp returns config with its tracer timeout at most the limit; a
// timeout that does not parse is left for go-ethereum to refuse.
func (t traceAPI) clamp(config *tracers.TraceConfig) *tracers.TraceConfig {
	if t.limit == 0 {
		return config
	}
	c := tracers.TraceConfig{}
	if config != nil {
		c = *config
	}
	if c.Timeout != nil {
		if d, err := time.ParseDuration(*c.Timeout); err != nil || d <= t.limit {
			return config
		}
	}
	limit := t.limit.String()
	c.Timeout = &limit
	return &c
}

// clampRaw is clamp for a config kept as JSON. go-ethereum matches its
// keys without regard to case, and the last of several wins, so a config
// with more than one spelling of "timeout" gets the limit; one timeout that
// is not a duration is left for go-ethereum to refuse.
func (t traceAPI) clampRaw(raw json.RawMessage) (json.RawMessage, error) {
	if t.limit == 0 {
		return raw, nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || fields == nil {
		return raw, nil // not an object: go-ethereum refuses it
	}
	var given []json.RawMessage
	for k, v := range fields {
		if strings.EqualFold(k, "timeout") {
			given = append(given, v)
			delete(fields, k)
		}
	}
	if len(given) == 1 {
		var s string
		if json.Unmarshal(given[0], &s) != nil {
			return raw, nil
		}
		if d, err := time.ParseDuration(s); err != nil || d <= t.limit {
			return raw, nil
		}
	}
	limit, err := json.Marshal(t.limit.String())
	if err != nil {
		return nil, fmt.Errorf("encode the trace timeout: %w", err)
	}
	fields["timeout"] = limit
	out, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("encode the trace config: %w", err)
	}
	return out, nil
}
