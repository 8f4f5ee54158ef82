package evm

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/eth/tracers/logger"
)

// TestTraceClamp: a trace config's tracer timeout is held to the chain's
// limit when missing or larger, kept when smaller, left for go-ethereum to
// refuse when it is not a duration; with no limit nothing changes.
func TestTraceClamp(t *testing.T) {
	str := func(s string) *string { return &s }
	limited := traceAPI{limit: 2 * time.Second}
	tests := []struct {
		name   string
		api    traceAPI
		config *tracers.TraceConfig
		want   *string
	}{
		{"no config", limited, nil, str("2s")},
		{"no timeout", limited, &tracers.TraceConfig{Tracer: str("callTracer")}, str("2s")},
		{"larger", limited, &tracers.TraceConfig{Timeout: str("1h")}, str("2s")},
		{"smaller", limited, &tracers.TraceConfig{Timeout: str("500ms")}, str("500ms")},
		{"not a duration", limited, &tracers.TraceConfig{Timeout: str("soon")}, str("soon")},
		{"no limit", traceAPI{}, &tracers.TraceConfig{Timeout: str("1h")}, str("1h")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.api.clamp(tt.config)
			if got == nil || got.Timeout == nil || *got.Timeout != *tt.want {
				t.Fatalf("clamp = %+v, want timeout %s", got, *tt.want)
			}
			if tt.config != nil && tt.config.Tracer != nil && got.Tracer != tt.config.Tracer {
				t.Fatal("clamp dropped the tracer")
			}
		})
	}

	raw := []struct{ in, want string }{
		{`{"tracer":"callTracer"}`, `{"timeout":"2s","tracer":"callTracer"}`},
		{`{"timeout":"1h"}`, `{"timeout":"2s"}`},
		{`{"Timeout":"1s"}`, `{"Timeout":"1s"}`},
		{`{"Timeout":"1s","TIMEOUT":"1h"}`, `{"timeout":"2s"}`},
		{`{"timeout":"soon"}`, `{"timeout":"soon"}`},
		{`{"timeout":5}`, `{"timeout":5}`},
		{`[1]`, `[1]`},
	}
	for _, r := range raw {
		got, err := limited.clampRaw(json.RawMessage(r.in))
		if err != nil || string(got) != r.want {
			t.Errorf("clampRaw(%s) = %s, %v; want %s", r.in, got, err, r.want)
		}
	}
}

// TestTraceSizeClamp: the struct logger's output limit is held to the
// chain's rpc-trace-max-size when missing, zero or larger, and kept when
// smaller, in a decoded config and in one kept as JSON.
func TestTraceSizeClamp(t *testing.T) {
	capped := traceAPI{maxSize: 1000}
	tests := []struct {
		name   string
		config *tracers.TraceConfig
		want   int
	}{
		{"no config", nil, 1000},
		{"no logger config", &tracers.TraceConfig{}, 1000},
		{"zero: unlimited", &tracers.TraceConfig{Config: &logger.Config{EnableMemory: true}}, 1000},
		{"larger", &tracers.TraceConfig{Config: &logger.Config{Limit: 5000}}, 1000},
		{"smaller", &tracers.TraceConfig{Config: &logger.Config{Limit: 10}}, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := capped.clamp(tt.config)
			if got.Config == nil || got.Config.Limit != tt.want {
				t.Fatalf("clamp = %+v, want limit %d", got.Config, tt.want)
			}
			if tt.config != nil && tt.config.Config != nil && got.Config.EnableMemory != tt.config.Config.EnableMemory {
				t.Fatal("clamp dropped the logger's options")
			}
		})
	}

	both := traceAPI{limit: 2 * time.Second, maxSize: 1000}
	raw := []struct{ in, want string }{
		{`{}`, `{"limit":1000,"timeout":"2s"}`},
		{`{"limit":10,"timeout":"1s"}`, `{"limit":10,"timeout":"1s"}`},
		{`{"Limit":0,"timeout":"1s"}`, `{"limit":1000,"timeout":"1s"}`},
		{`{"limit":5000,"LIMIT":1}`, `{"limit":1000,"timeout":"2s"}`},
		{`{"limit":"x","timeout":"1s"}`, `{"limit":"x","timeout":"1s"}`},
	}
	for _, r := range raw {
		got, err := both.clampRaw(json.RawMessage(r.in))
		if err != nil || string(got) != r.want {
			t.Errorf("clampRaw(%s) = %s, %v; want %s", r.in, got, err, r.want)
		}
	}
}
