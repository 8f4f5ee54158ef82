package kvstore

import (
	"testing"

	"github.com/chainhost/chainhost/plugins/dataapi/store/storetest"
)

// TestRollback: the rollback tests (storetest) on the default engine;
// TestEngineContract holds the other to the same engine contract.
func TestRollback(t *testing.T) { storetest.TestRollback(t, backend(EnginePebble)) }
