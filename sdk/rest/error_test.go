package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// decodeBody decodes an error answer, checking that it is JSON with exactly
// the three members of ErrorBody.
func decodeBody(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", rec.Body.String(), err)
	}
	for _, member := range []string{"message", "statusCode", "error"} {
		if _, ok := body[member]; !ok {
			t.Errorf("body %s lacks %q", rec.Body.String(), member)
		}
	}
	if len(body) != 3 {
		t.Errorf("body %s has %d members, want 3", rec.Body.String(), len(body))
	}
	return body
}

func TestWriteErrorStatuses(t *testing.T) {
	tests := []struct {
		err    *Error
		status int
		name   string
	}{
		{Errorf(400, "m400"), 400, "Bad Request"},
		{Errorf(401, "m401"), 401, "Unauthorized"},
		{Errorf(403, "m403"), 403, "Forbidden"},
		{Errorf(404, "m404"), 404, "Not Found"},
		{Errorf(429, "m429"), 429, "Too Many Requests"},
		{Errorf(500, "m500"), 500, "Internal Server Error"},
		{Errorf(502, "m502"), 502, "Bad Gateway"},
		{Errorf(503, "m503"), 503, "Service Unavailable"},
		{BadRequest("m%d", 400), 400, "Bad Request"},
		{Forbidden("m%d", 403), 403, "Forbidden"},
		{NotFound("m%d", 404), 404, "Not Found"},
		{Unavailable("m%d", 503), 503, "Service Unavailable"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			if got := StatusName(tt.status); got != tt.name {
				t.Errorf("StatusName(%d) = %q, want %q", tt.status, got, tt.name)
			}
			rec := httptest.NewRecorder()
			WriteError(rec, tt.err)
			if rec.Code != tt.status {
				t.Errorf("status %d, want %d", rec.Code, tt.status)
			}
			body := decodeBody(t, rec)
			want := map[string]any{
				"message":    fmt.Sprintf("m%d", tt.status),
				"statusCode": float64(tt.status),
				"error":      tt.name,
			}
			if !reflect.DeepEqual(body, want) {
				t.Errorf("body %v, want %v", body, want)
			}
		})
	}
}

func TestStatusNameOthers(t *testing.T) {
	tests := []struct {
		status int
		want   string
	}{
		{http.StatusConflict, "Conflict"},
		{http.StatusGatewayTimeout, "Gateway Timeout"},
		{599, "Status 599"},
	}
	for _, tt := range tests {
		if got := StatusName(tt.status); got != tt.want {
			t.Errorf("StatusName(%d) = %q, want %q", tt.status, got, tt.want)
		}
	}
}

func TestWriteErrorHidesCauses(t *testing.T) {
	const secret = "dial tcp 10.0.0.7:5432: password authentication failed"
	tests := []struct {
		name    string
		err     error
		status  int
		message string
	}{
		{"plain error", errors.New(secret), 500, "internal error"},
		{"nil error", nil, 500, "internal error"},
		{"wrapped plain error", fmt.Errorf("load page: %w", errors.New(secret)), 500, "internal error"},
		{"Error with cause", Unavailable("chain C is not running").WithCause(errors.New(secret)), 503, "chain C is not running"},
		{"wrapped Error", fmt.Errorf("handler: %w", NotFound("no block 7")), 404, "no block 7"},
		{"Error with a status that is no error", &Error{Status: 200, Message: "odd"}, 500, "odd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			WriteError(rec, tt.err)
			if rec.Code != tt.status {
				t.Errorf("status %d, want %d", rec.Code, tt.status)
			}
			body := decodeBody(t, rec)
			if body["message"] != tt.message || body["statusCode"] != float64(tt.status) || body["error"] != StatusName(tt.status) {
				t.Errorf("body %v, want message %q status %d", body, tt.message, tt.status)
			}
			if strings.Contains(rec.Body.String(), "password") || strings.Contains(rec.Body.String(), "10.0.0.7") {
				t.Errorf("body %s leaks the cause", rec.Body.String())
			}
		})
	}
}

