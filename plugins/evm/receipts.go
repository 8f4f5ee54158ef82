package evm

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/chainhost/chainhost/avax/evmapi"
)

// blockReceipt is what an indexer_getBlocks answer takes of a stored
// receipt.
type blockReceipt struct {
	status uint64
	cumGas uint64
	logs   []evmapi.Log // without their index in the block
}

// decodeReceipts decodes a block's receipts as go-ethereum stores them
// (rawdb.ReadReceiptsRLP: per receipt, the status or pre-Byzantium state
// root, the cumulative gas used, and the logs as address, topics, data)
// straight into the answer's shape. go-ethereum's own decoding allocates
// per receipt, log and topic; this allocates the block's receipts, logs
// and topics once each, and the logs' data point into raw.
func decodeReceipts(raw []byte) ([]blockReceipt, error) {
	list, rest, err := rlp.SplitList(raw)
	if err != nil || len(rest) != 0 {
		return nil, fmt.Errorf("receipt list: %w", errOr(err, "trailing bytes"))
	}
	n, err := rlp.CountValues(list)
	if err != nil {
		return nil, fmt.Errorf("receipt list: %w", err)
	}
	out := make([]blockReceipt, n)
	// A log takes at least 20 (address) and a topic 32 bytes.
	logs := make([]evmapi.Log, 0, len(list)/23+1)
	topics := make([]common.Hash, 0, len(list)/33+1)
	for i := range out {
		var rec []byte
		if rec, list, err = rlp.SplitList(list); err != nil {
			return nil, fmt.Errorf("receipt %d: %w", i, err)
		}
		r := &out[i]
		status, rec, err := rlp.SplitString(rec)
		if err != nil {
			return nil, fmt.Errorf("receipt %d status: %w", i, err)
		}
		switch {
		case len(status) == 1 && status[0] == 1:
			r.status = 1
		case len(status) == 0 || len(status) == common.HashLength: // failed, or a state root (status left 0, as go-ethereum does)
		default:
			return nil, fmt.Errorf("receipt %d: invalid status %x", i, status)
		}
		if r.cumGas, rec, err = rlp.SplitUint64(rec); err != nil {
			return nil, fmt.Errorf("receipt %d gas: %w", i, err)
		}
		rlogs, rest, err := rlp.SplitList(rec)
		if err != nil || len(rest) != 0 {
			return nil, fmt.Errorf("receipt %d logs: %w", i, errOr(err, "trailing bytes"))
		}
		start := len(logs)
		for len(rlogs) > 0 {
			var l []byte
			if l, rlogs, err = rlp.SplitList(rlogs); err != nil {
				return nil, fmt.Errorf("receipt %d log: %w", i, err)
			}
			if logs, topics, err = decodeLog(logs, topics, l); err != nil {
				return nil, fmt.Errorf("receipt %d log %d: %w", i, len(logs)-start, err)
			}
		}
		r.logs = logs[start:len(logs):len(logs)]
	}
	return out, nil
}

// decodeLog appends the log of a list content: address, topics, data.
func decodeLog(logs []evmapi.Log, topics []common.Hash, b []byte) ([]evmapi.Log, []common.Hash, error) {
	addr, b, err := rlp.SplitString(b)
	if err != nil || len(addr) != common.AddressLength {
		return logs, topics, fmt.Errorf("address: %w", errOr(err, "not 20 bytes"))
	}
	rtopics, b, err := rlp.SplitList(b)
	if err != nil {
		return logs, topics, fmt.Errorf("topics: %w", err)
	}
	start := len(topics)
	for len(rtopics) > 0 {
		var t []byte
		if t, rtopics, err = rlp.SplitString(rtopics); err != nil || len(t) != common.HashLength {
			return logs, topics, fmt.Errorf("topic: %w", errOr(err, "not 32 bytes"))
		}
		topics = append(topics, common.Hash(t))
	}
	data, b, err := rlp.SplitString(b)
	if err != nil || len(b) != 0 {
		return logs, topics, fmt.Errorf("data: %w", errOr(err, "trailing bytes"))
	}
	return append(logs, evmapi.Log{
		Address: common.Address(addr),
		Topics:  topics[start:len(topics):len(topics)],
		Data:    data,
	}), topics, nil
}

// errOr is err, or an error saying msg when err is nil.
func errOr(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}
