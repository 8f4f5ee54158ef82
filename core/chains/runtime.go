package chains

import (
	"context"
	"net/http"

	dto "github.com/prometheus/client_model/go"

	"github.com/chainhost/chainhost/core/pluginhost"
	"github.com/chainhost/chainhost/transport/httpwire"
)

// Runtime is a chain's running VM plugin, of either runtime: a
// *pluginhost.Instance (chainhost's protocol) or an *rpcchainvm.Instance
// (avalanchego's, docs/rpcchainvm.md). Nothing above this package knows
// which.
type Runtime interface {
	State() (pluginhost.State, string)
	Health(ctx context.Context) pluginhost.Health
	Metrics(ctx context.Context) ([]*dto.MetricFamily, error)
	SetLogLevel(ctx context.Context, level string) error
	Stop(ctx context.Context) error

	// Handlers are the public handler names; InternalHandlers those only
	// the host's chain calls reach.
	Handlers() []string
	InternalHandlers() []string
	Serves(name string, internal bool) bool
	Handler(name string, onError httpwire.ErrorWriter) http.Handler

	acceptedSource
}
