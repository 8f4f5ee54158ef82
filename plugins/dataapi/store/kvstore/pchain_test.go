package kvstore

import (
	"testing"

	"github.com/chainhost/chainhost/plugins/dataapi/store/storetest"
)

func TestPChain(t *testing.T) { storetest.TestPChain(t, backend(EnginePebble)) }
