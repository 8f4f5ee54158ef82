package chains

import (
	"fmt"
	"strings"

	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/sdk/ids"
)

// The host's records of the chain each primary alias named, and where the
// chains keep their state, in the node's database.
const (
	recordsNS = "chain-ids"
	statesNS  = "chains"
)

// checkRecorded refuses a data dir that holds a configured chain under
// another ID than the one the config gives it now (its `id` was added or
// changed, or its derived ID moved with its VM, genesis or alias), so
// that no chain runs half on old state (docs/local-network.md, "Data dirs
// of earlier versions"). A data dir without records, made before the host
// kept them, is refused when it holds the state of a chain no configured
// chain has. Then it records each enabled chain's ID under its primary
// alias.
func (m *Manager) checkRecorded() error {
	records := m.opts.DB.Namespace("host").Namespace(recordsNS)
	recorded := map[string]ids.ID{}
	err := records.Iterate(nil, nil, func(k, v []byte) error {
		id, err := ids.FromBytes(v)
		if err != nil {
			return fmt.Errorf("recorded ID of chain %s: %w", k, err)
		}
		recorded[string(k)] = id
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the chains' recorded IDs: %w", err)
	}
	dir := m.opts.Config.DataDir
	for _, c := range m.chains {
		if old, ok := recorded[c.Alias]; ok && old != c.ID {
			return fmt.Errorf("chain %s: its ID is now %s (%s), but the data dir %s holds the chain as %s: "+
				"start with a new --data-dir, or remove %s to start every chain anew (docs/local-network.md)",
				c.Alias, c.ID, idSource(c.Config), dir, old, dir)
		}
	}
	if len(recorded) == 0 {
		if err := m.checkUnrecorded(dir); err != nil {
			return err
		}
	}
	b := records.NewBatch()
	for _, c := range m.chains {
		b.Put([]byte(c.Alias), c.ID[:])
	}
	if err := m.opts.DB.Write(b, true); err != nil {
		return fmt.Errorf("record the chains' IDs: %w", err)
	}
	return nil
}

// checkUnrecorded refuses a data dir without records that holds the state
// of a chain no configured chain (enabled or not) has: one made before the
// host recorded its chains' IDs, whose X-, P- and C-Chains had IDs of
// their own.
func (m *Manager) checkUnrecorded(dir string) error {
	held, err := m.opts.DB.Namespace(statesNS).Names()
	if err != nil {
		return fmt.Errorf("list the chains the data dir holds: %w", err)
	}
	known := map[string]bool{}
	for _, cc := range m.opts.Config.Chains {
		if c, err := newChain(cc); err == nil {
			known[c.ID.String()] = true
		}
	}
	var stray []string
	for _, id := range held {
		if !known[id] {
			stray = append(stray, id)
		}
	}
	if len(stray) == 0 {
		return nil
	}
	var now []string
	for _, c := range m.chains {
		now = append(now, fmt.Sprintf("%s %s", c.Alias, c.ID))
	}
	return fmt.Errorf("the data dir %s holds chains %s that no chain of the config has: it was likely made by an earlier "+
		"chainhost, whose X-, P- and C-Chains had IDs of their own, where they now carry avalanchego's local-network IDs "+
		"(the config's chains: %s). Start with a new --data-dir, or remove %s to start every chain anew (docs/local-network.md)",
		dir, strings.Join(stray, ", "), strings.Join(now, ", "), dir)
}

// idSource says where a chain's ID comes from.
func idSource(cc config.Chain) string {
	if cc.ID != "" {
		return "the id of its config"
	}
	return "derived from its VM, genesis and alias"
}
