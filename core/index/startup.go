package index

import (
	"fmt"

	"github.com/chainhost/chainhost/core/storage"
)

// Keys of the persisted start-up flags in the namespace given to
// CheckStartup.
var (
	keyEverEnabled = []byte("index-ever-enabled")
	keyIncomplete  = []byte("index-incomplete")
)

// flagSet is the stored value of a set flag.
var flagSet = []byte{1}

// CheckStartup applies the rule on --index-enabled and
// --index-allow-incomplete (docs/index.md) with flags persisted in ns, and
// reports whether the index is incomplete (it misses containers accepted
// while indexing was off).
//
// With enabled, it records that indexing has been on and reports the
// persisted incomplete flag. Without enabled, it refuses (an error matching
// ErrWouldBeIncomplete, nothing written) when indexing was on in a previous
// run, unless allowIncomplete; otherwise it marks the index incomplete, for
// good: every run without indexing may accept containers the index will
// never hold.
func CheckStartup(ns *storage.Namespace, enabled, allowIncomplete bool) (incomplete bool, err error) {
	everEnabled, err := ns.Has(keyEverEnabled)
	if err != nil {
		return false, fmt.Errorf("check index flags: %w", err)
	}
	if incomplete, err = ns.Has(keyIncomplete); err != nil {
		return false, fmt.Errorf("check index flags: %w", err)
	}
	if enabled {
		if !everEnabled {
			if err := ns.Put(keyEverEnabled, flagSet); err != nil {
				return false, fmt.Errorf("record index enabled: %w", err)
			}
		}
		return incomplete, nil
	}
	if everEnabled && !allowIncomplete {
		return incomplete, ErrWouldBeIncomplete
	}
	if !incomplete {
		if err := ns.Put(keyIncomplete, flagSet); err != nil {
			return false, fmt.Errorf("mark index incomplete: %w", err)
		}
	}
	return true, nil
}

// MarkComplete clears the incomplete mark that CheckStartup persisted in
// ns. The caller calls it, in a run with indexing on, once the index holds
// every container the chains accepted (each chain's index was backfilled
// from its VM), so that later runs no longer report the index incomplete.
// Clearing a flag that is not set does nothing.
func MarkComplete(ns *storage.Namespace) error {
	if err := ns.Delete(keyIncomplete); err != nil {
		return fmt.Errorf("mark index complete: %w", err)
	}
	return nil
}
