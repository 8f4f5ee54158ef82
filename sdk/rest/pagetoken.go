package rest

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The page token format; docs/rest.md "Page tokens" describes it.
const (
	tokenVersion   = 1
	tokenHeaderLen = 1 + 8 // version, issued-at
	tokenMACLen    = sha256.Size
	maxTokenLen    = 2048 // characters, the longest token Seal makes and Open reads
	keyLen         = 32   // bytes, the key LoadOrCreateKey keeps and the least NewPageTokens takes
)

// pageTokenParam is the query parameter page tokens arrive in.
const pageTokenParam = "pageToken"

// PageTokens seals and opens page tokens: an opaque string carrying a
// cursor, bound to a scope (the endpoint and the query it pages), signed
// with HMAC-SHA256 under a key the module keeps, valid for TTL (0 = no
// expiry). It is safe for concurrent use.
type PageTokens struct {
	key []byte
	ttl time.Duration
	now func() time.Time // the clock; tests replace it
}

// NewPageTokens returns page tokens signed with key (at least 32 bytes)
// that expire ttl after they are sealed (0: never).
func NewPageTokens(key []byte, ttl time.Duration) (*PageTokens, error) {
	if len(key) < keyLen {
		return nil, fmt.Errorf("page token key: %d bytes, want at least %d", len(key), keyLen)
	}
	if ttl < 0 {
		return nil, fmt.Errorf("page token ttl: %v, want 0 or more", ttl)
	}
	return &PageTokens{key: append([]byte(nil), key...), ttl: ttl, now: time.Now}, nil
}

// Scope returns a scope for Seal and Open made of parts (the endpoint and
// the query values that select what is paged), joined so that different
// parts never give the same scope.
func Scope(parts ...string) string {
	quoted := make([]string, len(parts))
	for i, part := range parts {
		quoted[i] = strconv.Quote(part)
	}
	return strings.Join(quoted, " ")
}

// Seal returns a page token carrying cursor (marshalled as JSON) for scope.
func (p *PageTokens) Seal(scope string, cursor any) (string, error) {
	cursorJSON, err := json.Marshal(cursor)
	if err != nil {
		return "", fmt.Errorf("seal page token: marshal cursor: %w", err)
	}
	issued := max(p.now().Unix(), 0)
	raw := make([]byte, 0, tokenHeaderLen+len(cursorJSON)+tokenMACLen)
	raw = append(raw, tokenVersion)
	raw = binary.BigEndian.AppendUint64(raw, uint64(issued))
	raw = append(raw, cursorJSON...)
	raw = append(raw, p.mac(raw[:tokenHeaderLen], scope, cursorJSON)...)
	token := base64.RawURLEncoding.EncodeToString(raw)
	if len(token) > maxTokenLen {
		return "", fmt.Errorf("seal page token: %d characters, over the limit of %d (cursor too large)", len(token), maxTokenLen)
	}
	return token, nil
}

// Open reads the cursor out of token into cursor (a pointer). A forged,
// truncated, expired or malformed token, one sealed under another key, or
// one sealed for another scope is a 400 *Error naming pageToken.
func (p *PageTokens) Open(token, scope string, cursor any) error {
	if token == "" {
		return BadRequest("%s: must not be empty", pageTokenParam)
	}
	invalid := BadRequest("%s: not a valid page token for this request", pageTokenParam)
	if len(token) > maxTokenLen {
		return invalid.WithCause(fmt.Errorf("token of %d characters, over the limit of %d", len(token), maxTokenLen))
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return invalid.WithCause(fmt.Errorf("decode base64: %w", err))
	}
	// The decoder skips newlines and ignores the unused bits of the last
	// character: accept only the one spelling Seal makes.
	if base64.RawURLEncoding.EncodeToString(raw) != token {
		return invalid.WithCause(errors.New("not canonical base64url"))
	}
	if len(raw) < tokenHeaderLen+tokenMACLen {
		return invalid.WithCause(fmt.Errorf("truncated: %d bytes", len(raw)))
	}
	if raw[0] != tokenVersion {
		return invalid.WithCause(fmt.Errorf("version %d, want %d", raw[0], tokenVersion))
	}
	header := raw[:tokenHeaderLen]
	cursorJSON := raw[tokenHeaderLen : len(raw)-tokenMACLen]
	mac := raw[len(raw)-tokenMACLen:]
	if !hmac.Equal(mac, p.mac(header, scope, cursorJSON)) {
		return invalid.WithCause(errors.New("MAC mismatch: forged, another key or another scope"))
	}
	issued := binary.BigEndian.Uint64(header[1:])
	if p.ttl > 0 {
		// issued is what Seal wrote (the MAC holds), a non-negative int64.
		if age := p.now().Sub(time.Unix(int64(issued), 0)); age >= p.ttl {
			return BadRequest("%s: expired, request the first page again", pageTokenParam).
				WithCause(fmt.Errorf("sealed %v ago, ttl %v", age.Truncate(time.Second), p.ttl))
		}
	}
	if err := json.Unmarshal(cursorJSON, cursor); err != nil {
		var target *json.InvalidUnmarshalError
		if errors.As(err, &target) {
			return fmt.Errorf("open page token: %w", err)
		}
		return invalid.WithCause(fmt.Errorf("decode cursor: %w", err))
	}
	return nil
}

// mac returns the HMAC-SHA256 of version and issued-at (header), the length
// of scope (uint32 big endian), scope and the cursor JSON.
func (p *PageTokens) mac(header []byte, scope string, cursorJSON []byte) []byte {
	h := hmac.New(sha256.New, p.key)
	h.Write(header)
	h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(scope))))
	h.Write([]byte(scope))
	h.Write(cursorJSON)
	return h.Sum(nil)
}

// LoadOrCreateKey returns the 32-byte key in the file at path, creating it
// (crypto/rand, mode 0600, written atomically: temp file + rename) when
// missing. A file of the wrong size is an error.
func LoadOrCreateKey(path string) ([]byte, error) {
	key, err := os.ReadFile(path)
	switch {
	case err == nil:
		if len(key) != keyLen {
			return nil, fmt.Errorf("page token key %s: %d bytes, want %d", path, len(key), keyLen)
		}
		return key, nil
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("read page token key: %w", err)
	}
	key = make([]byte, keyLen)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("create page token key %s: %w", path, err)
	}
	if err := writeFileAtomic(path, key); err != nil {
		return nil, fmt.Errorf("create page token key: %w", err)
	}
	return key, nil
}

// writeFileAtomic writes data to path with mode 0600 through a temporary
// file in the same directory, renamed into place once synced.
func writeFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("make directory %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temporary file in %s: %w", dir, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp.Name(), err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename %s to %s: %w", tmp.Name(), path, err)
	}
	// Make the rename itself durable; a directory that cannot be synced
	// (some filesystems refuse) still holds the key.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
