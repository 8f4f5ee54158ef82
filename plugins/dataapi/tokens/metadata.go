package tokens

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
)

// Metadata index statuses: the contract's NftTokenMetadataStatus values.
const (
	statusUnknown             = "UNKNOWN"
	statusMissingToken        = "MISSING_TOKEN"
	statusInvalidTokenURI     = "INVALID_TOKEN_URI"
	statusInvalidScheme       = "INVALID_TOKEN_URI_SCHEME"
	statusUnreachable         = "UNREACHABLE_TOKEN_URI"
	statusThrottled           = "THROTTLED_TOKEN_URI"
	statusTooLarge            = "METADATA_CONTENT_TOO_LARGE"
	statusInvalidMetadata     = "INVALID_METADATA"
	statusInvalidMetadataJSON = "INVALID_METADATA_JSON"
	statusIndexed             = "INDEXED"
	statusUnindexed           = "UNINDEXED"
)

// FetchOptions says whether and how NFT metadata documents are fetched
// over the network. data: URIs are read in any case.
type FetchOptions struct {
	// Enabled turns remote fetching on (http, https, and ipfs through
	// IPFSGateway). Off, such documents are left UNINDEXED.
	Enabled bool
	// Timeout bounds one fetch.
	Timeout time.Duration
	// MaxBytes is the largest document read; larger is
	// METADATA_CONTENT_TOO_LARGE. It applies to data: URIs too.
	MaxBytes int64
	// IPFSGateway is the URL prefix ipfs://<cid>/<path> is fetched from,
	// like "https://ipfs.io/ipfs/".
	IPFSGateway string
	// AllowPrivate lets fetches reach private, loopback and link-local
	// addresses; off, a URI (or a redirect, or a name resolving) to one is
	// UNREACHABLE_TOKEN_URI: a token's URI is anyone's to choose, and must
	// not make the node a proxy into its own network.
	AllowPrivate bool
	// Client makes the requests; nil (NewReader): a client with Timeout
	// that dials only what AllowPrivate allows.
	Client *http.Client
}

// errPrivate refuses a connection to a private address.
var errPrivate = errors.New("refused: a private, loopback or link-local address (nft-metadata.allow-private-addresses is off)")

// publicOnly is a dialer's Control refusing what AllowPrivate does not
// allow: it sees the address actually dialled, after name resolution and
// on every redirect.
func publicOnly(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return err
	}
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified() ||
		ip.IsMulticast() || ip.IsInterfaceLocalMulticast() {
		return errPrivate
	}
	return nil
}

// newClient returns the client of FetchOptions without one.
func newClient(o FetchOptions) *http.Client {
	d := &net.Dialer{Timeout: o.Timeout}
	if !o.AllowPrivate {
		d.Control = publicOnly
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil // a proxy would dial for us, unchecked
	t.DialContext = d.DialContext
	return &http.Client{Timeout: o.Timeout, Transport: t}
}

// metadataReader reads NFT metadata documents.
type metadataReader struct {
	opts FetchOptions
	now  func() time.Time
}

// read returns the metadata of the document at uri.
func (m *metadataReader) read(ctx context.Context, uri string) store.NFTMetadata {
	if strings.TrimSpace(uri) == "" {
		return store.NFTMetadata{Status: statusInvalidTokenURI}
	}
	u, err := url.Parse(uri)
	if err != nil {
		return store.NFTMetadata{Status: statusInvalidTokenURI}
	}
	var doc []byte
	switch strings.ToLower(u.Scheme) {
	case "data":
		var status string
		if doc, status = dataURI(uri, m.opts.MaxBytes); status != "" {
			return store.NFTMetadata{Status: status}
		}
	case "http", "https", "ipfs":
		if !m.opts.Enabled {
			return store.NFTMetadata{Status: statusUnindexed}
		}
		var status string
		if doc, status = m.fetch(ctx, u); status != "" {
			return store.NFTMetadata{Status: status}
		}
	default:
		return store.NFTMetadata{Status: statusInvalidScheme}
	}
	md := parseMetadata(doc)
	if md.Status == statusIndexed {
		md.UpdatedAt = uint64(m.now().Unix())
	}
	return md
}

// dataURI decodes a data: URI (RFC 2397); status is set when it cannot be
// read or is larger than maxBytes.
func dataURI(uri string, maxBytes int64) ([]byte, string) {
	header, payload, ok := strings.Cut(uri[len("data:"):], ",")
	if !ok {
		return nil, statusInvalidTokenURI
	}
	var doc []byte
	if strings.HasSuffix(strings.ToLower(header), ";base64") {
		if int64(base64.StdEncoding.DecodedLen(len(payload))) > maxBytes+3 {
			return nil, statusTooLarge
		}
		b, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			if b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(payload, "=")); err != nil {
				return nil, statusInvalidTokenURI
			}
		}
		doc = b
	} else {
		s, err := url.PathUnescape(payload)
		if err != nil {
			return nil, statusInvalidTokenURI
		}
		doc = []byte(s)
	}
	if int64(len(doc)) > maxBytes {
		return nil, statusTooLarge
	}
	return doc, ""
}

