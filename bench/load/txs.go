package load

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// FundedEVMKey is the private key of FundedEVM (a public test value).
const FundedEVMKey = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"

// maxBatch is the most calls in one JSON-RPC batch to the C-Chain (its
// api-max-batch-size on the default node).
const maxBatch = 40

// stallAfter is how long the oldest transfer may wait for its receipt
// before the sender takes its nonce from the node again: the transfer was
// in the pool of a process that was killed, and every later one waits
// behind its nonce.
const stallAfter = 5 * time.Second

// Acked is a transfer whose receipt the node returned.
type Acked struct {
	Tx, Block common.Hash
	Number    uint64
}

// sentTx is a transfer whose hash the node returned.
type sentTx struct {
	hash common.Hash
	at   time.Time
}

// TxSender sends EVM transfers (eth_sendRawTransaction) from the funded
// key at a fixed rate and keeps the ones the node acknowledged with a
// receipt.
type TxSender struct {
	rc      *rpc.Client
	client  *ethclient.Client
	key     *ecdsa.PrivateKey
	chainID *big.Int
	to      common.Address
	Tally   *Tally

	mu     sync.Mutex
	sent   []sentTx // no receipt yet
	acked  []Acked
	resync bool // take the nonce from the node before the next send
}

// NewTxSender connects to the C-Chain's rpc handler of the node at base.
func NewTxSender(base string, key *ecdsa.PrivateKey, chainID uint64) (*TxSender, error) {
	rc, err := rpc.DialHTTP(base + "/ext/bc/C/rpc")
	if err != nil {
		return nil, fmt.Errorf("dial the C-Chain: %w", err)
	}
	return &TxSender{rc: rc, client: ethclient.NewClient(rc), key: key, chainID: new(big.Int).SetUint64(chainID),
		to: common.HexToAddress("0x00000000000000000000000000000000000000ee"), Tally: &Tally{Name: "EVM transfers (eth_sendRawTransaction)"}}, nil
}

// Close closes the connection.
func (s *TxSender) Close() { s.rc.Close() }

// Run sends perSecond transfers a second for d, each at its time whether
// or not the ones before it have been answered, then waits up to a minute
// for the receipts of those the node took.
func (s *TxSender) Run(ctx context.Context, perSecond int, d time.Duration) {
	runCtx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	s.mu.Lock()
	s.resync = true // another run may have left transfers behind
	s.mu.Unlock()
	var polls, sends sync.WaitGroup
	polls.Go(func() { s.pollReceipts(runCtx) })
	interval := time.Second / time.Duration(perSecond)
	begin := time.Now()
	var nonce uint64
	from := crypto.PubkeyToAddress(s.key.PublicKey)
	// The i-th transfer is due at begin + i*interval: a late loop catches
	// up rather than lowering the rate.
	for i := 0; runCtx.Err() == nil; i++ {
		select {
		case <-runCtx.Done():
			continue
		case <-time.After(time.Until(begin.Add(time.Duration(i) * interval))):
		}
		s.mu.Lock()
		resync := s.resync
		s.resync = false
		s.mu.Unlock()
		if resync {
			n, err := s.client.PendingNonceAt(runCtx, from)
			if err != nil {
				s.fail(&vegeta.Result{Timestamp: time.Now(), Error: err.Error()}, "pending nonce: "+err.Error())
				continue
			}
			nonce = n
		}
		tx := types.MustSignNewTx(s.key, types.LatestSignerForChainID(s.chainID), &types.DynamicFeeTx{
			ChainID: s.chainID, Nonce: nonce, To: &s.to, Value: big.NewInt(1), Gas: 21000,
			GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(100e9),
		})
		nonce++
		sends.Go(func() { s.send(runCtx, tx) })
	}
	sends.Wait()
	s.mu.Lock()
	s.Tally.Metrics.Close()
	s.mu.Unlock()
	// The last receipts.
	waitCtx, waitCancel := context.WithTimeout(ctx, time.Minute)
	defer waitCancel()
	for waitCtx.Err() == nil && s.pending() > 0 {
		s.checkReceipts(waitCtx)
		time.Sleep(200 * time.Millisecond)
	}
	polls.Wait()
}