func TestWriteErrorMessages(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		want   []any
	}{
		{"single message", BadRequest("chainId: unknown"), 400, []any{"chainId: unknown"}},
		{"several problems", problems([]string{"a: bad", "b: worse"}), 400, []any{"a: bad", "b: worse"}},
		{"plain error", errors.New("secret"), 500, []any{"internal error"}},
		{"rate limited", Errorf(429, "slow down"), 429, []any{"slow down"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			WriteErrorMessages(rec, tt.err)
			if rec.Code != tt.status {
				t.Errorf("status %d, want %d", rec.Code, tt.status)
			}
			body := decodeBody(t, rec)
			if !reflect.DeepEqual(body["message"], tt.want) {
				t.Errorf("message %#v, want %#v", body["message"], tt.want)
			}
			if body["statusCode"] != float64(tt.status) || body["error"] != StatusName(tt.status) {
				t.Errorf("body %v, want status %d", body, tt.status)
			}
		})
	}
}

func TestErrorWriterFor(t *testing.T) {
	prefixes := []string{"/v1", "/v3/old"}
	tests := []struct {
		path string
		want string // the body's message
	}{
		{"/v1", `["gone"]`},
		{"/v1/avg_tps/C", `["gone"]`},
		{"/v3/old/x", `["gone"]`},
		{"/v1x/avg_tps", `"gone"`},
		{"/v2/networks/fuji/metrics/validatorCount", `"gone"`},
		{"/v3/older", `"gone"`},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		ErrorWriterFor(prefixes, tt.path)(rec, Unavailable("gone"))
		want := `{"message":` + tt.want + `,"statusCode":503,"error":"Service Unavailable"}` + "\n"
		if rec.Code != 503 || rec.Body.String() != want {
			t.Errorf("%s: %d %s, want 503 %s", tt.path, rec.Code, rec.Body.String(), want)
		}
	}
	rec := httptest.NewRecorder()
	ErrorWriterFor(nil, "/v1/avg_tps")(rec, NotFound("no"))
	if want := `{"message":"no","statusCode":404,"error":"Not Found"}` + "\n"; rec.Body.String() != want {
		t.Errorf("no prefixes: %s, want %s", rec.Body.String(), want)
	}
}

func TestErrorText(t *testing.T) {
	cause := errors.New("disk full")
	e := Unavailable("index unavailable").WithCause(cause)
	if got, want := e.Error(), "index unavailable: disk full"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(e, cause) {
		t.Error("errors.Is does not find the cause")
	}
	if got := BadRequest("x").Error(); got != "x" {
		t.Errorf("Error() without cause = %q, want x", got)
	}
	base := NotFound("gone")
	_ = base.WithCause(cause)
	if base.Cause != nil {
		t.Error("WithCause changed its receiver")
	}
}

func TestWriteJSON(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteJSON(rec, http.StatusOK, map[string]int{"n": 1})
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" || strings.TrimSpace(rec.Body.String()) != `{"n":1}` {
		t.Errorf("got %d %q %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}

	rec = httptest.NewRecorder()
	WriteJSON(rec, http.StatusOK, map[string]any{"f": func() {}})
	if rec.Code != 500 {
		t.Errorf("unencodable value: status %d, want 500", rec.Code)
	}
	if body := decodeBody(t, rec); body["message"] != "internal error" {
		t.Errorf("unencodable value: body %v", body)
	}

	// An appender writes itself, whatever its fields would encode as;
	// answers from reused buffers do not mix.
	for _, n := range []int{3, 1, 2000} {
		rec = httptest.NewRecorder()
		WriteJSON(rec, http.StatusCreated, numbers(n))
		want := "[" + strings.Repeat("7,", n-1) + "7]\n"
		if rec.Code != http.StatusCreated || rec.Header().Get("Content-Type") != "application/json" || rec.Body.String() != want {
			t.Errorf("appender of %d: %d %q %q", n, rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
		}
	}
}

// numbers is a JSONAppender: an array of that many 7s.
type numbers int

func (n numbers) AppendJSON(b []byte) []byte {
	b = append(b, '[')
	for i := range int(n) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '7')
	}
	return append(b, ']')
}
