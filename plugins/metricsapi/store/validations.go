package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/sdk/ids"
)

// ValidationsProgress is how far the validations of a P-Chain have been
// read from its blocks.
type ValidationsProgress struct {
	// Next is the height of the next block to read: 0 before the genesis
	// (height 0, not indexed), then the index position plus one.
	Next uint64 `json:"next"`
}

// Validation is a primary-network validation period: its transaction,
// node, period (unix seconds) and the addresses its rewards go to.
type Validation struct {
	TxID      ids.ID      `json:"-"`
	Start     uint64      `json:"-"`
	NodeID    avax.NodeID `json:"nodeID"`
	End       uint64      `json:"end"`
	Addresses []string    `json:"addresses"`
}

// L1Validation is an L1 validator as it was made.
type L1Validation struct {
	ID     ids.ID
	Subnet ids.ID
	NodeID avax.NodeID
}

// BlockValidations are the validations a block started.
type BlockValidations struct {
	Validators   []Validation
	L1Validators []L1Validation
}

func validationsProgressKey(chain ids.ID) []byte {
	return append([]byte{prefixValidationsProgress}, chain[:]...)
}

func validationKey(chain ids.ID, start uint64, tx ids.ID) []byte {
	k := make([]byte, 0, 1+len(chain)+8+len(tx))
	k = binary.BigEndian.AppendUint64(append(append(k, prefixValidation), chain[:]...), start)
	return append(k, tx[:]...)
}

// l1Key is the key of an L1 validation under prefix (prefixSubnetL1 or
// prefixNodeL1) and owner (its subnet or node ID).
func l1Key(prefix byte, chain ids.ID, owner []byte, validation *ids.ID) []byte {
	k := append(append([]byte{prefix}, chain[:]...), owner...)
	if validation != nil {
		k = append(k, validation[:]...)
	}
	return k
}

// ValidationsProgress returns how far the validations of chain have been
// read; the zero ValidationsProgress for a chain never read.
func (s *Store) ValidationsProgress(chain ids.ID) (ValidationsProgress, error) {
	var p ValidationsProgress
	if _, err := s.getJSON(validationsProgressKey(chain), &p); err != nil {
		return p, fmt.Errorf("read the validations progress of chain %s: %w", chain, err)
	}
	return p, nil
}

// AddValidations stores the validations blocks started, and the progress
// p past them, in one atomic write: a restart resumes exactly after the
// last block stored, and a block read twice writes the same keys.
func (s *Store) AddValidations(chain ids.ID, p ValidationsProgress, blocks []BlockValidations) error {
	batch := new(leveldb.Batch)
	for _, b := range blocks {
		for _, v := range b.Validators {
			vb, err := json.Marshal(v)
			if err != nil {
				return err
			}
			batch.Put(validationKey(chain, v.Start, v.TxID), vb)
		}
		for _, v := range b.L1Validators {
			batch.Put(l1Key(prefixSubnetL1, chain, v.Subnet[:], &v.ID), nil)
			batch.Put(l1Key(prefixNodeL1, chain, v.NodeID[:], &v.ID), nil)
		}
	}
	pb, err := json.Marshal(p)
	if err != nil {
		return err
	}
	batch.Put(validationsProgressKey(chain), pb)
	if err := s.db.Write(batch, nil); err != nil {
		return fmt.Errorf("write the validations of chain %s: %w", chain, err)
	}
	return nil
}

// ValidationCursor is where a walk of the validations resumes: after the
// validation that starts at Start with transaction TxID.
type ValidationCursor struct {
	Start uint64 `json:"start"`
	TxID  ids.ID `json:"txID"`
}

// EachValidation calls fn with the primary-network validations of chain
// that start at or before end, by start time then transaction ID, from
// after the cursor (nil: the first) on, until fn returns false. A walk
// reads the validations that started before the range too: the keys are
// ordered by start, which is what a period's overlap with a range needs
// bounded on one side.
func (s *Store) EachValidation(chain ids.ID, after *ValidationCursor, end uint64, fn func(Validation) bool) error {
	prefix := append([]byte{prefixValidation}, chain[:]...)
	r := util.Range{Start: prefix, Limit: util.BytesPrefix(prefix).Limit}
	if end < math.MaxUint64 {
		r.Limit = validationKey(chain, end+1, ids.ID{})
	}
	if after != nil {
		r.Start = append(validationKey(chain, after.Start, after.TxID), 0)
	}
	it := s.db.NewIterator(&r, nil)
	defer it.Release()
	for it.Next() {
		k := it.Key()
		if len(k) != len(prefix)+8+len(ids.ID{}) {
			return fmt.Errorf("a validation key of %d bytes", len(k))
		}
		var v Validation
		if err := json.Unmarshal(it.Value(), &v); err != nil {
			return fmt.Errorf("read a validation of chain %s: %w", chain, err)
		}
		v.Start = binary.BigEndian.Uint64(k[len(prefix):])
		copy(v.TxID[:], k[len(prefix)+8:])
		if !fn(v) {
			return nil
		}
	}
	return it.Error()
}

// SubnetL1Validations returns the validation IDs of every L1 validator
// subnet ever had on chain, removed ones included, sorted.
func (s *Store) SubnetL1Validations(chain, subnet ids.ID) ([]ids.ID, error) {
	return s.l1Validations(l1Key(prefixSubnetL1, chain, subnet[:], nil))
}

// NodeL1Validations returns the validation IDs of every L1 validator node
// ever was on chain, of any L1, removed ones included, sorted.
func (s *Store) NodeL1Validations(chain ids.ID, node avax.NodeID) ([]ids.ID, error) {
	return s.l1Validations(l1Key(prefixNodeL1, chain, node[:], nil))
}

func (s *Store) l1Validations(prefix []byte) ([]ids.ID, error) {
	it := s.db.NewIterator(util.BytesPrefix(prefix), nil)
	defer it.Release()
	var out []ids.ID
	for it.Next() {
		var id ids.ID
		if len(it.Key()) != len(prefix)+len(id) {
			return nil, fmt.Errorf("an L1 validation key of %d bytes", len(it.Key()))
		}
		copy(id[:], it.Key()[len(prefix):])
		out = append(out, id)
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("read L1 validations: %w", err)
	}
	return out, nil
}
