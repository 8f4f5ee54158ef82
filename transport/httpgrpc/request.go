package httpgrpc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/transport/internal/httpmsg"
)

// urlFromProto builds the URL of a request from the escaped path below the
// handler and the raw query. An empty path becomes "/".
func urlFromProto(path, rawQuery string) (*url.URL, error) {
	if path == "" {
		path = "/"
	}
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("path %q does not start with /", path)
	}
	unescaped, err := url.PathUnescape(path)
	if err != nil {
		return nil, fmt.Errorf("path %q: %w", path, err)
	}
	u := &url.URL{Path: unescaped, RawQuery: rawQuery}
	if u.EscapedPath() != path {
		u.RawPath = path
	}
	return u, nil
}

// requestFromProto builds the *http.Request a plugin's handler serves, bound
// to ctx.
func requestFromProto(ctx context.Context, in *pluginv1.HTTPRequest) (*http.Request, error) {
	u, err := urlFromProto(in.GetPath(), in.GetRawQuery())
	if err != nil {
		return nil, err
	}
	method := in.GetMethod()
	if method == "" {
		method = http.MethodGet
	}
	header := make(http.Header, len(in.GetHeaders())+1)
	httpmsg.HeadersFromProto(in.GetHeaders(), header, httpmsg.DropContentLength)
	body := in.GetBody()
	var rc io.ReadCloser = http.NoBody
	if len(body) > 0 {
		rc = io.NopCloser(bytes.NewReader(body))
		header.Set("Content-Length", strconv.Itoa(len(body)))
	}
	requestURI := in.GetRequestUri()
	if requestURI == "" {
		requestURI = u.RequestURI()
	}
	r := &http.Request{
		Method:        method,
		URL:           u,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          rc,
		ContentLength: int64(len(body)),
		Host:          in.GetHost(),
		RemoteAddr:    in.GetRemoteAddr(),
		RequestURI:    requestURI,
	}
	return r.WithContext(ctx), nil
}
