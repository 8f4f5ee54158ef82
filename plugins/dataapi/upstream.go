package dataapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/sdk/rest"
)

// upstreamTimeout bounds one call to the upstream node.
const upstreamTimeout = 10 * time.Second

// upstreamMaxBody is the largest answer read from the upstream node.
const upstreamMaxBody = 10 << 20

// upstream reaches the chains of the node that runs them (the indexer's)
// over its public HTTP API, for an API-only instance, which runs none: it
// is the instance's host.ChainCaller (docs/data-api.md, "Scaling out").
type upstream struct {
	base   *url.URL
	client *http.Client
}

// newUpstream returns the caller of the node at base.
func newUpstream(base string) (*upstream, error) {
	u, err := url.Parse(strings.TrimSuffix(base, "/"))
	if err != nil {
		return nil, fmt.Errorf("upstream-url: %w", err)
	}
	return &upstream{base: u, client: &http.Client{Timeout: upstreamTimeout}}, nil
}

// Call POSTs body to a handler of chain on the upstream node. The API
// calls a chain's internal indexer handler only for eth_getBalance, which
// the chain's public rpc handler answers too: the internal handler is
// never served publicly.
func (u *upstream) Call(ctx context.Context, chain, handlerPath string, body []byte) (int, []byte, error) {
	if handlerPath == evmapi.IndexerHandler {
		handlerPath = "rpc"
	}
	target := u.base.JoinPath("ext", "bc", chain, handlerPath)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target.String(), bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := u.client.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("upstream %s: %w", u.base.Redacted(), err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, upstreamMaxBody+1))
	if err != nil {
		return 0, nil, fmt.Errorf("upstream %s: read the answer: %w", u.base.Redacted(), err)
	}
	if len(out) > upstreamMaxBody {
		return 0, nil, fmt.Errorf("upstream %s: an answer over %d bytes", u.base.Redacted(), upstreamMaxBody)
	}
	return resp.StatusCode, out, nil
}

// proxy returns a handler that forwards requests to the same path of the
// upstream node: the vertices, which its X-Chain serves.
func (u *upstream) proxy(log hclog.Logger) http.Handler {
	p := httputil.NewSingleHostReverseProxy(u.base)
	p.Transport = &http.Transport{ResponseHeaderTimeout: upstreamTimeout}
	p.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		if !errors.Is(err, context.Canceled) {
			log.Warn("upstream does not answer", "path", r.URL.Path, "error", err)
		}
		rest.WriteError(w, rest.Unavailable("the upstream node does not answer: the vertex cannot be read").WithCause(err))
	}
	return p
}
