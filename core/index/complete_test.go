package index

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/chainhost/chainhost/sdk/ids"
)

// TestMarkComplete: after MarkComplete the index is complete again, until
// the next run with indexing off marks it incomplete anew; the start-up
// rule of docs/index.md still applies.
func TestMarkComplete(t *testing.T) {
	first, dir := openDB(t)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name           string
		enabled, allow bool
		complete       bool // call MarkComplete after the check
		wantIncomplete bool
		wantErr        bool
	}{
		{name: "on", enabled: true},
		{name: "off, allowed", allow: true, wantIncomplete: true},
		{name: "on, still incomplete", enabled: true, wantIncomplete: true, complete: true},
		{name: "on after MarkComplete", enabled: true},
		{name: "off without allow: refused", wantErr: true},
		{name: "off, allowed again", allow: true, wantIncomplete: true},
		{name: "on, incomplete again", enabled: true, wantIncomplete: true},
		{name: "MarkComplete twice", enabled: true, wantIncomplete: true, complete: true},
		{name: "complete", enabled: true},
	}
	for i, s := range steps {
		db := openDBAt(t, dir)
		ns := db.Namespace("node")
		incomplete, err := CheckStartup(ns, s.enabled, s.allow)
		switch {
		case s.wantErr && err == nil:
			t.Fatalf("step %d (%s): CheckStartup succeeded, want refusal", i, s.name)
		case !s.wantErr && err != nil:
			t.Fatalf("step %d (%s): %v", i, s.name, err)
		case !s.wantErr && incomplete != s.wantIncomplete:
			t.Fatalf("step %d (%s): incomplete = %v, want %v", i, s.name, incomplete, s.wantIncomplete)
		}
		if s.complete {
			for range 2 {
				if err := MarkComplete(ns); err != nil {
					t.Fatalf("step %d (%s): MarkComplete: %v", i, s.name, err)
				}
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHexWithChecksum: the index's own encoder of container bytes writes
// exactly what ids.HexWithChecksum writes, which ids decodes back.
func TestHexWithChecksum(t *testing.T) {
	for _, size := range []int{0, 1, 255, 256, 257, 1024, 5000} {
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(i*7 + size)
		}
		got := hexWithChecksum(b)
		if want := ids.HexWithChecksum(b); got != want {
			t.Fatalf("size %d: %.80s, want %.80s", size, got, want)
		}
		back, err := ids.DecodeHexWithChecksum(got)
		if err != nil || !bytes.Equal(back, b) {
			t.Fatalf("size %d: decoded %v", size, err)
		}
	}
}

// TestAppendWire: the hand-written JSON of a container is byte for byte
// what encoding/json writes for its wire form.
func TestAppendWire(t *testing.T) {
	var cs []Container
	for k := range uint64(9) {
		e := entry(k)
		cs = append(cs, Container{ID: e.ID, Bytes: e.Bytes, Index: k * 1e15, Timestamp: e.Timestamp})
	}
	cs = append(cs,
		Container{Timestamp: time.Unix(0, 0)},
		Container{Bytes: []byte{0}, Timestamp: minStamp, Index: 1<<64 - 1},
		Container{Bytes: []byte{0xff}, Timestamp: maxStamp.In(time.FixedZone("x", -7*3600))},
		Container{Timestamp: time.Date(2024, 1, 2, 3, 4, 5, 100, time.FixedZone("y", 5*3600+1800))},
	)
	var wires []wireContainer
	for _, c := range cs {
		want, err := json.Marshal(toWire(c))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendWire(nil, c); string(got) != string(want) {
			t.Fatalf("container %d:\n got %s\nwant %s", c.Index, got, want)
		}
		if len(appendWire(nil, c)) > wireSize(c) {
			t.Fatalf("container %d: wireSize %d under the length %d", c.Index, wireSize(c), len(appendWire(nil, c)))
		}
		wires = append(wires, toWire(c))
	}
	want, err := json.Marshal(wires)
	if err != nil {
		t.Fatal(err)
	}
	if got := appendWires(nil, cs); string(got) != string(want) {
		t.Fatalf("array:\n got %s\nwant %s", got, want)
	}
	if got := appendWires(nil, nil); string(got) != "[]" {
		t.Fatalf("empty array: %s", got)
	}
}
