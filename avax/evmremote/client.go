package evmremote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"golang.org/x/time/rate"
)

// Defaults of Options.
const (
	DefaultMaxResponseBytes = 128 << 20
	DefaultTimeout          = 30 * time.Second
)

// Options are where a Client connects and how hard it may ask.
type Options struct {
	// URL is the node's HTTP(S) JSON-RPC URL.
	URL string
	// InFlight is how many requests may be under way at once (0: one).
	InFlight int
	// RequestsPerSecond limits how often a request starts (0: no limit).
	RequestsPerSecond float64
	// MaxResponseBytes refuses a larger answer, so that a hostile one
	// never fills memory (0: DefaultMaxResponseBytes).
	MaxResponseBytes int64
	// Timeout bounds one request (0: DefaultTimeout).
	Timeout time.Duration
	// HTTPClient, optional, sends the requests (its Transport, if set, is
	// wrapped in the limits above).
	HTTPClient *http.Client
}

// OptionsOf returns the Options of an external chain's config.
func OptionsOf(c Chain) Options {
	c = c.WithDefaults()
	return Options{URL: c.RPCURL, InFlight: c.RequestsInFlight, RequestsPerSecond: c.RequestsPerSecond}
}

// Client reads one EVM chain through a node's standard JSON-RPC, under
// the limits of its Options. It is safe for concurrent use. It never
// retries: an error says what the node did (Classify, RetryAfter), and
// the caller decides when to ask again.
type Client struct {
	url  string
	http *http.Client
	rpc  *rpc.Client

	probeMu sync.Mutex
	caps    *capabilities // nil until the first block with transactions
}

// Dial returns a Client of the node at opts.URL. It sends no request.
func Dial(ctx context.Context, opts Options) (*Client, error) {
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("evmremote: URL %q is not an http(s) URL", opts.URL)
	}
	if opts.InFlight <= 0 {
		opts.InFlight = 1
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	hc := &http.Client{}
	if opts.HTTPClient != nil {
		*hc = *opts.HTTPClient
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	lim := &limiter{base: base, sem: make(chan struct{}, opts.InFlight), max: opts.MaxResponseBytes}
	if opts.RequestsPerSecond > 0 {
		lim.rate = rate.NewLimiter(rate.Limit(opts.RequestsPerSecond), 1)
	}
	hc.Transport = lim
	hc.Timeout = opts.Timeout
	rc, err := rpc.DialOptions(ctx, opts.URL, rpc.WithHTTPClient(hc))
	if err != nil {
		return nil, fmt.Errorf("evmremote: %w", err)
	}
	return &Client{url: opts.URL, http: hc, rpc: rc}, nil
}

// Close releases the client's connections.
func (c *Client) Close() {
	c.rpc.Close()
	c.http.CloseIdleConnections()
}

// ChainID returns the chain's EVM chain ID (eth_chainId).
func (c *Client) ChainID(ctx context.Context) (uint64, error) {
	var id hexutil.Uint64
	if err := c.rpc.CallContext(ctx, &id, "eth_chainId"); err != nil {
		return 0, fmt.Errorf("eth_chainId: %w", c.wrap(err))
	}
	return uint64(id), nil
}

// Call is sdk/host.ChainCaller over the node's URL: it POSTs body (a
// JSON-RPC request or batch) under the client's limits, whatever chain
// and handler name, so that a JSON-RPC client written for a chain call
// reads a remote node unchanged. An HTTP status other than 2xx is
// answered as the status and the start of the body, with the *HTTPError
// as the error, so that Classify tells a 429 from a 500 whoever called.
func (c *Client) Call(ctx context.Context, _, _ string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("evmremote: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		var he *HTTPError
		if errors.As(err, &he) {
			return he.StatusCode, []byte(he.Body), c.wrap(he)
		}
		return 0, nil, c.wrap(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, c.wrap(err)
	}
	return resp.StatusCode, b, nil
}

// wrap names the node in err.
func (c *Client) wrap(err error) error {
	return fmt.Errorf("%s: %w", c.url, err)
}

// limiter is the client's transport: at most cap(sem) requests at once
// (a request holds its slot until its body is closed), at most rate a
// second, answers capped at max bytes, and a status other than 2xx turned
// into an *HTTPError that keeps Retry-After.
type limiter struct {
	base http.RoundTripper
	sem  chan struct{}
	rate *rate.Limiter
	max  int64
}

func (l *limiter) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	release := sync.OnceFunc(func() { <-l.sem })
	if l.rate != nil {
		if err := l.rate.Wait(ctx); err != nil {
			release()
			return nil, err
		}
	}
	resp, err := l.base.RoundTrip(req)
	if err != nil {
		release()
		return nil, err
	}
	if resp.ContentLength > l.max {
		resp.Body.Close()
		release()
		return nil, fmt.Errorf("%w: %d bytes, over %d", ErrTooLarge, resp.ContentLength, l.max)
	}
	resp.Body = &cappedBody{r: resp.Body, left: l.max, release: release}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		defer resp.Body.Close()
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, &HTTPError{
			StatusCode: resp.StatusCode,
			Status:     resp.Status,
			RetryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now()),
			Body:       string(snippet),
		}
	}
	return resp, nil
}

// maxErrorBody is how much of an error answer's body an HTTPError keeps.
const maxErrorBody = 512

// cappedBody fails a read past its limit and releases the request's slot
// when closed.
type cappedBody struct {
	r       io.ReadCloser
	left    int64
	release func()
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the limit from a longer one.
		var one [1]byte
		if n, err := b.r.Read(one[:]); n > 0 {
			return 0, ErrTooLarge
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if err != nil && err != io.EOF {
		err = &cutError{err}
	}
	return n, err
}

// cutError is a read of an answer's body that failed in the transport (the
// connection closed or reset midway): no whole answer came, so the node is
// unreachable. A body that ends cleanly before its JSON does is the node's
// answer, malformed, which the JSON decoder reports as io.ErrUnexpectedEOF.
type cutError struct{ err error }

func (e *cutError) Error() string { return "answer cut: " + e.err.Error() }

func (e *cutError) Unwrap() error { return e.err }

func (b *cappedBody) Close() error {
	err := b.r.Close()
	b.release()
	return err
}

// retryAfter parses a Retry-After header: seconds or an HTTP date; 0 when
// absent or unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
