package rest

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestMux: GET endpoints answer their value or error; other methods 405
// with Allow; unknown paths 404; every answer is observed once with its
// pattern and status; the error writer is the configured one.
func TestMux(t *testing.T) {
	type seen struct {
		endpoint string
		status   int
	}
	var observed []seen
	for _, tc := range []struct {
		name      string
		writer    ErrorWriter
		method    string
		path      string
		status    int
		body      string
		endpoint  string
		allowHead string
	}{
		{"value", nil, "GET", "/v1/things/7", 200, `{"id":"7"}`, "/v1/things/{id}", ""},
		{"rest error", nil, "GET", "/v1/things/bad", 400, `{"message":"id: must be a number, got \"bad\"","statusCode":400,"error":"Bad Request"}`, "/v1/things/{id}", ""},
		{"other error", nil, "GET", "/v1/things/boom", 500, `{"message":"internal error","statusCode":500,"error":"Internal Server Error"}`, "/v1/things/{id}", ""},
		{"method", nil, "POST", "/v1/things/7", 405, `{"message":"method POST not allowed: use GET","statusCode":405,"error":"Method Not Allowed"}`, "/v1/things/{id}", "GET"},
		{"unknown", nil, "GET", "/v1/nothing", 404, `{"message":"no endpoint GET /v1/nothing","statusCode":404,"error":"Not Found"}`, "none", ""},
		{"messages", WriteErrorMessages, "GET", "/v1/things/bad", 400, `{"message":["id: must be a number, got \"bad\""],"statusCode":400,"error":"Bad Request"}`, "/v1/things/{id}", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			observed = nil
			m := NewMux(MuxOptions{WriteError: tc.writer, Observe: func(endpoint string, status int, _ time.Duration) {
				observed = append(observed, seen{endpoint, status})
			}})
			m.Handle("/v1/things/{id}", func(r *http.Request) (any, error) {
				switch id := r.PathValue("id"); id {
				case "bad":
					return nil, BadRequest("id: must be a number, got %q", id)
				case "boom":
					return nil, errors.New("disk on fire")
				default:
					return map[string]string{"id": id}, nil
				}
			})
			rec := httptest.NewRecorder()
			m.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			body, _ := io.ReadAll(rec.Body)
			if rec.Code != tc.status || strings.TrimSpace(string(body)) != tc.body {
				t.Fatalf("%s %s = %d %s, want %d %s", tc.method, tc.path, rec.Code, body, tc.status, tc.body)
			}
			if got := rec.Header().Get("Allow"); got != tc.allowHead {
				t.Errorf("Allow = %q, want %q", got, tc.allowHead)
			}
			if len(observed) != 1 || observed[0] != (seen{tc.endpoint, tc.status}) {
				t.Errorf("observed %+v, want one {%s %d}", observed, tc.endpoint, tc.status)
			}
		})
	}
}
