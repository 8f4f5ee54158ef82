package host

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// chainPathPrefix is where the node serves its chains' handlers.
const chainPathPrefix = "/ext/bc/"

// ChainURL is the URL a ChainTransport reads as a chain's handler:
// "http://chainhost/ext/bc/<chain>/<handlerPath>". Only its path is used.
func ChainURL(chain, handlerPath string) string {
	return "http://chainhost" + chainPathPrefix + url.PathEscape(chain) + "/" + handlerPath
}

// ChainTransport is an http.RoundTripper that sends each request through
// a ChainCaller to the chain handler its path names, as the node serves
// it (/ext/bc/<chain>/<handler>[/path], ChainURL): a client written for
// a node's URL (go-ethereum's rpc client) reaches a chain of this node
// through the host's chain calls, without a URL. The scheme and host of
// the request are not used; only POST is carried, as chain calls are.
type ChainTransport struct {
	// Calls sends the requests.
	Calls ChainCaller
}

// RoundTrip sends req to its chain handler.
func (t ChainTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("chain call: read request body: %w", err)
		}
		body = b
	}
	if req.Method != http.MethodPost {
		return nil, fmt.Errorf("chain call %s: only POST is carried, not %s", req.URL.Path, req.Method)
	}
	chain, handlerPath, ok := strings.Cut(strings.TrimPrefix(req.URL.Path, chainPathPrefix), "/")
	if !strings.HasPrefix(req.URL.Path, chainPathPrefix) || !ok || chain == "" || handlerPath == "" {
		return nil, fmt.Errorf("chain call: path %q does not name a chain handler (%s<chain>/<handler>)", req.URL.Path, chainPathPrefix)
	}
	status, resp, err := t.Calls.Call(req.Context(), chain, handlerPath, body)
	if err != nil {
		return nil, err
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(resp)),
		ContentLength: int64(len(resp)),
		Request:       req,
	}, nil
}
