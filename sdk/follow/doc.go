// Package follow is how a module reads a chain's blocks (docs/modules.md,
// "Reading a chain's blocks"): it learns which blocks were accepted from
// the host's index feed, positions only, and reads what is in them from
// the chain's VM, through chain calls to its internal handler, the one
// authority on its format. Blocks resumes from a position, follows live
// and reads in batches, several in flight, handing the answers over in
// order; Retry starts it over while the chain restarts; Chains finds the
// chains to follow in the host's registry.
package follow
