package rest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

// fakeClock is a clock that tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newTestLimiter returns a limiter on a fake clock.
func newTestLimiter(t *testing.T, opts LimiterOptions) (*Limiter, *fakeClock) {
	t.Helper()
	l, err := NewLimiter(opts)
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	l.now = clock.Now
	return l, clock
}

// echoKeyName is a handler that answers 200 with the key name it sees.
var echoKeyName = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	for _, h := range APIKeyHeaders() {
		if r.Header.Get(h) != "" {
			http.Error(w, "key header reached the handler", http.StatusTeapot)
			return
		}
	}
	_, _ = w.Write([]byte("key=" + KeyName(r.Context())))
})

// send sends a GET from ip with the given headers (name, value pairs).
func send(h http.Handler, ip string, headers ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, "/v1/chains", nil)
	r.RemoteAddr = ip + ":40000"
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// step is one request of a scripted limiter test and what it must get.
type step struct {
	advance    time.Duration // clock move before the request
	ip         string
	key        string // sent in x-data-api-key when set
	status     int
	limit      string // RateLimit-Limit; "" means absent
	remaining  string
	reset      string
	retryAfter string // "" means absent
}

// runSteps sends each step through l and checks the answer.
func runSteps(t *testing.T, l *Limiter, clock *fakeClock, steps []step) {
	t.Helper()
	h := l.Wrap(echoKeyName)
	for i, s := range steps {
		clock.Advance(s.advance)
		var headers []string
		if s.key != "" {
			headers = []string{"x-data-api-key", s.key}
		}
		rec := send(h, s.ip, headers...)
		got := step{
			advance: s.advance, ip: s.ip, key: s.key,
			status:     rec.Code,
			limit:      rec.Header().Get("RateLimit-Limit"),
			remaining:  rec.Header().Get("RateLimit-Remaining"),
			reset:      rec.Header().Get("RateLimit-Reset"),
			retryAfter: rec.Header().Get("Retry-After"),
		}
		if got != s {
			t.Errorf("step %d: got %+v\n\twant %+v", i, got, s)
		}
		if rec.Code == http.StatusTooManyRequests {
			body := decodeBody(t, rec)
			n, _ := strconv.Atoi(s.retryAfter)
			if body["error"] != "Too Many Requests" || body["statusCode"] != float64(429) ||
				body["message"] != "rate limit exceeded, retry in "+seconds(n) {
				t.Errorf("step %d: 429 body %v", i, body)
			}
		}
	}
}

func TestLimiterAnonymousPerIP(t *testing.T) {
	l, clock := newTestLimiter(t, LimiterOptions{Config: LimitConfig{Anonymous: Limit{PerSecond: 1, Burst: 2}}})
	runSteps(t, l, clock, []step{
		{ip: "10.0.0.1", status: 200, limit: "2", remaining: "1", reset: "1"},
		{ip: "10.0.0.1", status: 200, limit: "2", remaining: "0", reset: "1"},
		{ip: "10.0.0.1", status: 429, limit: "2", remaining: "0", reset: "1", retryAfter: "1"},
		// Another client has its own bucket.
		{ip: "10.0.0.2", status: 200, limit: "2", remaining: "1", reset: "1"},
		{ip: "2001:db8::1", status: 200, limit: "2", remaining: "1", reset: "1"},
		// Half a token back: still refused, one second to wait (rounded up).
		{advance: 500 * time.Millisecond, ip: "10.0.0.1", status: 429, limit: "2", remaining: "0", reset: "1", retryAfter: "1"},
		{advance: 500 * time.Millisecond, ip: "10.0.0.1", status: 200, limit: "2", remaining: "0", reset: "1"},
		// Ten seconds on the bucket is full again (never above the burst);
		// the request takes one of its two tokens.
		{advance: 10 * time.Second, ip: "10.0.0.1", status: 200, limit: "2", remaining: "1", reset: "1"},
	})
}

