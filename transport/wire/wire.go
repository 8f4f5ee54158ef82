// Package wire holds the protobuf conversions shared by the SDK's packages,
// so that none of them exports protocol types to plugin authors. It takes
// plain values, not host types, so that package host can use it too.
package wire

import (
	"fmt"
	"time"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/ids"
)

// TimeToProto returns t as Unix nanoseconds, 0 for the zero time.
func TimeToProto(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// TimeFromProto returns the UTC time of Unix nanoseconds, the zero time for 0.
func TimeFromProto(nanos int64) time.Time {
	if nanos == 0 {
		return time.Time{}
	}
	return time.Unix(0, nanos).UTC()
}

// ContainerToProto returns the message for a container.
func ContainerToProto(id ids.ID, bytes []byte, index uint64, ts time.Time) *pluginv1.Container {
	return &pluginv1.Container{
		Id:                id[:],
		Bytes:             bytes,
		Index:             index,
		TimestampUnixNano: TimeToProto(ts),
	}
}

// ContainerID returns the ID in a container message, checking its length.
func ContainerID(c *pluginv1.Container) (ids.ID, error) {
	id, err := ids.FromBytes(c.GetId())
	if err != nil {
		return ids.ID{}, fmt.Errorf("container %d ID: %w", c.GetIndex(), err)
	}
	return id, nil
}
