package hostsvc

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	avaids "github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
)

// TestIdentityKept: the first load makes the key (0600 in a 0700 dir) as
// avalanchego's own signer reads it; a second load, as after a restart,
// gives the same key and node ID.
func TestIdentityKept(t *testing.T) {
	dataDir := t.TempDir()
	first, err := LoadIdentity(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dataDir, SignerKeyFile)
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: %v, %v; want mode %v", p, fi.Mode(), err, want)
		}
	}
	onDisk, err := localsigner.FromFile(path)
	if err != nil || !bytes.Equal(bls.PublicKeyToCompressedBytes(onDisk.PublicKey()), bls.PublicKeyToCompressedBytes(first.PublicKey())) {
		t.Fatalf("the saved key is not the node's: %v", err)
	}
	again, err := LoadIdentity(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if again.NodeID != first.NodeID || first.NodeID == avaids.EmptyNodeID {
		t.Fatalf("node ID %s, then %s after a restart", first.NodeID, again.NodeID)
	}
	other, err := LoadIdentity(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if other.NodeID == first.NodeID {
		t.Fatal("two data dirs, one node ID")
	}
}

// TestIdentityCorrupt: a key file that is not a key is an error naming
// it, and the file is left as it was.
func TestIdentityCorrupt(t *testing.T) {
	dataDir := t.TempDir()
	path := filepath.Join(dataDir, SignerKeyFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	junk := []byte("not a key")
	if err := os.WriteFile(path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadIdentity(dataDir)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("load of a corrupt key: %v", err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, junk) {
		t.Fatal("the corrupt key file was replaced")
	}
}

// TestWarpSigner: the chain's signer signs with the node's key, a message
// of its own network and chain only, and the signature verifies against
// the node's public key.
func TestWarpSigner(t *testing.T) {
	id, err := LoadIdentity(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const networkID = 12345
	chainID := avaids.GenerateTestID()
	signer := id.WarpSigner(networkID, chainID)
	msg, err := warp.NewUnsignedMessage(networkID, chainID, []byte("payload"))
	if err != nil {
		t.Fatal(err)
	}
	sigBytes, err := signer.Sign(msg)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := bls.SignatureFromBytes(sigBytes)
	if err != nil {
		t.Fatal(err)
	}
	if !bls.Verify(id.PublicKey(), sig, msg.Bytes()) {
		t.Fatal("the signature does not verify against the node's key")
	}
	foreign, err := warp.NewUnsignedMessage(networkID, avaids.GenerateTestID(), []byte("payload"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := signer.Sign(foreign); err == nil {
		t.Fatal("signed a message of another chain")
	}
}
