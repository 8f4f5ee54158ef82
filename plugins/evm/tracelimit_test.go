package evm

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/eth/tracers"
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
