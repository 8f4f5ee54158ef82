// Package syncbuf is a text buffer that many goroutines may write at once:
// the log and output collector of tests and of core/nodetest.
package syncbuf

import (
	"strings"
	"sync"
)

// Buffer collects writes; it is safe for concurrent use. The zero value is
// ready to use.
type Buffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
