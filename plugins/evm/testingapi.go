package evm

import (
	"errors"

	"github.com/ethereum/go-ethereum/beacon/engine"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/miner"
)

// nsTesting is the engine-adjacent testing_ namespace of the conformance
// suite, served only with testing-api-enabled.
const nsTesting = "testing"

// testingAPI is testing_buildBlockV1 as go-ethereum serves it: it builds
// (and does not insert) a block on the head. go-ethereum's own service is
// only registered together with the engine API, which chainhost does not
// serve, so the method is rewritten on the same public miner call.
type testingAPI struct {
	eth *eth.Ethereum
}

// BuildBlockV1 is testing_buildBlockV1: transactions nil takes the pool's,
// an empty list builds an empty block.
func (api testingAPI) BuildBlockV1(parentHash common.Hash, attrs engine.PayloadAttributes, transactions *[]hexutil.Bytes, extraData *hexutil.Bytes) (*engine.ExecutionPayloadEnvelope, error) {
	if api.eth.BlockChain().CurrentBlock().Hash() != parentHash {
		return nil, errors.New("parentHash is not current head")
	}
	buildEmpty := transactions != nil && len(*transactions) == 0
	var txs []*types.Transaction
	if transactions != nil {
		dec := make([][]byte, 0, len(*transactions))
		for _, tx := range *transactions {
			dec = append(dec, tx)
		}
		var err error
		if txs, err = engine.DecodeTransactions(dec); err != nil {
			return nil, err
		}
	}
	extra := []byte{}
	if extraData != nil {
		extra = *extraData
	}
	args := &miner.BuildPayloadArgs{
		Parent:         parentHash,
		Timestamp:      attrs.Timestamp,
		FeeRecipient:   attrs.SuggestedFeeRecipient,
		Random:         attrs.Random,
		Withdrawals:    attrs.Withdrawals,
		BeaconRoot:     attrs.BeaconRoot,
		SlotNum:        attrs.SlotNumber,
		TargetGasLimit: attrs.TargetGasLimit,
	}
	_, env, err := api.eth.Miner().BuildTestingPayload(args, txs, buildEmpty, extra)
	return env, err
}
