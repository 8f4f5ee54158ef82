package evm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
)

// devAPI is the evm_ namespace of local development networks (the methods
// Hardhat and Anvil offer), on the chain's one block producer.
type devAPI struct {
	p     *producer
	chain *core.BlockChain
}

// Mine is evm_mine: one block now, with the pending transactions or empty.
// With a timestamp the block is empty and carries it (the pool must hold no
// executable transaction).
func (d devAPI) Mine(ctx context.Context, timestamp *quantity) (common.Hash, error) {
	if timestamp != nil {
		return d.p.MineAt(ctx, uint64(*timestamp))
	}
	return d.p.Mine(ctx)
}

// SetAutomine is evm_setAutomine: true builds a block as soon as
// transactions are pending, false switches to manual production.
func (d devAPI) SetAutomine(ctx context.Context, on bool) (bool, error) {
	mode := produceManual
	if on {
		mode = produceAuto
	}
	return true, d.p.SetMode(ctx, mode, 0)
}

// SetIntervalMining is evm_setIntervalMining: a block every ms
// milliseconds (at least 1000); 0 switches to manual production.
func (d devAPI) SetIntervalMining(ctx context.Context, ms quantity) (bool, error) {
	if ms == 0 {
		return true, d.p.SetMode(ctx, produceManual, 0)
	}
	if ms < 1000 {
		return false, errors.New("the interval must be at least 1000 ms (block timestamps are in seconds)")
	}
	return true, d.p.SetMode(ctx, produceInterval, time.Duration(ms)*time.Millisecond)
}

// IncreaseTime is evm_increaseTime: moves the chain's clock forward by
// seconds by building an empty block that much later than the later of the
// head's time and now; later blocks are never earlier. It returns seconds.
func (d devAPI) IncreaseTime(ctx context.Context, seconds quantity) (quantity, error) {
	if seconds == 0 {
		return 0, nil
	}
	base := max(uint64(time.Now().Unix()), d.chain.CurrentBlock().Time+1)
	if _, err := d.p.MineAt(ctx, base+uint64(seconds)); err != nil {
		return 0, fmt.Errorf("increase time: %w", err)
	}
	return seconds, nil
}

// SetNextBlockTimestamp is evm_setNextBlockTimestamp: builds an empty block
// with timestamp ts (after the head's); later blocks are never earlier.
func (d devAPI) SetNextBlockTimestamp(ctx context.Context, ts quantity) (bool, error) {
	if _, err := d.p.MineAt(ctx, uint64(ts)); err != nil {
		return false, err
	}
	return true, nil
}

// quantity is a uint64 argument given as a JSON number, a hex string
// ("0x10") or a decimal string, as the dev tools send them.
type quantity uint64

// UnmarshalJSON reads any of the three forms.
func (q *quantity) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n uint64
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("want a non-negative integer, got %s", b)
		}
		*q = quantity(n)
		return nil
	}
	n, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return fmt.Errorf("want a non-negative integer, got %q", s)
	}
	*q = quantity(n)
	return nil
}

// MarshalJSON writes the hex form.
func (q quantity) MarshalJSON() ([]byte, error) { return json.Marshal(hexutil.Uint64(q)) }