func TestLimiterSlowRefill(t *testing.T) {
	l, clock := newTestLimiter(t, LimiterOptions{Config: LimitConfig{Anonymous: Limit{PerSecond: 0.25, Burst: 3}}})
	runSteps(t, l, clock, []step{
		{ip: "10.0.0.1", status: 200, limit: "3", remaining: "2", reset: "4"},
		{ip: "10.0.0.1", status: 200, limit: "3", remaining: "1", reset: "4"},
		{ip: "10.0.0.1", status: 200, limit: "3", remaining: "0", reset: "4"},
		{ip: "10.0.0.1", status: 429, limit: "3", remaining: "0", reset: "4", retryAfter: "4"},
		{advance: 3 * time.Second, ip: "10.0.0.1", status: 429, limit: "3", remaining: "0", reset: "1", retryAfter: "1"},
		{advance: time.Second, ip: "10.0.0.1", status: 200, limit: "3", remaining: "0", reset: "4"},
	})
}

// TestRateHeadersReset checks RateLimit-Reset: the seconds until the next
// whole token is back, and 0 only for a full bucket (which an admitted
// request never leaves behind, since it takes a token).
func TestRateHeadersReset(t *testing.T) {
	l, clock := newTestLimiter(t, LimiterOptions{Config: LimitConfig{Anonymous: Limit{PerSecond: 1000, Burst: 1}}})
	h := l.Wrap(echoKeyName)
	for range 3 {
		clock.Advance(time.Second)
		rec := send(h, "10.0.0.1")
		// The request took the only token; one is back within 1 ms.
		if rec.Code != 200 || rec.Header().Get("RateLimit-Remaining") != "0" || rec.Header().Get("RateLimit-Reset") != "1" {
			t.Fatalf("got %d %v", rec.Code, rec.Header())
		}
	}
	hdr := http.Header{}
	clock.Advance(time.Second)
	bucket := Limit{PerSecond: 1, Burst: 5}.newBucket()
	setRateHeaders(hdr, bucket, clock.Now())
	if hdr.Get("RateLimit-Reset") != "0" || hdr.Get("RateLimit-Remaining") != "5" || hdr.Get("RateLimit-Limit") != "5" {
		t.Errorf("full bucket: headers %v, want reset 0, remaining 5", hdr)
	}
}

func TestLimiterKeys(t *testing.T) {
	cfg := LimitConfig{
		Anonymous: Limit{PerSecond: 1, Burst: 1},
		Keys: []APIKey{
			{Name: "team-a", Key: "key-of-team-a-0123456789", Limit: Limit{PerSecond: 1, Burst: 3}},
			{Name: "team-b", Key: "key-of-team-b-0123456789", Limit: Limit{PerSecond: 1, Burst: 2}},
			{Name: "ops", Key: "key-of-ops-0123456789"}, // no limit
		},
	}
	l, clock := newTestLimiter(t, LimiterOptions{Config: cfg})
	runSteps(t, l, clock, []step{
		{ip: "10.0.0.1", status: 200, limit: "1", remaining: "0", reset: "1"},
		{ip: "10.0.0.1", status: 429, limit: "1", remaining: "0", reset: "1", retryAfter: "1"},
		// The same client with a key uses the key's bucket.
		{ip: "10.0.0.1", key: "key-of-team-a-0123456789", status: 200, limit: "3", remaining: "2", reset: "1"},
		{ip: "10.0.0.1", key: "key-of-team-a-0123456789", status: 200, limit: "3", remaining: "1", reset: "1"},
		// A key's bucket is shared by every client using it.
		{ip: "10.0.0.9", key: "key-of-team-a-0123456789", status: 200, limit: "3", remaining: "0", reset: "1"},
		{ip: "10.0.0.9", key: "key-of-team-a-0123456789", status: 429, limit: "3", remaining: "0", reset: "1", retryAfter: "1"},
		{ip: "10.0.0.1", key: "key-of-team-b-0123456789", status: 200, limit: "2", remaining: "1", reset: "1"},
		{ip: "10.0.0.1", key: "key-of-team-b-0123456789", status: 200, limit: "2", remaining: "0", reset: "1"},
		{ip: "10.0.0.1", key: "key-of-team-b-0123456789", status: 429, limit: "2", remaining: "0", reset: "1", retryAfter: "1"},
		// A key without a limit: admitted, no RateLimit headers.
		{ip: "10.0.0.1", key: "key-of-ops-0123456789", status: 200},
		{ip: "10.0.0.1", key: "key-of-ops-0123456789", status: 200},
		// Unknown key: 401, even though anonymous would be limited anyway.
		{ip: "10.0.0.2", key: "key-of-nobody", status: 401},
	})
}

