package chains

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// recorder is a minimal in-memory http.ResponseWriter for chain calls.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	// err is why the call could not reach the handler (callError).
	err error
}

// callError is the error writer of every chain call: it keeps the error
// on the call's recorder, whose caller returns it.
func callError(w http.ResponseWriter, _ *http.Request, status int, err error) {
	if rec, ok := w.(*recorder); ok {
		rec.err = err
	}
	w.WriteHeader(status)
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

func (r *recorder) Flush() {}

// callHandler POSTs a JSON body to a chain's handler, public or internal,
// at the escaped path below it ("" or "/...") and returns the answer.
func callHandler(ctx context.Context, c *Chain, handler, path string, body []byte) (int, []byte, error) {
	u, err := url.Parse(path)
	if err != nil || u.Path != "" && u.Path[0] != '/' || u.RawQuery != "" || u.Fragment != "" || u.Host != "" {
		return 0, nil, fmt.Errorf("chain call %s/%s: path %q is not a path below the handler", c.Alias, handler, path)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("chain call: %w", err)
	}
	req.URL.Path, req.URL.RawPath = u.Path, u.RawPath
	req.Header.Set("Content-Type", "application/json")
	req.RequestURI = fmt.Sprintf("/ext/bc/%s/%s%s", c.ID, handler, path)
	rec := &recorder{header: http.Header{}}
	c.handler(handler, callError, true).ServeHTTP(rec, req)
	if rec.err != nil {
		return rec.status, nil, rec.err
	}
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return rec.status, rec.body.Bytes(), nil
}
