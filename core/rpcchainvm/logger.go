package rpcchainvm

import (
	"io"

	"github.com/ava-labs/avalanchego/utils/logging"
	"github.com/hashicorp/go-hclog"
)

// avalancheLogger is the logger avalanchego's runtime and VM client log
// to, host side: their lines go to the chain's logger.
func avalancheLogger(l hclog.Logger) logging.Logger {
	w := l.StandardWriter(&hclog.StandardLoggerOptions{InferLevels: true})
	return logging.NewLogger("", logging.NewWrappedCore(logging.Info, nopCloser{w}, logging.Plain.ConsoleEncoder()))
}

// nopCloser lets a writer stand where a WriteCloser is asked for; the
// chain's logger outlives every logger made over it.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
