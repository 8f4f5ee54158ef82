package evm_test

import (
	"fmt"
	"testing"
)

// TestUnsafeAPIs: the chain declares its dev methods and its personal_
// keystore unsafe in public when its config turns them on, and nothing
// else (debug_ and testing_ included), so that the node refuses to serve
// them beyond loopback without the operator's leave.
func TestUnsafeAPIs(t *testing.T) {
	for _, tt := range []struct {
		config string
		want   string
	}{
		{`{}`, "[]"},
		{`{"debug-api-enabled": true, "testing-api-enabled": true}`, "[]"},
		{`{"dev-api-enabled": true}`, "[dev]"},
		{`{"personal-api-enabled": true}`, "[personal]"},
		{`{"dev-api-enabled": true, "personal-api-enabled": true}`, "[dev personal]"},
	} {
		t.Run(tt.config, func(t *testing.T) {
			if got := fmt.Sprint(startChain(t, 43112, tt.config).h.UnsafeAPIs()); got != tt.want {
				t.Errorf("unsafe APIs %s, want %s", got, tt.want)
			}
		})
	}
}
