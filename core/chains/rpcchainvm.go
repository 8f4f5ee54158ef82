package chains

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	avadb "github.com/ava-labs/avalanchego/database"
	avaids "github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/engine/common"
	"github.com/ava-labs/avalanchego/snow/validators"

	"github.com/chainhost/chainhost/core/catalog"
	"github.com/chainhost/chainhost/core/pluginhost"
	"github.com/chainhost/chainhost/core/rpcchainvm"
	"github.com/chainhost/chainhost/core/rpcchainvm/chaindb"
	"github.com/chainhost/chainhost/core/rpcchainvm/hostsvc"
	"github.com/chainhost/chainhost/sdk/ids"
)

// avalanche is what every avalanchego VM plugin of the node shares: the
// node's identity and the P-Chain's validator state, made at the first
// start of such a plugin (docs/rpcchainvm.md).
type avalanche struct {
	once       sync.Once
	err        error
	identity   *hostsvc.Identity
	validators validators.State
}

// avalancheHost returns the node-wide services of avalanchego VM plugins.
func (m *Manager) avalancheHost() (*avalanche, error) {
	a := &m.avalanche
	a.once.Do(func() {
		if a.identity, a.err = hostsvc.LoadIdentity(m.opts.Config.DataDir); a.err != nil {
			return
		}
		a.validators = hostsvc.NewValidatorState(caller{m: m}, "P", m.subnetOf)
		if _, ok := m.Resolve("P"); !ok {
			a.validators = hostsvc.NewAlone(a.identity, m.subnetOf)
		}
	})
	return a, a.err
}

// subnetOf is the subnet a chain of the config runs on: its subnet-id, or
// the primary network.
func (m *Manager) subnetOf(chainID avaids.ID) (avaids.ID, bool) {
	c, ok := m.byID[ids.ID(chainID)]
	if !ok {
		return avaids.Empty, false
	}
	if c.Config.SubnetID == "" {
		return avaids.Empty, true
	}
	id, err := avaids.FromString(c.Config.SubnetID) // the config's validation checked it
	return id, err == nil
}

// startRPCChainVM starts c on the avalanchego VM plugin vm.
func (m *Manager) startRPCChainVM(ctx context.Context, c *Chain, vm *catalog.VM) error {
	genesis, err := c.Config.GenesisBytes()
	if err != nil {
		return err
	}
	chainCfg, err := c.Config.ConfigBytes()
	if err != nil {
		return err
	}
	upgrades, err := c.Config.UpgradeBytes()
	if err != nil {
		return err
	}
	pin, err := m.opts.Config.PluginPin(vm.Path)
	if err != nil {
		return err
	}
	host, err := m.avalancheHost()
	if err != nil {
		return err
	}
	subnet, _ := m.subnetOf(avaids.ID(c.ID))
	dataDir := filepath.Join(m.opts.Config.DataDir, "chains", c.ID.String())
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("%s data dir: %w", c.Alias, err)
	}
	state := m.opts.DB.Namespace(statesNS).Namespace(c.ID.String())
	index := chainIndex{m: m, chain: c, state: state}
	log := m.opts.Logs.Get(c.Alias)
	bootstrap := time.Now()
	opts := rpcchainvm.Options{
		Path:        vm.Path,
		Exec:        vm.Exec,
		SHA256:      pin,
		Alias:       c.Alias,
		NetworkID:   m.opts.Config.NetworkID,
		SubnetID:    subnet,
		ChainID:     avaids.ID(c.ID),
		NodeID:      host.identity.NodeID,
		PublicKey:   host.identity.PublicKey(),
		XChainID:    m.chainID("X"),
		CChainID:    m.chainID("C"),
		AVAXAssetID: m.avaxAssetID(ctx),
		DataDir:     dataDir,
		Genesis:     genesis,
		Upgrade:     upgrades,
		Config:      chainCfg,

		NewDB: func() avadb.Database { return chaindb.New(state) },
		SharedMemory: hostsvc.NewSharedMemory(m.opts.DB, m.opts.SharedMemory, avaids.ID(c.ID), func(id avaids.ID) bool {
			_, ok := m.byID[ids.ID(id)]
			return ok
		}),
		Aliases:        hostsvc.NewAliases(m.opts.Aliases),
		ValidatorState: host.validators,
		WarpSigner:     host.identity.WarpSigner(m.opts.Config.NetworkID, avaids.ID(c.ID)),
		AppSender: func(vm common.AppHandler) common.AppSender {
			return hostsvc.NewAppSender(host.identity.NodeID, vm, func(err error) {
				log.Warn("deliver an app message to the VM", "error", err)
			})
		},
		Accepted: func(ctx context.Context, id avaids.ID, bytes []byte) error {
			_, err := index.Accept(ctx, rpcchainvm.BlockKind, ids.ID(id), bytes, nil)
			return err
		},
		Indexed: m.indexedBlocks(c),
		OnStart: func(ctx context.Context, inst *rpcchainvm.Instance) error {
			return m.backfill(ctx, c, inst, bootstrap)
		},
		OnStateChange:     m.onStateChange(c),
		Listener:          c.listener,
		Names:             append(m.opts.Aliases.Aliases(c.ID), c.ID.String()),
		Log:               log,
		RestartBackoff:    m.opts.Config.PluginRestartBackoff,
		MaxRestartBackoff: m.opts.Config.PluginRestartMaxBackoff,
	}
	inst, err := rpcchainvm.Start(ctx, opts)
	if err != nil {
		return fmt.Errorf("start VM %s: %w", vm.ID, err)
	}
	c.setInstance(inst, vm)
	m.publish(c, pluginhost.Running)
	m.opts.Log.Info("chain started", "chain", c.Alias, "id", c.ID, "vm", vm.ID, "runtime", "rpcchainvm", "sha256", vm.SHA256, "handlers", inst.Handlers())
	return nil
}

// indexedBlocks reads c's block index from a position on; nil when the
// node does not index.
func (m *Manager) indexedBlocks(c *Chain) func(ctx context.Context, from uint64, fn func([]byte) error) error {
	if m.opts.Indexes == nil {
		return nil
	}
	ix := m.opts.Indexes.Index(c.ID, rpcchainvm.BlockKind)
	return func(ctx context.Context, from uint64, fn func([]byte) error) error {
		n, err := ix.Len()
		if err != nil {
			return err
		}
		for pos := from; pos < n; pos++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			ct, err := ix.GetByIndex(pos)
			if err != nil {
				return fmt.Errorf("index position %d: %w", pos, err)
			}
			if err := fn(ct.Bytes); err != nil {
				return err
			}
		}
		return nil
	}
}

// chainID is the ID of the node's chain alias, or the empty ID when the
// node has none.
func (m *Manager) chainID(alias string) avaids.ID {
	id, _ := m.opts.Aliases.Resolve(alias)
	return avaids.ID(id)
}

// avaxAssetID asks the P-Chain its staking asset, AVAX; the empty ID when
// the node runs no P-Chain.
func (m *Manager) avaxAssetID(ctx context.Context) avaids.ID {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"platform.getStakingAssetID","params":{}}`)
	code, out, err := caller{m: m}.Call(ctx, "P", "", body)
	if err != nil || code != 200 {
		return avaids.Empty
	}
	var reply struct {
		Result struct {
			AssetID string `json:"assetID"`
		} `json:"result"`
	}
	if json.Unmarshal(out, &reply) != nil {
		return avaids.Empty
	}
	id, err := avaids.FromString(reply.Result.AssetID)
	if err != nil {
		return avaids.Empty
	}
	return id
}
