package evm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
)

// personalAPI is the personal_ namespace, removed from go-ethereum and
// written here on its keystore (in the chain's directory). Signing and
// sending go through go-ethereum's own eth_ methods, which sign with the
// keystore's unlocked accounts.
type personalAPI struct {
	ks    *keystore.KeyStore
	inner *rpc.Client
}

// ListAccounts is personal_listAccounts.
func (p personalAPI) ListAccounts() []common.Address {
	accs := p.ks.Accounts()
	out := make([]common.Address, len(accs))
	for i, a := range accs {
		out[i] = a.Address
	}
	return out
}

// NewAccount is personal_newAccount: a new key encrypted with password.
func (p personalAPI) NewAccount(password string) (common.Address, error) {
	acc, err := p.ks.NewAccount(password)
	if err != nil {
		return common.Address{}, fmt.Errorf("new account: %w", err)
	}
	return acc.Address, nil
}

// ImportRawKey is personal_importRawKey: a hex private key, encrypted with
// password.
func (p personalAPI) ImportRawKey(privkey string, password string) (common.Address, error) {
	key, err := crypto.HexToECDSA(trim0x(privkey))
	if err != nil {
		return common.Address{}, fmt.Errorf("private key: %w", err)
	}
	acc, err := p.ks.ImportECDSA(key, password)
	if err != nil {
		return common.Address{}, fmt.Errorf("import key: %w", err)
	}
	return acc.Address, nil
}

// UnlockAccount is personal_unlockAccount; duration in seconds, default 300,
// 0 until the plugin stops.
func (p personalAPI) UnlockAccount(addr common.Address, password string, duration *uint64) (bool, error) {
	d := 300 * time.Second
	if duration != nil {
		d = time.Duration(*duration) * time.Second
	}
	if err := p.ks.TimedUnlock(accounts.Account{Address: addr}, password, d); err != nil {
		return false, err
	}
	return true, nil
}

// LockAccount is personal_lockAccount.
func (p personalAPI) LockAccount(addr common.Address) bool {
	return p.ks.Lock(addr) == nil
}

// SendTransaction is personal_sendTransaction: unlocks from for this
// transaction and sends it with eth_sendTransaction.
func (p personalAPI) SendTransaction(ctx context.Context, args json.RawMessage, password string) (common.Hash, error) {
	var from struct {
		From *common.Address `json:"from"`
	}
	if err := json.Unmarshal(args, &from); err != nil || from.From == nil {
		return common.Hash{}, errors.New("transaction needs a \"from\" address")
	}
	acc := accounts.Account{Address: *from.From}
	if err := p.ks.TimedUnlock(acc, password, 10*time.Second); err != nil {
		return common.Hash{}, err
	}
	var hash common.Hash
	err := p.inner.CallContext(ctx, &hash, "eth_sendTransaction", args)
	return hash, err
}

// Sign is personal_sign: an EIP-191 signature of data by addr.
func (p personalAPI) Sign(data hexutil.Bytes, addr common.Address, password string) (hexutil.Bytes, error) {
	sig, err := p.ks.SignHashWithPassphrase(accounts.Account{Address: addr}, password, accounts.TextHash(data))
	if err != nil {
		return nil, err
	}
	sig[crypto.RecoveryIDOffset] += 27
	return sig, nil
}

// EcRecover is personal_ecRecover: the address that signed data with sig.
func (personalAPI) EcRecover(data, sig hexutil.Bytes) (common.Address, error) {
	if len(sig) != crypto.SignatureLength {
		return common.Address{}, fmt.Errorf("signature must be %d bytes long", crypto.SignatureLength)
	}
	if sig[crypto.RecoveryIDOffset] != 27 && sig[crypto.RecoveryIDOffset] != 28 {
		return common.Address{}, errors.New("invalid Ethereum signature (V is not 27 or 28)")
	}
	s := append([]byte(nil), sig...)
	s[crypto.RecoveryIDOffset] -= 27
	pub, err := crypto.SigToPub(accounts.TextHash(data), s)
	if err != nil {
		return common.Address{}, err
	}
	return crypto.PubkeyToAddress(*pub), nil
}

func trim0x(s string) string {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return s[2:]
	}
	return s
}