func TestLimiterNoLimit(t *testing.T) {
	l, _ := newTestLimiter(t, LimiterOptions{})
	h := l.Wrap(echoKeyName)
	for i := range 100 {
		rec := send(h, "10.0.0.1")
		if rec.Code != 200 {
			t.Fatalf("request %d: %d", i, rec.Code)
		}
		for _, name := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After"} {
			if v := rec.Header().Get(name); v != "" {
				t.Fatalf("request %d: %s %q without a limit", i, name, v)
			}
		}
	}
	if l.anonymous != nil {
		t.Error("a limiter without an anonymous limit tracks clients")
	}
}

func TestLimiterAuthentication(t *testing.T) {
	const key = "k3y-0f-t3am-a-abcdefghijklmnop"
	keys := []APIKey{{Name: "team-a", Key: key, Limit: Limit{PerSecond: 10, Burst: 10}}}
	tests := []struct {
		name       string
		requireKey bool
		headers    []string
		status     int
		body       string // the handler's answer, or the error message
	}{
		{"x-glacier-api-key", false, []string{"x-glacier-api-key", key}, 200, "key=team-a"},
		{"x-data-api-key", false, []string{"x-data-api-key", key}, 200, "key=team-a"},
		{"header name case", false, []string{"X-Data-Api-Key", key}, 200, "key=team-a"},
		{"glacier header wins", false, []string{"x-glacier-api-key", key, "x-data-api-key", "wrong"}, 200, "key=team-a"},
		{"glacier header checked first", false, []string{"x-glacier-api-key", "wrong", "x-data-api-key", key}, 401, "invalid API key"},
		{"empty header is no key", false, []string{"x-data-api-key", ""}, 200, "key="},
		{"anonymous", false, nil, 200, "key="},
		{"unknown key", false, []string{"x-data-api-key", "not-a-key"}, 401, "invalid API key"},
		{"required, absent", true, nil, 401, "an API key is required in header x-data-api-key"},
		{"required, empty", true, []string{"x-glacier-api-key", ""}, 401, "an API key is required in header x-data-api-key"},
		{"required, given", true, []string{"x-glacier-api-key", key}, 200, "key=team-a"},
		{"required, unknown", true, []string{"x-glacier-api-key", "nope"}, 401, "invalid API key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, _ := newTestLimiter(t, LimiterOptions{Config: LimitConfig{Keys: keys, RequireKey: tt.requireKey}})
			rec := send(l.Wrap(echoKeyName), "10.0.0.1", tt.headers...)
			if rec.Code != tt.status {
				t.Fatalf("status %d (%s), want %d", rec.Code, rec.Body.String(), tt.status)
			}
			got := rec.Body.String()
			if rec.Code != 200 {
				body := decodeBody(t, rec)
				got, _ = body["message"].(string)
				if body["error"] != "Unauthorized" || body["statusCode"] != float64(401) {
					t.Errorf("body %v", body)
				}
			}
			if got != tt.body {
				t.Errorf("body %q, want %q", got, tt.body)
			}
		})
	}
}

func TestKeyNameWithoutLimiter(t *testing.T) {
	if name := KeyName(context.Background()); name != "" {
		t.Errorf("KeyName of a bare context = %q", name)
	}
}

