// Package pvmapi is what other plugins may call on the P-Chain VM through
// host chain calls: its internal handler, the read methods the metrics
// module's staking and fee series are made of, and the Go types of their
// answers (docs/pchain.md). The same methods are public at /ext/bc/P, with
// the validator, subnet and chain answers whose Go types are here too, for
// the VM that writes them and the Go client (plugins/pvm/client) that
// reads them. It is kept apart from the VM so that a module imports it
// without the VM.
package pvmapi

import (
	"encoding/json"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/txjson"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// VMName is the name the P-Chain VM describes itself with, avalanchego's
// alias of its platform VM.
const VMName = "platform"

// VMID is the P-Chain VM's ID, avalanchego's: "platformvm" padded to 32
// bytes, which its name alone would not give (docs/decisions.md, "Identity").
var VMID = ids.ID{'p', 'l', 'a', 't', 'f', 'o', 'r', 'm', 'v', 'm'}

// IndexerHandler is the P-Chain VM's internal handler: JSON-RPC that the
// node never serves over HTTP.
const IndexerHandler = "indexer"

// GetStakingTotalsMethod returns the validators and delegators of every
// subnet (or of one) after a block: the last block at or before a time,
// or the block at a height. Params: StakingTotalsArgs. Result:
// StakingTotals.
const GetStakingTotalsMethod = "pvm.getStakingTotals"

// GetL1ValidatorFeesMethod returns what an L1 validator paid per UTC day
// and cumulatively. Params: FeesArgs. Result: L1ValidatorFees. An unknown
// validation ID is error CodeNotFound.
const GetL1ValidatorFeesMethod = "pvm.getL1ValidatorFees"

// GetL1FeeTotalsMethod returns what all L1 validators paid per UTC day and
// cumulatively, and how many paid each day. Params: FeesArgs without a
// validation ID. Result: FeeTotals.
const GetL1FeeTotalsMethod = "pvm.getL1FeeTotals"

// GetValidationsMethod returns the validations that blocks started: the
// primary-network validators their transactions added (the genesis'
// at height 0) and the L1 validators their conversions and registrations
// made. Params: ValidationsArgs. Result: []BlockValidations, fewer than
// asked at the end of the accepted blocks.
const GetValidationsMethod = "pvm.getValidations"

// MaxValidationBlocks is the most blocks one GetValidationsMethod answer
// holds.
const MaxValidationBlocks = 256

// ValidationsArgs names the blocks: Count of them from height Height on.
type ValidationsArgs struct {
	Height jsonrpc.Uint64 `json:"height"`
	Count  jsonrpc.Uint64 `json:"count"`
}

// BlockValidations are the validations the block at Height, made at Time,
// started.
type BlockValidations struct {
	Height       jsonrpc.Uint64 `json:"height"`
	Time         jsonrpc.Uint64 `json:"time"`
	Validators   []Validation   `json:"validators"`
	L1Validators []L1Validation `json:"l1Validators"`
}

// Validation is a primary-network validation period: its transaction,
// node, period (StartTime is when it starts: its transaction's start, or
// its block's time when that has passed) and the addresses its rewards go
// to.
type Validation struct {
	TxID            ids.ID         `json:"txID"`
	NodeID          avax.NodeID    `json:"nodeID"`
	StartTime       jsonrpc.Uint64 `json:"startTime"`
	EndTime         jsonrpc.Uint64 `json:"endTime"`
	RewardAddresses []string       `json:"rewardAddresses"`
}

// L1Validation is an L1 validator as it was made.
type L1Validation struct {
	ValidationID ids.ID         `json:"validationID"`
	SubnetID     ids.ID         `json:"subnetID"`
	NodeID       avax.NodeID    `json:"nodeID"`
	StartTime    jsonrpc.Uint64 `json:"startTime"`
}

// CodeNotFound is the JSON-RPC error code of an unknown validation ID.
const CodeNotFound = -32004

// SecondsPerDay is the length of the UTC days fees are attributed to.
const SecondsPerDay = 86400

// MaxDays is the most days one fee answer holds.
const MaxDays = 3660

// StakingTotalsArgs names the moment: Time (unix seconds; the state after
// the last block at or before it) or Height; neither is now. SubnetID
// limits the answer to one subnet (the primary network is
// 11111111111111111111111111111111LpoYY).
type StakingTotalsArgs struct {
	Time     *jsonrpc.Uint64 `json:"time,omitempty"`
	Height   *jsonrpc.Uint64 `json:"height,omitempty"`
	SubnetID string          `json:"subnetID,omitempty"`
}

// SubnetTotals are a subnet's current validators and delegators: how many
// and their weight. A primary-network validator's weight is its own stake
// (its delegators' is DelegatorWeight); an L1's counts are its active
// validators' (an L1 has no delegators).
type SubnetTotals struct {
	SubnetID        ids.ID         `json:"subnetID"`
	ValidatorCount  jsonrpc.Uint64 `json:"validatorCount"`
	ValidatorWeight jsonrpc.Uint64 `json:"validatorWeight"`
	DelegatorCount  jsonrpc.Uint64 `json:"delegatorCount"`
	DelegatorWeight jsonrpc.Uint64 `json:"delegatorWeight"`
}

// StakingTotals are the totals after the block at Height, made at Time;
// Subnets are sorted by ID.
type StakingTotals struct {
	Height  jsonrpc.Uint64 `json:"height"`
	Time    jsonrpc.Uint64 `json:"time"`
	Subnets []SubnetTotals `json:"subnets"`
}

// FeesArgs names a validation ID (for GetL1ValidatorFeesMethod) and the
// UTC days wanted: those that meet [StartTime, EndTime] (unix seconds;
// EndTime 0 is now), at most MaxDays.
type FeesArgs struct {
	ValidationID string         `json:"validationID,omitempty"`
	StartTime    jsonrpc.Uint64 `json:"startTime"`
	EndTime      jsonrpc.Uint64 `json:"endTime"`
}

// FeeDay is what was paid in the UTC day starting at Day (unix seconds of
// its midnight), and in all days up to its end. PayingValidators, in fee
// totals only, counts the validators that paid that day.
type FeeDay struct {
	Day              jsonrpc.Uint64  `json:"day"`
	Fees             jsonrpc.Uint64  `json:"fees"`
	CumulativeFees   jsonrpc.Uint64  `json:"cumulativeFees"`
	PayingValidators *jsonrpc.Uint64 `json:"payingValidators,omitempty"`
}

// L1ValidatorFees are an L1 validator's fees for each UTC day asked that
// is not before its start nor after AsOf (the chain's time the answer
// counts to; today's fees so far) or its removal.
type L1ValidatorFees struct {
	ValidationID ids.ID         `json:"validationID"`
	SubnetID     ids.ID         `json:"subnetID"`
	AsOf         jsonrpc.Uint64 `json:"asOf"`
	Days         []FeeDay       `json:"days"`
}

// FeeTotals are the fees of all L1 validators for each UTC day asked that
// is not before the chain's genesis nor after AsOf.
type FeeTotals struct {
	AsOf jsonrpc.Uint64 `json:"asOf"`
	Days []FeeDay       `json:"days"`
}

// GetConfigMethod returns the chain's fees, staking bounds, L1 fee rate
// and clock. Params: none. Result: Config.
const GetConfigMethod = "pvm.getConfig"

// Config is what a wallet needs to know of the chain's rules (docs/pchain.md).
type Config struct {
	AVAXAssetID              ids.ID         `json:"avaxAssetID"`
	TxFee                    jsonrpc.Uint64 `json:"txFee"`
	CreateSubnetTxFee        jsonrpc.Uint64 `json:"createSubnetTxFee"`
	CreateChainTxFee         jsonrpc.Uint64 `json:"createChainTxFee"`
	MinValidatorStake        jsonrpc.Uint64 `json:"minValidatorStake"`
	MaxValidatorStake        jsonrpc.Uint64 `json:"maxValidatorStake"`
	MinDelegatorStake        jsonrpc.Uint64 `json:"minDelegatorStake"`
	MinDelegationFee         jsonrpc.Uint64 `json:"minDelegationFee"`
	MaxValidatorWeightFactor jsonrpc.Uint64 `json:"maxValidatorWeightFactor"`
	MinStakeDuration         jsonrpc.Uint64 `json:"minStakeDuration"`
	MaxStakeDuration         jsonrpc.Uint64 `json:"maxStakeDuration"`
	L1FeeRate                jsonrpc.Uint64 `json:"l1FeeRate"`
	Clock                    string         `json:"clock"`
}

// The dev methods (public only, with the chain config's dev-api-enabled):
// they move the chain's clock forward, and everything due in between
// happens at its exact time before they answer. IncreaseTimeMethod takes
// {"seconds"}, SetTimeMethod {"time"} (unix seconds, not before now);
// both answer TimeReply.
const (
	IncreaseTimeMethod = "pvm.increaseTime"
	SetTimeMethod      = "pvm.setTime"
)

// TimeReply is the chain's time after a dev method, unix seconds.
type TimeReply struct {
	Time jsonrpc.Uint64 `json:"time"`
}

// The answers of the public methods getCurrentValidators, getL1Validator,
// getSubnet and getBlockchains, in avalanchego's shapes.
type (
	// Owner is an owner as the answers write it: its numbers as strings.
	Owner struct {
		Locktime  jsonrpc.Uint64 `json:"locktime"`
		Threshold jsonrpc.Uint64 `json:"threshold"`
		Addresses []string       `json:"addresses"`
	}
	// Signer is a validator's BLS public key and proof of possession.
	Signer struct {
		PublicKey         txjson.HexBytes `json:"publicKey,omitempty"`
		ProofOfPossession txjson.HexBytes `json:"proofOfPossession,omitempty"`
	}
	// Staker is what a primary-network validator and delegator share.
	Staker struct {
		TxID      ids.ID         `json:"txID"`
		StartTime jsonrpc.Uint64 `json:"startTime"`
		EndTime   jsonrpc.Uint64 `json:"endTime"`
		Weight    jsonrpc.Uint64 `json:"weight"`
		NodeID    avax.NodeID    `json:"nodeID"`
	}
	// Validator is a current primary-network validator with its
	// delegators.
	Validator struct {
		Staker
		ValidationRewardOwner  *Owner         `json:"validationRewardOwner,omitempty"`
		DelegationRewardOwner  *Owner         `json:"delegationRewardOwner,omitempty"`
		PotentialReward        jsonrpc.Uint64 `json:"potentialReward"`
		AccruedDelegateeReward jsonrpc.Uint64 `json:"accruedDelegateeReward"`
		DelegationFee          string         `json:"delegationFee"`
		Signer                 *Signer        `json:"signer,omitempty"`
		DelegatorCount         jsonrpc.Uint64 `json:"delegatorCount"`
		DelegatorWeight        jsonrpc.Uint64 `json:"delegatorWeight"`
		Delegators             []Delegator    `json:"delegators"`
	}
	// Delegator is a current delegator of a primary-network validator.
	Delegator struct {
		Staker
		RewardOwner     *Owner         `json:"rewardOwner,omitempty"`
		PotentialReward jsonrpc.Uint64 `json:"potentialReward"`
	}
	// L1Validator is an L1 validator; Balance is what is left of its
	// balance now (0 when inactive).
	L1Validator struct {
		NodeID                avax.NodeID     `json:"nodeID"`
		Weight                jsonrpc.Uint64  `json:"weight"`
		StartTime             jsonrpc.Uint64  `json:"startTime"`
		ValidationID          ids.ID          `json:"validationID"`
		PublicKey             txjson.HexBytes `json:"publicKey"`
		RemainingBalanceOwner *Owner          `json:"remainingBalanceOwner"`
		DeactivationOwner     *Owner          `json:"deactivationOwner"`
		MinNonce              jsonrpc.Uint64  `json:"minNonce"`
		Balance               jsonrpc.Uint64  `json:"balance"`
	}
	// L1ValidatorReply is getL1Validator's answer: the validator, its
	// subnet and the chain's height.
	L1ValidatorReply struct {
		L1Validator
		SubnetID ids.ID         `json:"subnetID"`
		Height   jsonrpc.Uint64 `json:"height"`
	}
	// Subnet is a subnet: its owner, and its conversion once it is an L1
	// (ManagerAddress nil before).
	Subnet struct {
		IsPermissioned           bool             `json:"isPermissioned"`
		ControlKeys              []string         `json:"controlKeys"`
		Threshold                jsonrpc.Uint64   `json:"threshold"`
		Locktime                 jsonrpc.Uint64   `json:"locktime"`
		SubnetTransformationTxID ids.ID           `json:"subnetTransformationTxID"`
		ConversionID             ids.ID           `json:"conversionID"`
		ManagerChainID           ids.ID           `json:"managerChainID"`
		ManagerAddress           *txjson.HexBytes `json:"managerAddress"`
	}
	// Blockchain is a chain the P-Chain knows, with its subnet.
	Blockchain struct {
		ID       ids.ID `json:"id"`
		Name     string `json:"name"`
		SubnetID ids.ID `json:"subnetID"`
		VMID     ids.ID `json:"vmID"`
	}
)

// GetBlocksMethod returns accepted blocks with their transactions, for a
// module that indexes the chain (the data module, docs/data-api.md,
// "The P-Chain"): the blocks from a height on, in order, at most Count and
// at most MaxBlocks; fewer at the end of what the chain accepted, none
// past it. Params: BlocksArgs. Result: []Block.
const GetBlocksMethod = "pvm.getBlocks"

// MaxBlocks is the most blocks one GetBlocksMethod answer holds.
const MaxBlocks = 256

// BlocksArgs names the blocks GetBlocksMethod answers: Count of them from
// Height on (height 0 is the genesis block).
type BlocksArgs struct {
	Height jsonrpc.Uint64 `json:"height"`
	Count  jsonrpc.Uint64 `json:"count"`
}

// Block is an accepted block: its header, its size in bytes, its type
// name as avalanchego's block JSON calls it ("BanffStandardBlock") and its
// transactions.
type Block struct {
	ID       ids.ID         `json:"id"`
	ParentID ids.ID         `json:"parentID"`
	Height   jsonrpc.Uint64 `json:"height"`
	Time     jsonrpc.Uint64 `json:"time"`
	Size     jsonrpc.Uint64 `json:"size"`
	Type     string         `json:"type"`
	Txs      []BlockTx      `json:"txs"`
}

// BlockTx is a transaction of a block: its ID, its type name as
// avalanchego names it ("CreateSubnetTx") and its unsigned transaction in
// the JSON of platform.getTx with encoding json; the fields a module reads
// are those of the types below.
type BlockTx struct {
	ID       ids.ID          `json:"id"`
	Type     string          `json:"type"`
	Unsigned json.RawMessage `json:"unsignedTx"`
}

// The parts of the transaction JSON (BlockTx.Unsigned) that the data
// module records, in avalanchego's shapes; the VM writes them with the
// same types.
type (
	// TxOwner is an output owner: addresses as the chain formats them.
	TxOwner struct {
		Addresses []string `json:"addresses"`
		Locktime  uint64   `json:"locktime"`
		Threshold uint32   `json:"threshold"`
	}
	// CreateSubnetTx's fields beside the base transaction's.
	CreateSubnetTx struct {
		Owner TxOwner `json:"owner"`
	}
	// CreateChainTx's fields beside the base transaction's and its
	// subnet authorization.
	CreateChainTx struct {
		SubnetID    ids.ID   `json:"subnetID"`
		ChainName   string   `json:"chainName"`
		VMID        ids.ID   `json:"vmID"`
		FxIDs       []ids.ID `json:"fxIDs"`
		GenesisData []byte   `json:"genesisData"`
	}
	// ConvertSubnetToL1Tx's fields beside the base transaction's, its
	// validators and its subnet authorization.
	ConvertSubnetToL1Tx struct {
		SubnetID ids.ID          `json:"subnetID"`
		ChainID  ids.ID          `json:"chainID"`
		Address  txjson.HexBytes `json:"address"`
	}
)