// fetch reads a remote document; status is set when it cannot.
func (m *metadataReader) fetch(ctx context.Context, u *url.URL) ([]byte, string) {
	target := u.String()
	if strings.EqualFold(u.Scheme, "ipfs") {
		path := strings.TrimPrefix(strings.TrimPrefix(u.Host+u.Path, "ipfs/"), "/")
		if m.opts.IPFSGateway == "" || path == "" {
			return nil, statusInvalidScheme
		}
		target = strings.TrimSuffix(m.opts.IPFSGateway, "/") + "/" + path
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, statusInvalidTokenURI
	}
	req.Header.Set("Accept", "application/json")
	client := m.opts.Client
	if client == nil {
		client = newClient(m.opts)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, statusUnreachable
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return nil, statusThrottled
	case resp.StatusCode/100 != 2:
		return nil, statusUnreachable
	case resp.ContentLength > m.opts.MaxBytes:
		return nil, statusTooLarge
	}
	doc, err := io.ReadAll(io.LimitReader(resp.Body, m.opts.MaxBytes+1))
	switch {
	case err != nil:
		return nil, statusUnreachable
	case int64(len(doc)) > m.opts.MaxBytes:
		return nil, statusTooLarge
	}
	return doc, ""
}

// parseMetadata reads an ERC-721 / ERC-1155 metadata JSON document.
func parseMetadata(doc []byte) store.NFTMetadata {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return store.NFTMetadata{Status: statusInvalidMetadataJSON}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return store.NFTMetadata{Status: statusInvalidMetadataJSON}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return store.NFTMetadata{Status: statusInvalidMetadata}
	}
	md := store.NFTMetadata{
		Status:       statusIndexed,
		Name:         text(obj["name"]),
		Symbol:       text(obj["symbol"]),
		Description:  text(obj["description"]),
		ImageURI:     text(first(obj["image"], obj["image_url"])),
		AnimationURI: text(obj["animation_url"]),
		ExternalURL:  text(first(obj["external_url"], obj["external_link"])),
		Background:   text(obj["background_color"]),
		Attributes:   jsonText(obj["attributes"]),
		Properties:   jsonText(obj["properties"]),
	}
	if n, ok := obj["decimals"].(json.Number); ok {
		if d, err := n.Int64(); err == nil && d >= 0 && d <= 255 {
			md.Decimals, md.HasDecimals = uint64(d), true
		}
	}
	return md
}

// first returns the first of vs that is not nil.
func first(vs ...any) any {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

// text returns a string member, cleaned; "" for anything else.
func text(v any) string {
	s, _ := v.(string)
	return clean(s)
}

// jsonText returns a member as JSON text, "" when absent.
func jsonText(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return clean(string(b))
}

// substituteID replaces the {id} of an ERC-1155 URI with the token ID as
// 64 lowercase hex digits (ERC-1155 "Metadata").
func substituteID(uri string, id []byte) string {
	if !strings.Contains(uri, "{id}") {
		return uri
	}
	return strings.ReplaceAll(uri, "{id}", fmt.Sprintf("%064x", id))
}