// TestLimiterErrorWriterOption: the writer is picked per request.
func TestLimiterErrorWriterOption(t *testing.T) {
	l, _ := newTestLimiter(t, LimiterOptions{
		Config: LimitConfig{Anonymous: Limit{PerSecond: 1, Burst: 1}},
		ErrorWriter: func(r *http.Request) ErrorWriter {
			if r.Header.Get("X-Style") == "messages" {
				return WriteErrorMessages
			}
			return WriteError
		},
	})
	h := l.Wrap(echoKeyName)
	send(h, "10.0.0.1")
	rec := send(h, "10.0.0.1")
	if body := decodeBody(t, rec); rec.Code != 429 || body["message"] != "rate limit exceeded, retry in 1 second" {
		t.Errorf("got %d %v, want 429 with a message string", rec.Code, body)
	}
	rec = send(h, "10.0.0.1", "X-Style", "messages")
	body := decodeBody(t, rec)
	msgs, ok := body["message"].([]any)
	if rec.Code != 429 || !ok || len(msgs) != 1 || msgs[0] != "rate limit exceeded, retry in 1 second" {
		t.Errorf("got %d %v, want 429 with a one-item message array", rec.Code, body)
	}
}

func TestLimiterClientIPOption(t *testing.T) {
	l, _ := newTestLimiter(t, LimiterOptions{
		Config:   LimitConfig{Anonymous: Limit{PerSecond: 1, Burst: 1}},
		ClientIP: func(r *http.Request) string { return r.Header.Get("X-Real-IP") },
	})
	h := l.Wrap(echoKeyName)
	for _, ip := range []string{"192.0.2.1", "192.0.2.2", "192.0.2.3"} {
		if rec := send(h, "10.0.0.1", "X-Real-IP", ip); rec.Code != 200 {
			t.Errorf("%s: %d, want its own bucket", ip, rec.Code)
		}
	}
	if rec := send(h, "10.0.0.1", "X-Real-IP", "192.0.2.1"); rec.Code != 429 {
		t.Errorf("second request of 192.0.2.1: %d, want 429", rec.Code)
	}
}

func TestRemoteHost(t *testing.T) {
	tests := map[string]string{
		"192.0.2.1:1234": "192.0.2.1",
		"[::1]:80":       "::1",
		"pipe":           "pipe",
		"":               "",
	}
	for addr, want := range tests {
		if got := remoteHost(&http.Request{RemoteAddr: addr}); got != want {
			t.Errorf("remoteHost(%q) = %q, want %q", addr, got, want)
		}
	}
}

func TestLimiterMaxClients(t *testing.T) {
	l, _ := newTestLimiter(t, LimiterOptions{
		Config:     LimitConfig{Anonymous: Limit{PerSecond: 1, Burst: 1}},
		MaxClients: 2,
	})
	h := l.Wrap(echoKeyName)
	steps := []struct {
		ip     string
		status int
	}{
		{"10.0.0.1", 200},
		{"10.0.0.2", 200},
		{"10.0.0.1", 429}, // 10.0.0.1 is now the most recent
		{"10.0.0.3", 200}, // drops 10.0.0.2, the least recently seen
		{"10.0.0.1", 429}, // kept
		{"10.0.0.2", 200}, // forgotten: a fresh bucket; drops 10.0.0.3
		{"10.0.0.1", 429},
	}
	for i, s := range steps {
		if rec := send(h, s.ip); rec.Code != s.status {
			t.Errorf("step %d, %s: %d, want %d", i, s.ip, rec.Code, s.status)
		}
		if n := l.anonymous.len(); n > 2 {
			t.Fatalf("step %d: %d clients kept, want at most 2", i, n)
		}
	}

	l, _ = newTestLimiter(t, LimiterOptions{Config: LimitConfig{Anonymous: Limit{PerSecond: 1, Burst: 1}}})
	for i := range defaultMaxClients + 1 {
		l.anonymous.bucket(strconv.Itoa(i))
	}
	if n := l.anonymous.len(); n != defaultMaxClients {
		t.Errorf("default table keeps %d clients, want %d", n, defaultMaxClients)
	}
}

