package avax

import "fmt"

// VerifySpend checks, as secp256k1fx does, that input in with credential
// cred may spend out in a transaction whose unsigned bytes hash (SHA-256)
// to txHash, at time now (unix seconds): the amounts are equal, the
// locktime has passed, in names exactly Threshold of the output's
// addresses, cred has one signature per named address, and each signature
// recovers to its address.
func VerifySpend(txHash []byte, in *TransferInput, cred *Credential, out *TransferOutput, now uint64) error {
	if err := in.Verify(); err != nil {
		return err
	}
	if err := out.Verify(); err != nil {
		return err
	}
	n := len(in.SigIndices)
	switch {
	case out.Amt != in.Amt:
		return fmt.Errorf("input amount %d differs from the UTXO's %d", in.Amt, out.Amt)
	case out.Locktime > now:
		return fmt.Errorf("UTXO is locked until %d (now %d)", out.Locktime, now)
	case out.Threshold < uint32(n):
		return fmt.Errorf("input has %d signers, more than the UTXO's threshold %d", n, out.Threshold)
	case out.Threshold > uint32(n):
		return fmt.Errorf("input has %d signers, fewer than the UTXO's threshold %d", n, out.Threshold)
	case len(cred.Sigs) != n:
		return fmt.Errorf("credential has %d signatures for %d signers of the input", len(cred.Sigs), n)
	}
	for i, idx := range in.SigIndices {
		if idx >= uint32(len(out.Addrs)) {
			return fmt.Errorf("signature index %d is out of the UTXO's %d addresses", idx, len(out.Addrs))
		}
		got, err := RecoverAddress(txHash, cred.Sigs[i])
		if err != nil {
			return fmt.Errorf("signature %d: %w", i, err)
		}
		if want := out.Addrs[idx]; got != want {
			return fmt.Errorf("signature %d is by %s, not by the UTXO's owner %s", i, got, want)
		}
	}
	return nil
}
