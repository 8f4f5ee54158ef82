package rest

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealthAndUnservable: a health check answers every check up, or 503
// naming the first that fails in name order; an unservable path answers
// 404 saying so, unlike the mux's unknown-path 404.
func TestHealthAndUnservable(t *testing.T) {
	var storeErr, cacheErr error
	m := NewMux(MuxOptions{})
	m.Handle("/health", Health(map[string]HealthCheck{
		"store": func(context.Context) error { return storeErr },
		"cache": func(context.Context) error { return cacheErr },
	}))
	m.Handle("/usage", Unservable("the hosted service's own records"))
	get := func(path string) (int, string) {
		w := httptest.NewRecorder()
		m.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		b, _ := io.ReadAll(w.Result().Body)
		return w.Code, strings.TrimSpace(string(b))
	}
	for _, tc := range []struct {
		name         string
		store, cache error
		path         string
		status       int
		body         string
	}{
		{"up", nil, nil, "/health", 200, `{"status":"ok","info":{"cache":{"status":"up"},"store":{"status":"up"}},"error":{},"details":{"cache":{"status":"up"},"store":{"status":"up"}}}`},
		{"down", errors.New("disk gone"), nil, "/health", 503, `{"message":"health check store: down","statusCode":503,"error":"Service Unavailable"}`},
		{"first down", errors.New("disk gone"), errors.New("evicted"), "/health", 503, `{"message":"health check cache: down","statusCode":503,"error":"Service Unavailable"}`},
		{"unservable", nil, nil, "/usage", 404, `{"message":"/usage is not served by a self-hosted node: the hosted service's own records","statusCode":404,"error":"Not Found"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			storeErr, cacheErr = tc.store, tc.cache
			if status, body := get(tc.path); status != tc.status || body != tc.body {
				t.Errorf("GET %s = %d %s, want %d %s", tc.path, status, body, tc.status, tc.body)
			}
		})
	}
}