func TestLimiterConcurrent(t *testing.T) {
	const key = "concurrent-key-0123456789"
	l, _ := newTestLimiter(t, LimiterOptions{Config: LimitConfig{
		Anonymous: Limit{PerSecond: 1, Burst: 5},
		Keys:      []APIKey{{Name: "k", Key: key, Limit: Limit{PerSecond: 1, Burst: 10}}},
	}})
	h := l.Wrap(echoKeyName)
	var keyed, anon atomic.Int64
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if send(h, "10.0.0.1", "x-data-api-key", key).Code == 200 {
				keyed.Add(1)
			}
		}()
		go func() {
			defer wg.Done()
			if send(h, fmt.Sprintf("10.0.1.%d", i%2)).Code == 200 {
				anon.Add(1)
			}
		}()
	}
	wg.Wait()
	// The clock stands still: exactly the bursts are admitted.
	if keyed.Load() != 10 || anon.Load() != 10 {
		t.Errorf("admitted %d keyed and %d anonymous, want 10 and 10 (2 clients x 5)", keyed.Load(), anon.Load())
	}
}

func TestNewLimiterValidation(t *testing.T) {
	const secret = "s3cret-key-value-xyz"
	ok := Limit{PerSecond: 1, Burst: 1}
	tests := []struct {
		name string
		opts LimiterOptions
		want []string // each must appear in the error; nil: valid
	}{
		{"empty config", LimiterOptions{}, nil},
		{"zero limit needs no burst", LimiterOptions{Config: LimitConfig{Anonymous: Limit{PerSecond: 0, Burst: 0}}}, nil},
		{"anonymous negative rate", LimiterOptions{Config: LimitConfig{Anonymous: Limit{PerSecond: -1, Burst: 1}}},
			[]string{"anonymous.per-second: must be a number of at least 0, got -1"}},
		{"anonymous NaN rate", LimiterOptions{Config: LimitConfig{Anonymous: Limit{PerSecond: math.NaN(), Burst: 1}}},
			[]string{"anonymous.per-second:"}},
		{"anonymous infinite rate", LimiterOptions{Config: LimitConfig{Anonymous: Limit{PerSecond: math.Inf(1), Burst: 1}}},
			[]string{"anonymous.per-second:"}},
		{"anonymous burst", LimiterOptions{Config: LimitConfig{Anonymous: Limit{PerSecond: 5}}},
			[]string{"anonymous.burst: must be at least 1 when per-second is above 0, got 0"}},
		{"key without name", LimiterOptions{Config: LimitConfig{Keys: []APIKey{{Name: "a", Key: "k1"}, {Key: secret}}}},
			[]string{"keys[1].name: must not be empty"}},
		{"duplicate name", LimiterOptions{Config: LimitConfig{Keys: []APIKey{{Name: "a", Key: "k1"}, {Name: "a", Key: secret}}}},
			[]string{`keys[1].name: "a" also names keys[0]`}},
		{"empty key", LimiterOptions{Config: LimitConfig{Keys: []APIKey{{Name: "a"}}}},
			[]string{"keys[0].key: must not be empty"}},
		{"duplicate key", LimiterOptions{Config: LimitConfig{Keys: []APIKey{{Name: "a", Key: secret}, {Name: "b", Key: "k2"}, {Name: "c", Key: secret}}}},
			[]string{"keys[2].key: same as keys[0].key"}},
		{"key with a space", LimiterOptions{Config: LimitConfig{Keys: []APIKey{{Name: "a", Key: secret + " "}}}},
			[]string{"keys[0].key: must be printable ASCII without spaces"}},
		{"key limit", LimiterOptions{Config: LimitConfig{Keys: []APIKey{{Name: "a", Key: secret, Limit: Limit{PerSecond: 3}}}}},
			[]string{"keys[0].limit.burst: must be at least 1"}},
		{"every problem", LimiterOptions{Config: LimitConfig{
			Anonymous: Limit{PerSecond: -2},
			Keys:      []APIKey{{Name: "", Key: secret, Limit: ok}, {Name: "b", Key: "", Limit: Limit{PerSecond: 1}}},
		}}, []string{"anonymous.per-second", "keys[0].name", "keys[1].key", "keys[1].limit.burst"}},
		{"negative MaxClients", LimiterOptions{MaxClients: -1}, []string{"MaxClients: must not be negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewLimiter(tt.opts)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q tells a key", err)
			}
		})
	}
}

