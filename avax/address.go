package avax

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/btcsuite/btcd/btcutil/bech32"

	"github.com/chainhost/chainhost/sdk/ids"
)

// ShortIDLen is the length of a short ID: an address.
const ShortIDLen = 20

// ShortID is a 20-byte ID: the address of a secp256k1 key (the RIPEMD-160
// of the SHA-256 of its compressed public key). Its text is CB58, like an
// ID's; FormatAddress gives the bech32 form users see.
type ShortID [ShortIDLen]byte

// String returns the CB58 form.
func (s ShortID) String() string { return ids.EncodeCB58(s[:]) }

// Compare orders short IDs by their bytes.
func (s ShortID) Compare(o ShortID) int { return bytes.Compare(s[:], o[:]) }

// IsZero reports whether every byte is 0.
func (s ShortID) IsZero() bool { return s == ShortID{} }

// ShortIDFromString parses the CB58 form.
func ShortIDFromString(str string) (ShortID, error) {
	b, err := ids.DecodeCB58(str)
	if err != nil {
		return ShortID{}, err
	}
	return ShortIDFromBytes(b)
}

// ShortIDFromBytes returns the short ID of 20 bytes.
func ShortIDFromBytes(b []byte) (ShortID, error) {
	var s ShortID
	if len(b) != ShortIDLen {
		return s, fmt.Errorf("short ID: %d bytes, want %d", len(b), ShortIDLen)
	}
	copy(s[:], b)
	return s, nil
}

// Network IDs with a name and an address HRP of their own, as avalanchego
// numbers them.
const (
	mainnetID  uint32 = 1
	cascadeID  uint32 = 2
	denaliID   uint32 = 3
	everestID  uint32 = 4
	fujiID     uint32 = 5
	unitTestID uint32 = 10
	LocalID    uint32 = 12345
)

// hrps are the bech32 human-readable parts of the networks that have one.
var hrps = map[uint32]string{
	mainnetID:  "avax",
	cascadeID:  "cascade",
	denaliID:   "denali",
	everestID:  "everest",
	fujiID:     "fuji",
	unitTestID: "testing",
	LocalID:    "local",
}

// fallbackHRP is the HRP of every other network.
const fallbackHRP = "custom"

// HRP returns the bech32 human-readable part of addresses on a network:
// "local" on the local network (12345), "avax" on mainnet, "custom" on a
// network without one of its own.
func HRP(networkID uint32) string {
	if h, ok := hrps[networkID]; ok {
		return h
	}
	return fallbackHRP
}

// formatBech32 returns addr in bech32 with hrp ("local1...").
func formatBech32(hrp string, addr ShortID) (string, error) {
	five, err := bech32.ConvertBits(addr[:], 8, 5, true)
	if err != nil {
		return "", fmt.Errorf("format address: %w", err)
	}
	return bech32.Encode(hrp, five)
}

// FormatAddress returns addr as users see it on a chain: the chain's
// alias, "-", and the bech32 form ("X-local1...").
func FormatAddress(chainAlias, hrp string, addr ShortID) (string, error) {
	b, err := formatBech32(hrp, addr)
	if err != nil {
		return "", err
	}
	return chainAlias + "-" + b, nil
}

// ErrNoChainPrefix is the error of ParseAddress for a string without the
// "<chain>-" prefix.
var ErrNoChainPrefix = errors.New(`no "<chain>-" prefix`)

// ParseAddress reads "<chain>-<bech32>" and returns the chain alias, the
// HRP and the address.
func ParseAddress(s string) (chain, hrp string, addr ShortID, err error) {
	chain, rest, ok := strings.Cut(s, "-")
	if !ok {
		return "", "", ShortID{}, fmt.Errorf("address %q: %w", s, ErrNoChainPrefix)
	}
	hrp, addr, err = ParseBech32(rest)
	if err != nil {
		return "", "", ShortID{}, fmt.Errorf("address %q: %w", s, err)
	}
	return chain, hrp, addr, nil
}

// ParseBech32 reads a bech32 address ("local1...") and returns its HRP and
// bytes.
func ParseBech32(s string) (hrp string, addr ShortID, err error) {
	hrp, five, err := bech32.Decode(s)
	if err != nil {
		return "", ShortID{}, fmt.Errorf("bech32: %w", err)
	}
	raw, err := bech32.ConvertBits(five, 5, 8, false)
	if err != nil {
		return "", ShortID{}, fmt.Errorf("bech32: %w", err)
	}
	addr, err = ShortIDFromBytes(raw)
	return hrp, addr, err
}
