package rest

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/time/rate"
)

// defaultMaxClients is how many anonymous clients a Limiter tracks unless
// LimiterOptions.MaxClients says otherwise.
const defaultMaxClients = 65536

// Limit is a token bucket: PerSecond requests per second on average, Burst
// at once. PerSecond 0 means no limit.
type Limit struct {
	PerSecond float64 `json:"per-second"`
	Burst     int     `json:"burst"`
}

// APIKey is one accepted key with its limit. Name is what logs and the
// handler see; the key itself is never logged or echoed.
type APIKey struct {
	Name  string `json:"name"`
	Key   string `json:"key"`
	Limit Limit  `json:"limit"`
	// Allow lists what the key may reach, in names the module defines and
	// checks with Allowed (the data API: chains); empty allows everything.
	Allow []string `json:"allow,omitempty"`
}

// String returns k for logs, with the key left out.
func (k APIKey) String() string {
	return fmt.Sprintf("{Name:%s Key:<redacted> Limit:%+v Allow:%v}", k.Name, k.Limit, k.Allow)
}

// GoString returns k for %#v, with the key left out.
func (k APIKey) GoString() string {
	return fmt.Sprintf("rest.APIKey{Name:%q, Key:\"<redacted>\", Limit:%#v, Allow:%#v}", k.Name, k.Limit, k.Allow)
}

// LimitConfig is the part of a module's config that sets keys and limits
// (the same JSON in every module).
type LimitConfig struct {
	Anonymous  Limit    `json:"anonymous"`   // per client IP, for requests without a key
	Keys       []APIKey `json:"keys"`        // accepted keys
	RequireKey bool     `json:"require-key"` // refuse requests without a key (401)
}

// APIKeyHeaders returns the request headers that carry a key, in the order
// they are checked: the name clients of the hosted API send, then the name
// the spec uses.
func APIKeyHeaders() []string {
	return []string{"x-glacier-api-key", "x-data-api-key"}
}

// LimiterOptions configures a Limiter.
type LimiterOptions struct {
	Config LimitConfig // keys and limits
	// ErrorWriter picks the writer of a request's 401 and 429 answers
	// (a module serving the metrics v1 style on some routes only picks
	// by path); nil: WriteError for every request.
	ErrorWriter func(*http.Request) ErrorWriter
	ClientIP    func(*http.Request) string // nil: the host part of r.RemoteAddr
	Logger      hclog.Logger               // nil discards
	MaxClients  int                        // anonymous limiters kept, least recently seen dropped first; 0: 65536
}

// Limiter is middleware that admits requests by API key and rate limit.
// It is safe for concurrent use.
type Limiter struct {
	keys        map[[sha256.Size]byte]*keyEntry // by the SHA-256 digest of the key
	requireKey  bool
	anonymous   *clientTable // nil: anonymous requests are not limited
	errorWriter func(*http.Request) ErrorWriter
	clientIP    func(*http.Request) string
	log         hclog.Logger
	now         func() time.Time // the clock; tests replace it
}

// keyEntry is an accepted API key. It holds the key's digest, never the key.
type keyEntry struct {
	name   string
	digest [sha256.Size]byte
	bucket *rate.Limiter       // nil: no limit
	allow  map[string]struct{} // nil: everything
}

// admittedKey is the context key of the *keyEntry that admitted a request.
type admittedKey struct{}

// KeyName returns the name of the API key the request was admitted with,
// "" for anonymous.
func KeyName(ctx context.Context) string {
	if e, _ := ctx.Value(admittedKey{}).(*keyEntry); e != nil {
		return e.name
	}
	return ""
}

// Allowed reports whether the request's API key may reach what names name
// (any one of them: a resource often has several names, such as a chain's
// ID and its aliases). Anonymous requests, and keys without an Allow list,
// may reach everything: the limiter's require-key and rate limits are what
// restrict them.
func Allowed(ctx context.Context, names ...string) bool {
	e, _ := ctx.Value(admittedKey{}).(*keyEntry)
	if e == nil || e.allow == nil {
		return true
	}
	for _, n := range names {
		if _, ok := e.allow[n]; ok {
			return true
		}
	}
	return false
}

