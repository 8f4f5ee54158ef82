package utxovm

import "github.com/chainhost/chainhost/avax/signedtx"

// AddPending and Wait reach the mempool's unexported parts from tests.
func AddPending[U signedtx.Unsigned, I any](mp *Mempool[U, I], p *Pending[U, I]) { mp.add(p) }

func Wait[U signedtx.Unsigned, I any](p *Pending[U, I]) error {
	<-p.done
	return p.err
}
