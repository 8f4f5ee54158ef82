package host

import (
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/transport/wire"
)

// The converters between the plain Go types and their protobuf messages.

func opsToProto(ops []Op) []*pluginv1.BatchOp {
	out := make([]*pluginv1.BatchOp, len(ops))
	for i, op := range ops {
		out[i] = &pluginv1.BatchOp{Key: op.Key, Value: op.Value, Delete: op.Delete}
	}
	return out
}

func opsFromProto(ops []*pluginv1.BatchOp) []Op {
	out := make([]Op, len(ops))
	for i, op := range ops {
		out[i] = Op{Key: op.GetKey(), Value: op.GetValue(), Delete: op.GetDelete()}
	}
	return out
}

func containerToProto(c Container) *pluginv1.Container {
	return wire.ContainerToProto(c.ID, c.Bytes, c.Index, c.Timestamp)
}

func containerFromProto(c *pluginv1.Container) (Container, error) {
	id, err := wire.ContainerID(c)
	if err != nil {
		return Container{}, err
	}
	return Container{
		ID:        id,
		Bytes:     c.GetBytes(),
		Index:     c.GetIndex(),
		Timestamp: wire.TimeFromProto(c.GetTimestampUnixNano()),
	}, nil
}

func chainToProto(c ChainInfo) *pluginv1.ChainInfo {
	return &pluginv1.ChainInfo{
		Id:         c.ID.String(),
		VmId:       c.VMID.String(),
		VmName:     c.VMName,
		Aliases:    c.Aliases,
		IndexKinds: c.IndexKinds,
		Handlers:   c.Handlers,
		Running:    c.Running,

		InternalHandlers: c.InternalHandlers,
	}
}

func chainFromProto(c *pluginv1.ChainInfo) (ChainInfo, error) {
	id, err := ids.FromString(c.GetId())
	if err != nil {
		return ChainInfo{}, fmt.Errorf("chain ID: %w", err)
	}
	vmID, err := ids.FromString(c.GetVmId())
	if err != nil {
		return ChainInfo{}, fmt.Errorf("chain %s VM ID: %w", id, err)
	}
	return ChainInfo{
		ID:         id,
		VMID:       vmID,
		VMName:     c.GetVmName(),
		Aliases:    c.GetAliases(),
		IndexKinds: c.GetIndexKinds(),
		Handlers:   c.GetHandlers(),
		Running:    c.GetRunning(),

		InternalHandlers: c.GetInternalHandlers(),
	}, nil
}

func sharedToProto(reqs []SharedRequests) []*pluginv1.SharedMemoryRequests {
	out := make([]*pluginv1.SharedMemoryRequests, len(reqs))
	for i, r := range reqs {
		puts := make([]*pluginv1.SharedMemoryElement, len(r.Puts))
		for j, e := range r.Puts {
			puts[j] = &pluginv1.SharedMemoryElement{Key: e.Key, Value: e.Value, Traits: e.Traits}
		}
		out[i] = &pluginv1.SharedMemoryRequests{PeerChainId: r.Peer[:], Puts: puts, Removes: r.Removes}
	}
	return out
}

func sharedFromProto(reqs []*pluginv1.SharedMemoryRequests) ([]SharedRequests, error) {
	return eachFromProto(reqs, func(i int, r *pluginv1.SharedMemoryRequests) (SharedRequests, error) {
		peer, err := ids.FromBytes(r.GetPeerChainId())
		if err != nil {
			return SharedRequests{}, fmt.Errorf("shared memory requests %d: peer chain ID: %w", i, err)
		}
		puts := make([]SharedElement, len(r.GetPuts()))
		for j, e := range r.GetPuts() {
			puts[j] = SharedElement{Key: e.GetKey(), Value: e.GetValue(), Traits: e.GetTraits()}
		}
		return SharedRequests{Peer: peer, Puts: puts, Removes: r.GetRemoves()}, nil
	})
}

func newContainersToProto(cs []NewContainer) []*pluginv1.IndexEntry {
	out := make([]*pluginv1.IndexEntry, len(cs))
	for i, c := range cs {
		out[i] = &pluginv1.IndexEntry{Kind: c.Kind, Id: c.ID[:], Bytes: c.Bytes}
	}
	return out
}

func newContainersFromProto(cs []*pluginv1.IndexEntry) ([]NewContainer, error) {
	return eachFromProto(cs, func(i int, c *pluginv1.IndexEntry) (NewContainer, error) {
		id, err := ids.FromBytes(c.GetId())
		if err != nil {
			return NewContainer{}, fmt.Errorf("container %d (%s): ID: %w", i, c.GetKind(), err)
		}
		return NewContainer{Kind: c.GetKind(), ID: id, Bytes: c.GetBytes()}, nil
	})
}

// eachFromProto converts every message of in with conv, which is told its
// position; the first error ends it.
func eachFromProto[P, T any](in []P, conv func(i int, p P) (T, error)) ([]T, error) {
	out := make([]T, len(in))
	for i, p := range in {
		t, err := conv(i, p)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// idArg returns the ID a call's argument holds, or an InvalidArgument
// status that says which argument, what.
func idArg(b []byte, what string) (ids.ID, error) {
	id, err := ids.FromBytes(b)
	if err != nil {
		return ids.ID{}, status.Error(codes.InvalidArgument, what+": "+err.Error())
	}
	return id, nil
}
