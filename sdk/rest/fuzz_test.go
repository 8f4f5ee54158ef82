package rest

import (
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// FuzzQuery: any raw query string is read without panicking; every
// getter returns its default or a valid value, and the only error is one
// 400 *Error.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{
		"pageSize=10&sortOrder=asc", "pageSize=0", "pageSize=1&pageSize=2", "startBlock=%zz",
		"startTimestamp=-1", "filterSpamTokens=yes", "contractAddresses=a,,b", "&&=&a=%", "sortOrder=%41sc",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := httptest.NewRequest(http.MethodGet, "/v1/x", nil)
		r.URL.RawQuery = raw
		q := Query(r)
		size := q.Int("pageSize", IntRange{Default: 10, Min: 1, Max: 100})
		order := q.Enum("sortOrder", "desc", "asc", "desc")
		_, _ = q.Uint64("startBlock")
		ts, hasTS := q.Int64("startTimestamp", 0)
		_ = q.Bool("filterSpamTokens", false)
		_ = q.List("contractAddresses")
		_ = q.String("pageToken", "")
		err := q.Err()
		if err == nil {
			if size < 1 || size > 100 || order != "asc" && order != "desc" || hasTS && ts < 0 {
				t.Fatalf("%q: accepted pageSize %d, sortOrder %q, startTimestamp %d", raw, size, order, ts)
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) || e.Status != http.StatusBadRequest || e.Message == "" {
			t.Fatalf("%q: error %v", raw, err)
		}
	})
}

// FuzzPageTokens: opening any string never panics; a forged or altered
// token is refused; only what was sealed for the scope opens, to the
// cursor sealed.
func FuzzPageTokens(f *testing.F) {
	key := make([]byte, 32)
	p, err := NewPageTokens(key, time.Hour)
	if err != nil {
		f.Fatal(err)
	}
	good, err := p.Seal("scope", map[string]uint64{"block": 7})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, uint8(0))
	f.Add("", uint8(1))
	f.Add("AAAA", uint8(2))
	f.Fuzz(func(t *testing.T, token string, flip uint8) {
		var cur map[string]uint64
		if err := p.Open(token, "scope", &cur); err == nil && token != good {
			t.Fatalf("a token never sealed opened: %q -> %v", token, cur)
		}
		if len(good) > 0 {
			b := []byte(good)
			i := int(flip) % len(b)
			b[i] ^= 1 + flip%math.MaxUint8
			if string(b) != good {
				if err := p.Open(string(b), "scope", &cur); err == nil {
					t.Fatalf("an altered token opened: %q", b)
				}
			}
		}
	})
}
