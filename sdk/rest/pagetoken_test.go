package rest

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testCursor is a cursor as a list endpoint keeps it.
type testCursor struct {
	Block uint64 `json:"block"`
	Index int    `json:"index"`
	Hash  string `json:"hash"`
}

// testKey returns a key of 32 bytes that all equal b.
func testKey(b byte) []byte {
	return bytes.Repeat([]byte{b}, 32)
}

// newTestTokens returns page tokens with the given ttl whose clock the
// returned func sets.
func newTestTokens(t *testing.T, key []byte, ttl time.Duration) (*PageTokens, func(time.Time)) {
	t.Helper()
	p, err := NewPageTokens(key, ttl)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	p.now = func() time.Time { return now }
	return p, func(t time.Time) { now = t }
}

// wantTokenError checks that err is a 400 *Error naming pageToken.
func wantTokenError(t *testing.T, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Open = %v, want an *Error", err)
	}
	if e.Status != 400 || !strings.HasPrefix(e.Message, "pageToken: ") {
		t.Errorf("Open = %d %q, want 400 naming pageToken", e.Status, e.Message)
	}
}

const scope = `"/v1/chains/{chainId}/blocks" "43112" "asc"`

func TestPageTokenRoundTrip(t *testing.T) {
	p, _ := newTestTokens(t, testKey(1), time.Hour)
	cursors := []testCursor{{}, {Block: 1<<64 - 1, Index: -3, Hash: "0xabc\u00e9\"<>"}}
	for _, c := range cursors {
		token, err := p.Seal(scope, c)
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(token, "+/=") {
			t.Errorf("token %q is not unpadded base64url", token)
		}
		var got testCursor
		if err := p.Open(token, scope, &got); err != nil {
			t.Fatalf("Open(Seal(%+v)) = %v", c, err)
		}
		if got != c {
			t.Errorf("Open(Seal(%+v)) = %+v", c, got)
		}
	}
}

func TestPageTokenSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pagetoken.key")
	key, err := LoadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := NewPageTokens(key, time.Hour)
	token, err := before.Seal(scope, testCursor{Block: 5})
	if err != nil {
		t.Fatal(err)
	}
	key, err = LoadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := NewPageTokens(key, time.Hour)
	var got testCursor
	if err := after.Open(token, scope, &got); err != nil || got.Block != 5 {
		t.Errorf("after restart: %+v, %v", got, err)
	}
}

func TestPageTokenTampered(t *testing.T) {
	p, _ := newTestTokens(t, testKey(1), time.Hour)
	token, err := p.Seal(scope, testCursor{Block: 7, Hash: "0x01"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		t.Fatal(err)
	}
	// Every byte: the version, the issued-at, the cursor JSON and the MAC.
	for i := range raw {
		for _, flip := range []byte{0x01, 0x80} {
			forged := bytes.Clone(raw)
			forged[i] ^= flip
			var got testCursor
			err := p.Open(base64.RawURLEncoding.EncodeToString(forged), scope, &got)
			if err == nil {
				t.Fatalf("byte %d ^ %#x: accepted as %+v", i, flip, got)
			}
			wantTokenError(t, err)
		}
	}
}

func TestPageTokenNonCanonical(t *testing.T) {
	p, _ := newTestTokens(t, testKey(1), time.Hour)
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	variants := 0
	for block := range uint64(3) { // one of three cursor lengths leaves spare bits
		token, err := p.Seal(scope, testCursor{Block: block * 10})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := base64.RawURLEncoding.DecodeString(token)
		last := len(token) - 1
		for _, c := range alphabet {
			variant := token[:last] + string(c)
			if variant == token {
				continue
			}
			if decoded, err := base64.RawURLEncoding.DecodeString(variant); err != nil || !bytes.Equal(decoded, raw) {
				continue
			}
			variants++
			wantTokenError(t, p.Open(variant, scope, &testCursor{}))
		}
	}
	if variants == 0 {
		t.Fatal("found no spelling of a token that decodes to the same bytes")
	}
}

func TestPageTokenTruncated(t *testing.T) {
	p, _ := newTestTokens(t, testKey(1), time.Hour)
	token, err := p.Seal(scope, testCursor{Block: 7})
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(token) {
		var got testCursor
		err := p.Open(token[:n], scope, &got)
		if err == nil {
			t.Fatalf("prefix of %d characters accepted", n)
		}
		wantTokenError(t, err)
	}
	// Extended tokens fail too.
	for _, extra := range []string{"A", "AA", "AAAA"} {
		wantTokenError(t, p.Open(token+extra, scope, &testCursor{}))
	}
}

func TestPageTokenRefused(t *testing.T) {
	p, setClock := newTestTokens(t, testKey(1), time.Hour)
	other, _ := newTestTokens(t, testKey(2), time.Hour)
	c := testCursor{Block: 9}
	seal := func(p *PageTokens, scope string) string {
		token, err := p.Seal(scope, c)
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	good := seal(p, scope)
	tests := []struct {
		name  string
		token string
		scope string
	}{
		{"sealed under another key", seal(other, scope), scope},
		{"opened with another scope", good, scope + ` "pageSize=5"`},
		{"opened with an empty scope", good, ""},
		{"scope parts moved", seal(p, Scope("a:b", "c")), Scope("a", "b:c")},
		{"empty", "", scope},
		{"garbage", "not a token!", scope},
		{"standard base64 alphabet", strings.NewReplacer("-", "+", "_", "/").Replace(good) + "+/", scope},
		{"padded", good + "==", scope},
		{"newline inside", good[:10] + "\n" + good[10:], scope},
		{"url-escaped", strings.ReplaceAll(good, "-", "%2D") + "%2D", scope},
		{"random bytes of a token's length", base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{0x01, 0x02, 0x03}, 20)), scope},
		{"too long", strings.Repeat("A", maxTokenLen+4), scope},
		{"a JSON cursor", `{"block":9}`, scope},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got testCursor
			err := p.Open(tt.token, tt.scope, &got)
			if err == nil {
				t.Fatalf("accepted as %+v", got)
			}
			wantTokenError(t, err)
		})
	}

	t.Run("expired", func(t *testing.T) {
		start := time.Unix(1_900_000_000, 0)
		setClock(start)
		token := seal(p, scope)
		setClock(start.Add(time.Hour - time.Second))
		if err := p.Open(token, scope, &testCursor{}); err != nil {
			t.Fatalf("a second before its TTL: %v", err)
		}
		setClock(start.Add(time.Hour))
		err := p.Open(token, scope, &testCursor{})
		wantTokenError(t, err)
		if err != nil && !strings.Contains(err.(*Error).Message, "expired") {
			t.Errorf("message %q does not say expired", err.(*Error).Message)
		}
	})

	t.Run("no ttl never expires", func(t *testing.T) {
		forever, setForever := newTestTokens(t, testKey(1), 0)
		token := seal(forever, scope)
		setForever(time.Unix(1_800_000_000, 0).Add(10 * 365 * 24 * time.Hour))
		if err := forever.Open(token, scope, &testCursor{}); err != nil {
			t.Errorf("ttl 0: %v", err)
		}
	})

	t.Run("cursor of another type", func(t *testing.T) {
		token, err := p.Seal(scope, []int{1, 2})
		if err != nil {
			t.Fatal(err)
		}
		wantTokenError(t, p.Open(token, scope, &testCursor{}))
	})

	t.Run("cursor not a pointer", func(t *testing.T) {
		err := p.Open(seal(p, scope), scope, testCursor{})
		var e *Error
		if err == nil || errors.As(err, &e) {
			t.Errorf("Open into a non-pointer = %v, want a plain error (a bug of the caller, answered as 500)", err)
		}
	})
}