// Validate checks c; the error names every field at fault, as in
// "keys[1].name: must not be empty".
func (c LimitConfig) Validate() error {
	var problems []string
	problems = c.Anonymous.check("anonymous", problems)
	names := map[string]int{}
	digests := map[[sha256.Size]byte]int{}
	for i, k := range c.Keys {
		field := fmt.Sprintf("keys[%d]", i)
		switch j, seen := names[k.Name]; {
		case k.Name == "":
			problems = append(problems, field+".name: must not be empty")
		case seen:
			problems = append(problems, fmt.Sprintf("%s.name: %q also names keys[%d]", field, k.Name, j))
		default:
			names[k.Name] = i
		}
		digest := sha256.Sum256([]byte(k.Key))
		switch j, seen := digests[digest]; {
		case k.Key == "":
			problems = append(problems, field+".key: must not be empty")
		case !printableKey(k.Key):
			problems = append(problems, field+".key: must be printable ASCII without spaces")
		case seen:
			problems = append(problems, fmt.Sprintf("%s.key: same as keys[%d].key", field, j))
		default:
			digests[digest] = i
		}
		problems = k.Limit.check(field+".limit", problems)
		for j, a := range k.Allow {
			if a == "" {
				problems = append(problems, fmt.Sprintf("%s.allow[%d]: must not be empty", field, j))
			}
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// check appends the problems of l, a limit at field, to problems.
func (l Limit) check(field string, problems []string) []string {
	if math.IsNaN(l.PerSecond) || math.IsInf(l.PerSecond, 0) || l.PerSecond < 0 {
		problems = append(problems, fmt.Sprintf("%s.per-second: must be a number of at least 0, got %v", field, l.PerSecond))
	}
	if l.PerSecond > 0 && l.Burst < 1 {
		problems = append(problems, fmt.Sprintf("%s.burst: must be at least 1 when per-second is above 0, got %d", field, l.Burst))
	}
	return problems
}

// newBucket returns the token bucket of l, nil when l is no limit.
func (l Limit) newBucket() *rate.Limiter {
	if l.PerSecond == 0 {
		return nil
	}
	return rate.NewLimiter(rate.Limit(l.PerSecond), l.Burst)
}

// printableKey reports whether key can travel in a header unchanged:
// visible ASCII only (HTTP trims surrounding spaces).
func printableKey(key string) bool {
	for i := range len(key) {
		if key[i] < '!' || key[i] > '~' {
			return false
		}
	}
	return true
}

// NewLimiter returns a Limiter for opts, after validating opts.Config.
func NewLimiter(opts LimiterOptions) (*Limiter, error) {
	if err := opts.Config.Validate(); err != nil {
		return nil, fmt.Errorf("rate limit config: %w", err)
	}
	if opts.MaxClients < 0 {
		return nil, fmt.Errorf("rate limiter: MaxClients: must not be negative, got %d", opts.MaxClients)
	}
	l := &Limiter{
		keys:        make(map[[sha256.Size]byte]*keyEntry, len(opts.Config.Keys)),
		requireKey:  opts.Config.RequireKey,
		errorWriter: opts.ErrorWriter,
		clientIP:    opts.ClientIP,
		log:         opts.Logger,
		now:         time.Now,
	}
	for _, k := range opts.Config.Keys {
		digest := sha256.Sum256([]byte(k.Key))
		e := &keyEntry{name: k.Name, digest: digest, bucket: k.Limit.newBucket()}
		if len(k.Allow) > 0 {
			e.allow = make(map[string]struct{}, len(k.Allow))
			for _, a := range k.Allow {
				e.allow[a] = struct{}{}
			}
		}
		l.keys[digest] = e
	}
	if opts.Config.Anonymous.PerSecond > 0 {
		maxClients := opts.MaxClients
		if maxClients == 0 {
			maxClients = defaultMaxClients
		}
		anonymous, err := newClientTable(opts.Config.Anonymous, maxClients)
		if err != nil {
			return nil, err
		}
		l.anonymous = anonymous
	}
	if l.errorWriter == nil {
		l.errorWriter = func(*http.Request) ErrorWriter { return WriteError }
	}
	if l.clientIP == nil {
		l.clientIP = remoteHost
	}
	if l.log == nil {
		l.log = hclog.NewNullLogger()
	}
	return l, nil
}

// remoteHost returns the host part of r.RemoteAddr.
func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// lookup returns the accepted key that key is, or nil. The table is
// indexed by SHA-256 digest, so the lookup time does not depend on how
// much of a secret a guess shares; the digest is confirmed in constant time.
func (l *Limiter) lookup(key string) *keyEntry {
	digest := sha256.Sum256([]byte(key))
	e, ok := l.keys[digest]
	if !ok || subtle.ConstantTimeCompare(e.digest[:], digest[:]) != 1 {
		return nil
	}
	return e
}

// presentedKey returns the API key of r, the first non-empty value among
// APIKeyHeaders, and whether any key header is present.
func presentedKey(r *http.Request) (key string, present bool) {
	for _, h := range APIKeyHeaders() {
		values, ok := r.Header[http.CanonicalHeaderKey(h)]
		if !ok {
			continue
		}
		present = true
		for _, v := range values {
			if v != "" && key == "" {
				key = v
			}
		}
	}
	return key, present
}

// Wrap returns next behind the API key check and the rate limits.
func (l *Limiter) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := l.clientIP(r)
		key, present := presentedKey(r)
		var (
			entry  *keyEntry
			name   string
			bucket *rate.Limiter
		)
		switch {
		case key != "":
			e := l.lookup(key)
			if e == nil {
				l.log.Debug("request refused: invalid API key", "client", client, "path", r.URL.Path)
				l.errorWriter(r)(w, Errorf(http.StatusUnauthorized, "invalid API key"))
				return
			}
			entry, name, bucket = e, e.name, e.bucket
		case l.requireKey:
			l.log.Debug("request refused: no API key", "client", client, "path", r.URL.Path)
			l.errorWriter(r)(w, Errorf(http.StatusUnauthorized, "an API key is required in header %s", APIKeyHeaders()[1]))
			return
		case l.anonymous != nil:
			bucket = l.anonymous.bucket(client)
		}
		if bucket != nil {
			now := l.now()
			admitted := bucket.AllowN(now, 1)
			retryAfter := setRateHeaders(w.Header(), bucket, now)
			if !admitted {
				w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
				l.log.Debug("request refused: rate limit", "key", name, "client", client, "path", r.URL.Path, "retry_after", retryAfter)
				l.errorWriter(r)(w, Errorf(http.StatusTooManyRequests, "rate limit exceeded, retry in %s", seconds(retryAfter)))
				return
			}
		}
		l.log.Trace("request admitted", "key", name, "client", client, "path", r.URL.Path)
		if entry != nil {
			r = r.WithContext(context.WithValue(r.Context(), admittedKey{}, entry))
		}
		if present {
			// Keep the key from handlers, which may log headers.
			r = r.Clone(r.Context())
			for _, h := range APIKeyHeaders() {
				r.Header.Del(h)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// setRateHeaders sets the RateLimit headers of bucket at now and returns
// the whole seconds, at least 1, until a request would be admitted.
func setRateHeaders(h http.Header, bucket *rate.Limiter, now time.Time) (retryAfter int) {
	tokens := max(bucket.TokensAt(now), 0)
	perSecond := float64(bucket.Limit())
	burst := bucket.Burst()
	whole := math.Floor(tokens)
	reset := 0
	if tokens < float64(burst) {
		reset = ceilSeconds((whole + 1 - tokens) / perSecond)
	}
	h.Set("RateLimit-Limit", strconv.Itoa(burst))
	h.Set("RateLimit-Remaining", strconv.Itoa(int(whole)))
	h.Set("RateLimit-Reset", strconv.Itoa(reset))
	return max(ceilSeconds((1-tokens)/perSecond), 1)
}

// seconds returns n seconds in words.
func seconds(n int) string {
	if n == 1 {
		return "1 second"
	}
	return strconv.Itoa(n) + " seconds"
}

// ceilSeconds returns s rounded up to whole seconds, capped at 2^31 so
// that it fits an int.
func ceilSeconds(s float64) int {
	const most = 1 << 31
	if s >= most || math.IsNaN(s) {
		return most
	}
	return int(math.Ceil(s))
}