// send sends one transfer and counts the answer.
func (s *TxSender) send(ctx context.Context, tx *types.Transaction) {
	begin := time.Now()
	err := s.client.SendTransaction(ctx, tx)
	r := &vegeta.Result{Timestamp: begin, Latency: time.Since(begin), Code: 200}
	if err != nil {
		if ctx.Err() != nil {
			return // cut by the end of the run, not answered
		}
		r.Code, r.Error = answerCode(err), err.Error()
		s.fail(r, "eth_sendRawTransaction: "+err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Tally.add(r, "", false)
	s.sent = append(s.sent, sentTx{hash: tx.Hash(), at: begin})
}

// answerCode is the HTTP status of a failed call: the one the node
// answered, 200 for a JSON-RPC error object, 0 for no answer.
func answerCode(err error) uint16 {
	var httpErr rpc.HTTPError
	switch {
	case errors.As(err, &httpErr):
		return uint16(httpErr.StatusCode)
	case errors.As(err, new(rpc.Error)):
		return http.StatusOK
	}
	return 0
}

// fail counts a failure and has the next transfer take its nonce from
// the node.
func (s *TxSender) fail(r *vegeta.Result, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Tally.add(r, why, false)
	s.resync = true
}

// pending is the number of transfers without a receipt.
func (s *TxSender) pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sent)
}

// pollReceipts checks receipts until ctx ends.
func (s *TxSender) pollReceipts(ctx context.Context) {
	for ctx.Err() == nil {
		s.checkReceipts(ctx)
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// checkReceipts asks for the receipts of the oldest transfers without
// one, moves those that have one to acked, and asks for a resync when the
// oldest waited too long.
func (s *TxSender) checkReceipts(ctx context.Context) {
	s.mu.Lock()
	batch := append([]sentTx(nil), s.sent[:min(len(s.sent), maxBatch)]...)
	s.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	receipts := make([]*types.Receipt, len(batch))
	elems := make([]rpc.BatchElem, len(batch))
	for i, t := range batch {
		elems[i] = rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{t.hash}, Result: &receipts[i]}
	}
	if err := s.rc.BatchCallContext(ctx, elems); err != nil {
		return
	}
	got := map[common.Hash]*types.Receipt{}
	for i, e := range elems {
		if e.Error == nil && receipts[i] != nil {
			got[batch[i].hash] = receipts[i]
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.sent[:0]
	for _, t := range s.sent {
		if r, ok := got[t.hash]; ok {
			s.acked = append(s.acked, Acked{Tx: t.hash, Block: r.BlockHash, Number: r.BlockNumber.Uint64()})
			continue
		}
		kept = append(kept, t)
	}
	s.sent = kept
	if len(s.sent) > 0 && time.Since(s.sent[0].at) > stallAfter {
		s.resync = true
		s.sent[0].at = time.Now() // one resync per stall
	}
}

// Result returns the acknowledged transfers and how many transfers whose
// hash the node returned never got a receipt.
func (s *TxSender) Result() (acked []Acked, noReceipt int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Acked(nil), s.acked...), len(s.sent)
}

// Verify returns an error unless every acknowledged transfer is still in
// the block its receipt named.
func Verify(ctx context.Context, base string, acked []Acked) error {
	rc, err := rpc.DialHTTP(base + "/ext/bc/C/rpc")
	if err != nil {
		return fmt.Errorf("dial the C-Chain: %w", err)
	}
	defer rc.Close()
	for len(acked) > 0 {
		batch := acked[:min(len(acked), maxBatch)]
		acked = acked[len(batch):]
		receipts := make([]*types.Receipt, len(batch))
		elems := make([]rpc.BatchElem, len(batch))
		for i, a := range batch {
			elems[i] = rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{a.Tx}, Result: &receipts[i]}
		}
		if err := rc.BatchCallContext(ctx, elems); err != nil {
			return fmt.Errorf("receipts: %w", err)
		}
		for i, a := range batch {
			if elems[i].Error != nil || receipts[i] == nil || receipts[i].BlockHash != a.Block {
				return fmt.Errorf("acknowledged transfer %s (block %d %s) lost: %v", a.Tx, a.Number, a.Block, elems[i].Error)
			}
		}
	}
	return nil
}
