package logging

import (
	"os"
	"sync"
)

// fileWriter is a log file that can be closed while loggers still hold it;
// writes after Close are dropped.
type fileWriter struct {
	mu sync.Mutex
	f  *os.File
}

// Write appends p to the file, or drops it once the file is closed.
func (w *fileWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return len(p), nil
	}
	return w.f.Write(p)
}

// Close closes the file; later writes are dropped.
func (w *fileWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}
