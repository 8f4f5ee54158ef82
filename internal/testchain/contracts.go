package testchain

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// batchJSON holds the ABI and bytecode of Batch.sol.
//
//go:embed batch.json
var batchJSON []byte

// The contract files the EVM's tests already compiled, from the
// repository's root: the tokens (ERC-20, ERC-721, ERC-1155) and the Factory
// whose calls make every kind of call frame.
const (
	tokensFile = "tests/e2e/testdata/evm/tokens.json"
	callsFile  = "plugins/evm/testdata/calls.json"
)

// contract is a compiled contract: its ABI and creation code.
type contract struct {
	abi abi.ABI
	bin []byte
}

// pack packs a call of method ("" packs the constructor's arguments).
func (c contract) pack(method string, args ...any) []byte {
	b, err := c.abi.Pack(method, args...)
	if err != nil {
		panic(fmt.Sprintf("pack %s: %v", method, err)) // the scenario's own mistake
	}
	return b
}

// create is the creation code with the constructor's arguments.
func (c contract) create(args ...any) []byte {
	return append(bytes.Clone(c.bin), c.pack("", args...)...)
}

// loadContracts reads every contract the scenarios deploy, by name.
func loadContracts() (map[string]contract, error) {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return nil, fmt.Errorf("testchain: cannot locate the repository")
	}
	root := filepath.Join(filepath.Dir(self), "..", "..")
	out := map[string]contract{}
	for _, rel := range []string{tokensFile, callsFile} {
		raw, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return nil, fmt.Errorf("testchain: %w", err)
		}
		if err := parseContracts(raw, rel, out); err != nil {
			return nil, err
		}
	}
	if err := parseContracts(batchJSON, "batch.json", out); err != nil {
		return nil, err
	}
	return out, nil
}

// parseContracts adds the contracts of a {name: {abi, bin}} file to out.
func parseContracts(raw []byte, name string, out map[string]contract) error {
	var all map[string]struct {
		ABI json.RawMessage `json:"abi"`
		Bin string          `json:"bin"`
	}
	if err := json.Unmarshal(raw, &all); err != nil {
		return fmt.Errorf("testchain: %s: %w", name, err)
	}
	for n, c := range all {
		a, err := abi.JSON(bytes.NewReader(c.ABI))
		if err != nil {
			return fmt.Errorf("testchain: %s of %s: %w", n, name, err)
		}
		bin, err := hexutil.Decode(c.Bin)
		if err != nil {
			return fmt.Errorf("testchain: %s of %s: %w", n, name, err)
		}
		out[n] = contract{abi: a, bin: bin}
	}
	return nil
}
