package hostsvc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	avaids "github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
)

// SignerKeyFile is where the node's BLS key is kept below the data dir:
// avalanchego's default staking signer key file.
const SignerKeyFile = "staking/signer.key"

// Identity is the node's identity towards avalanchego VMs: its BLS key,
// made at the first start and kept in the data dir, and a node ID derived
// from it.
type Identity struct {
	signer *localsigner.LocalSigner
	// NodeID is the hash160 (RIPEMD-160 of SHA-256) of the key's
	// compressed public key. avalanchego derives a node ID from the
	// staking TLS certificate instead; chainhost has none, and this one
	// stays the same across restarts as the key does.
	NodeID avaids.NodeID
}

// LoadIdentity reads the node's BLS key from SignerKeyFile below dataDir,
// or makes one and saves it there (file mode 0600, its dir 0700) when the
// file does not exist. A file that is not a key is an error naming it:
// a new key would be a new node ID and a new warp signer.
func LoadIdentity(dataDir string) (*Identity, error) {
	path := filepath.Join(dataDir, SignerKeyFile)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return newIdentity(path)
	case err != nil:
		return nil, fmt.Errorf("read the node's BLS key: %w", err)
	}
	s, err := localsigner.FromBytes(b)
	if err != nil {
		return nil, fmt.Errorf("the node's BLS key %s is corrupt (%w); restore it from a backup, or remove it to make a new key, which changes the node ID", path, err)
	}
	return identityOf(s), nil
}

// newIdentity makes a key and saves it at path, through a temporary file
// renamed into place so that a crash never leaves half a key.
func newIdentity(path string) (*Identity, error) {
	s, err := localsigner.New()
	if err != nil {
		return nil, fmt.Errorf("make the node's BLS key: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("save the node's BLS key: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".signer.key-*")
	if err != nil {
		return nil, fmt.Errorf("save the node's BLS key: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	_, err = tmp.Write(s.ToBytes())
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return nil, fmt.Errorf("save the node's BLS key at %s: %w", path, err)
	}
	return identityOf(s), nil
}

func identityOf(s *localsigner.LocalSigner) *Identity {
	pk := bls.PublicKeyToCompressedBytes(s.PublicKey())
	return &Identity{signer: s, NodeID: avaids.NodeID(hashing.ComputeHash160Array(pk))}
}

// PublicKey returns the node's BLS public key.
func (id *Identity) PublicKey() *bls.PublicKey { return id.signer.PublicKey() }

// WarpSigner returns the signer of a chain's warp messages: the node's
// key, for messages of that network and chain only.
func (id *Identity) WarpSigner(networkID uint32, chainID avaids.ID) warp.Signer {
	return warp.NewSigner(id.signer, networkID, chainID)
}