func TestPageTokenMessageHidesCause(t *testing.T) {
	p, _ := newTestTokens(t, testKey(1), time.Hour)
	other, _ := newTestTokens(t, testKey(2), time.Hour)
	token, _ := other.Seal(scope, testCursor{})
	err := p.Open(token, scope, &testCursor{})
	var e *Error
	if !errors.As(err, &e) || e.Cause == nil {
		t.Fatalf("Open = %v, want an *Error with a cause", err)
	}
	if strings.Contains(e.Message, "MAC") || strings.Contains(e.Message, e.Cause.Error()) {
		t.Errorf("message %q tells the cause", e.Message)
	}
}

func TestNewPageTokens(t *testing.T) {
	tests := []struct {
		name    string
		key     []byte
		ttl     time.Duration
		wantErr string
	}{
		{"short key", make([]byte, 31), time.Hour, "31 bytes, want at least 32"},
		{"no key", nil, time.Hour, "0 bytes"},
		{"negative ttl", make([]byte, 32), -time.Second, "ttl"},
		{"long key", make([]byte, 64), 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewPageTokens(tt.key, tt.ttl)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}

	key := testKey(1)
	p, _ := NewPageTokens(key, 0)
	token, _ := p.Seal(scope, 1)
	key[0] ^= 1 // the caller's slice is copied
	var n int
	if err := p.Open(token, scope, &n); err != nil || n != 1 {
		t.Errorf("after the caller changed its key slice: %d, %v", n, err)
	}
}

func TestSealRefusesHugeCursor(t *testing.T) {
	p, _ := newTestTokens(t, testKey(1), 0)
	if _, err := p.Seal(scope, strings.Repeat("x", maxTokenLen)); err == nil {
		t.Error("sealed a token over the length limit")
	}
	if _, err := p.Seal(scope, func() {}); err == nil {
		t.Error("sealed a cursor that is not JSON")
	}
}

func TestLoadOrCreateKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "modules", "data")
	path := filepath.Join(dir, "pagetoken.key")

	first, err := LoadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 32 || bytes.Equal(first, make([]byte, 32)) {
		t.Errorf("key %x, want 32 random bytes", first)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if mode := info.Mode().Perm(); mode != 0o600 {
		t.Errorf("mode %v, want 0600", mode)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the key (no temporary file)", len(entries))
	}

	second, err := LoadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Error("second call returned another key")
	}

	otherPath := filepath.Join(dir, "other.key")
	other, err := LoadOrCreateKey(otherPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(first, other) {
		t.Error("two new keys are equal")
	}

	for _, size := range []int{0, 31, 33, 64} {
		bad := filepath.Join(dir, "bad.key")
		content := bytes.Repeat([]byte{7}, size)
		if err := os.WriteFile(bad, content, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadOrCreateKey(bad); err == nil {
			t.Errorf("a file of %d bytes was accepted", size)
		}
		if got, _ := os.ReadFile(bad); !bytes.Equal(got, content) {
			t.Errorf("a file of %d bytes was overwritten", size)
		}
	}

	if _, err := LoadOrCreateKey(dir); err == nil {
		t.Error("a directory was accepted as the key file")
	}
}
