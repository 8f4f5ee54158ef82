package indexer

import (
	"testing"
	"time"
)

// TestRate: the rate is the blocks indexed over the last rateWindow, the
// time left is what remains at that rate, and a rollback starts over.
func TestRate(t *testing.T) {
	var r rate
	t0 := time.Unix(1_000_000, 0)
	if v, eta := r.observe(t0, 100, 1100); v != 0 || eta != 0 {
		t.Fatalf("first sample: %v %v, want no rate yet", v, eta)
	}
	// 50 blocks a second for 4 s.
	var v float64
	var eta time.Duration
	for i := 1; i <= 4; i++ {
		v, eta = r.observe(t0.Add(time.Duration(i)*time.Second), uint64(100+50*i), 1100)
	}
	if v != 50 || eta != 16*time.Second {
		t.Fatalf("after 4 s at 50 blocks/s, 800 behind: %v blocks/s, eta %v; want 50 and 16s", v, eta)
	}
	// Samples older than the window stop counting: now 100 blocks a second.
	for i := 5; i <= 20; i++ {
		v, eta = r.observe(t0.Add(time.Duration(i)*time.Second), uint64(300+100*(i-4)), 2000)
	}
	if v != 100 || eta != time.Second {
		t.Fatalf("after 16 s more at 100 blocks/s, 100 behind: %v blocks/s, eta %v; want 100 and 1s", v, eta)
	}
	// Caught up: no time left.
	if _, eta := r.observe(t0.Add(21*time.Second), 2000, 2000); eta != 0 {
		t.Fatalf("caught up: eta %v, want 0", eta)
	}
	// A rollback (the height goes down) starts the measure over.
	if v, eta := r.observe(t0.Add(22*time.Second), 1990, 2005); v != 0 || eta != 0 {
		t.Fatalf("after a rollback: %v %v, want no rate until a second has passed", v, eta)
	}
}