func TestLimiterNeverTellsKeys(t *testing.T) {
	const (
		valid   = "valid-Key-5b1f0c9e2d7a4e6f"
		invalid = "invalid-Key-8c2e4a6b0d1f3e5a"
	)
	var logs bytes.Buffer
	logger := hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Trace, JSONFormat: true})
	l, _ := newTestLimiter(t, LimiterOptions{
		Config: LimitConfig{
			Anonymous: Limit{PerSecond: 1, Burst: 1},
			Keys:      []APIKey{{Name: "team-a", Key: valid, Limit: Limit{PerSecond: 1, Burst: 2}}},
		},
		Logger: logger,
	})
	// A handler that logs its whole request, as a careless one might.
	h := l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		logger.Trace("handler", "headers", fmt.Sprint(r.Header), "key", KeyName(r.Context()))
		_, _ = w.Write([]byte("ok"))
	}))

	var answers bytes.Buffer
	for _, headers := range [][]string{
		{"x-data-api-key", valid},
		{"x-glacier-api-key", valid},
		{"x-data-api-key", valid}, // 429
		{"x-data-api-key", invalid},
		{"x-glacier-api-key", invalid},
		{"x-glacier-api-key", invalid, "x-data-api-key", valid},
		{},
		{}, // 429
	} {
		rec := send(h, "10.0.0.1", headers...)
		fmt.Fprintf(&answers, "%d %v %s\n", rec.Code, rec.Header(), rec.Body.String())
	}

	for _, key := range []string{valid, invalid} {
		for where, text := range map[string]string{"the log": logs.String(), "an answer": answers.String()} {
			if strings.Contains(strings.ToLower(text), strings.ToLower(key)) {
				t.Errorf("%s holds key %q:\n%s", where, key, text)
			}
		}
	}
	// The test means something only if the limiter and handler did log.
	for _, want := range []string{"request admitted", `"key":"team-a"`, "invalid API key", "rate limit", "handler"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
	for _, want := range []string{"200 ", "401 ", "429 "} {
		if !strings.Contains(answers.String(), want) {
			t.Errorf("answers lack a %s:\n%s", want, answers.String())
		}
	}
}

// TestLimiterKeyTable documents the lookup path: the table holds SHA-256
// digests of the keys and never a key; a presented key is hashed, looked up
// by digest and confirmed with a constant-time compare, so nothing about
// the time taken depends on how many leading bytes a guess shares with a
// key.
func TestLimiterKeyTable(t *testing.T) {
	keys := []APIKey{
		{Name: "team-a", Key: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", Limit: Limit{PerSecond: 1, Burst: 100}},
		{Name: "team-b", Key: "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"},
	}
	l, _ := newTestLimiter(t, LimiterOptions{Config: LimitConfig{Keys: keys}})

	if len(l.keys) != len(keys) {
		t.Fatalf("table holds %d keys, want %d", len(l.keys), len(keys))
	}
	for _, k := range keys {
		digest := sha256.Sum256([]byte(k.Key))
		e, ok := l.keys[digest]
		if !ok {
			t.Fatalf("%s is not indexed by its digest", k.Name)
		}
		if e.digest != digest || e.name != k.Name {
			t.Errorf("entry %+v for %s", e, k.Name)
		}
		// No field of the entry, at any depth reachable by value, holds
		// the key: only name, digest, the bucket and the allowed names.
		v := reflect.ValueOf(*e)
		for i := range v.NumField() {
			f := v.Type().Field(i)
			switch f.Name {
			case "name", "digest", "bucket", "allow":
			default:
				t.Errorf("keyEntry has field %s; check it holds no key", f.Name)
			}
		}
		if strings.Contains(fmt.Sprintf("%+v %q", *e, e.digest[:]), k.Key) {
			t.Errorf("entry of %s shows its key", k.Name)
		}
	}
	// The Limiter keeps no copy of its config either.
	if strings.Contains(fmt.Sprintf("%+v", *l), keys[0].Key) {
		t.Error("the Limiter holds a key in plain text")
	}

	h := l.Wrap(echoKeyName)
	base := keys[0].Key
	guesses := map[string]string{
		"last byte differs":  base[:len(base)-1] + "B",
		"first byte differs": "B" + base[1:],
		"prefix":             base[:len(base)-1],
		"longer":             base + "A",
		"other case":         strings.ToLower(base),
		"digest as hex":      fmt.Sprintf("%x", sha256.Sum256([]byte(base))),
	}
	for name, guess := range guesses {
		if rec := send(h, "10.0.0.1", "x-data-api-key", guess); rec.Code != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, rec.Code)
		}
	}
	if rec := send(h, "10.0.0.1", "x-data-api-key", base); rec.Code != 200 {
		t.Errorf("the key itself: %d, want 200", rec.Code)
	}
}

