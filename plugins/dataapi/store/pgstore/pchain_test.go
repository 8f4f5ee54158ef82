package pgstore_test

import (
	"testing"

	"github.com/chainhost/chainhost/plugins/dataapi/store/storetest"
)

func TestPChain(t *testing.T) {
	be, _ := pgBackend()
	storetest.TestPChain(t, be)
}
