package pvm

import (
	"context"
	"math"

	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

type increaseTimeArgs struct {
	Seconds jsonrpc.Uint64 `json:"seconds"`
}

// increaseTime moves the clock forward (dev method); every block due in
// between is made at its exact time before it answers.
func (vm *VM) increaseTime(ctx context.Context, a increaseTimeArgs) (pvmapi.TimeReply, error) {
	vm.Mu.Lock()
	defer vm.Mu.Unlock()
	now := vm.nowLocked()
	if uint64(a.Seconds) > math.MaxInt64-now {
		return pvmapi.TimeReply{}, jsonrpc.InvalidParams(`"seconds": %d is too far`, a.Seconds)
	}
	return vm.moveClockLocked(ctx, now+uint64(a.Seconds))
}

type setTimeArgs struct {
	Time *jsonrpc.Uint64 `json:"time"`
}

// setTime moves the clock to a time, not before now (dev method).
func (vm *VM) setTime(ctx context.Context, a setTimeArgs) (pvmapi.TimeReply, error) {
	if a.Time == nil {
		return pvmapi.TimeReply{}, jsonrpc.InvalidParams(`"time" is required`)
	}
	vm.Mu.Lock()
	defer vm.Mu.Unlock()
	if now := vm.nowLocked(); uint64(*a.Time) < now {
		return pvmapi.TimeReply{}, jsonrpc.InvalidParams(`"time": %d is before the chain's time %d; the clock only moves forward`, *a.Time, now)
	}
	if uint64(*a.Time) > math.MaxInt64 {
		return pvmapi.TimeReply{}, jsonrpc.InvalidParams(`"time": %d is too far`, *a.Time)
	}
	return vm.moveClockLocked(ctx, uint64(*a.Time))
}

func (vm *VM) moveClockLocked(ctx context.Context, t uint64) (pvmapi.TimeReply, error) {
	if err := vm.setClockLocked(ctx, t); err != nil {
		return pvmapi.TimeReply{}, err
	}
	return pvmapi.TimeReply{Time: jsonrpc.Uint64(vm.nowLocked())}, nil
}