// TestRateHeadersNeverNegative checks the headers of a bucket driven past
// empty by a reservation (which Allow never does, but a shared bucket
// could see).
func TestRateHeadersNeverNegative(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	bucket := Limit{PerSecond: 2, Burst: 2}.newBucket()
	bucket.ReserveN(now, 2)
	bucket.ReserveN(now, 2) // tokens -2
	h := http.Header{}
	retry := setRateHeaders(h, bucket, now)
	remaining, _ := strconv.Atoi(h.Get("RateLimit-Remaining"))
	reset, _ := strconv.Atoi(h.Get("RateLimit-Reset"))
	if remaining != 0 || reset < 1 || retry < 1 {
		t.Errorf("remaining %d, reset %d, retry %d", remaining, reset, retry)
	}
}

func TestAPIKeyFormatsHideKey(t *testing.T) {
	const secret = "hidden-s3cret-key"
	cfg := LimitConfig{Keys: []APIKey{{Name: "team-a", Key: secret, Limit: Limit{PerSecond: 2, Burst: 3}}}}
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		got := fmt.Sprintf(format, cfg)
		if strings.Contains(got, secret) || !strings.Contains(got, "team-a") {
			t.Errorf("Sprintf(%q, config) = %s", format, got)
		}
	}
	var logs bytes.Buffer
	hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Trace}).Info("config", "rate-limit", cfg)
	if strings.Contains(logs.String(), secret) {
		t.Errorf("hclog shows the key: %s", logs.String())
	}
}

func TestLimitConfigJSON(t *testing.T) {
	const doc = `{
		"anonymous": {"per-second": 10, "burst": 20},
		"keys": [{"name": "team-a", "key": "abc", "limit": {"per-second": 100, "burst": 200}}],
		"require-key": true
	}`
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.DisallowUnknownFields()
	var cfg LimitConfig
	if err := dec.Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	want := LimitConfig{
		Anonymous:  Limit{PerSecond: 10, Burst: 20},
		Keys:       []APIKey{{Name: "team-a", Key: "abc", Limit: Limit{PerSecond: 100, Burst: 200}}},
		RequireKey: true,
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("decoded %+v, want %+v", cfg, want)
	}
}

// TestLimiterAllow: a key with an allow list reaches only what it names;
// keys without one, and anonymous requests, reach everything.
func TestLimiterAllow(t *testing.T) {
	l, _ := newTestLimiter(t, LimiterOptions{Config: LimitConfig{Keys: []APIKey{
		{Name: "c-only", Key: "key-c-only", Allow: []string{"43112", "C"}},
		{Name: "all", Key: "key-all"},
	}}})
	h := l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprintf(w, "%v %v", Allowed(r.Context(), "C", "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5"), Allowed(r.Context(), "other", "99"))
	}))
	for _, tc := range []struct{ key, want string }{
		{"key-c-only", "true false"},
		{"key-all", "true true"},
		{"", "true true"},
	} {
		var headers []string
		if tc.key != "" {
			headers = []string{"x-data-api-key", tc.key}
		}
		if rec := send(h, "10.0.0.1", headers...); rec.Code != 200 || rec.Body.String() != tc.want {
			t.Errorf("key %q: %d %q, want %q", tc.key, rec.Code, rec.Body.String(), tc.want)
		}
	}
	if !Allowed(context.Background(), "x") {
		t.Error("Allowed outside a limiter = false")
	}
	err := LimitConfig{Keys: []APIKey{{Name: "a", Key: "k", Allow: []string{"C", ""}}}}.Validate()
	if err == nil || err.Error() != "keys[0].allow[1]: must not be empty" {
		t.Errorf("Validate with an empty allow item = %v", err)
	}
}
