package tokens

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
)

// Metadata index statuses: the contract's NftTokenMetadataStatus values.
const (
	StatusUnknown             = "UNKNOWN"
	StatusMissingToken        = "MISSING_TOKEN"
	StatusInvalidTokenURI     = "INVALID_TOKEN_URI"
	StatusInvalidScheme       = "INVALID_TOKEN_URI_SCHEME"
	StatusUnreachable         = "UNREACHABLE_TOKEN_URI"
	StatusThrottled           = "THROTTLED_TOKEN_URI"
	StatusTooLarge            = "METADATA_CONTENT_TOO_LARGE"
	StatusInvalidMetadata     = "INVALID_METADATA"
	StatusInvalidMetadataJSON = "INVALID_METADATA_JSON"
	StatusIndexed             = "INDEXED"
	StatusUnindexed           = "UNINDEXED"
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
	// Client makes the requests; nil: a client with Timeout.
	Client *http.Client
}

// metadataReader reads NFT metadata documents.
type metadataReader struct {
	opts FetchOptions
	now  func() time.Time
}

// read returns the metadata of the document at uri.
func (m *metadataReader) read(ctx context.Context, uri string) store.NFTMetadata {
	if strings.TrimSpace(uri) == "" {
		return store.NFTMetadata{Status: StatusInvalidTokenURI}
	}
	u, err := url.Parse(uri)
	if err != nil {
		return store.NFTMetadata{Status: StatusInvalidTokenURI}
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
			return store.NFTMetadata{Status: StatusUnindexed}
		}
		var status string
		if doc, status = m.fetch(ctx, u); status != "" {
			return store.NFTMetadata{Status: status}
		}
	default:
		return store.NFTMetadata{Status: StatusInvalidScheme}
	}
	md := parseMetadata(doc)
	if md.Status == StatusIndexed {
		md.UpdatedAt = uint64(m.now().Unix())
	}
	return md
}

// dataURI decodes a data: URI (RFC 2397); status is set when it cannot be
// read or is larger than maxBytes.
func dataURI(uri string, maxBytes int64) ([]byte, string) {
	header, payload, ok := strings.Cut(uri[len("data:"):], ",")
	if !ok {
		return nil, StatusInvalidTokenURI
	}
	var doc []byte
	if strings.HasSuffix(strings.ToLower(header), ";base64") {
		if int64(base64.StdEncoding.DecodedLen(len(payload))) > maxBytes+3 {
			return nil, StatusTooLarge
		}
		b, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			if b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(payload, "=")); err != nil {
				return nil, StatusInvalidTokenURI
			}
		}
		doc = b
	} else {
		s, err := url.PathUnescape(payload)
		if err != nil {
			return nil, StatusInvalidTokenURI
		}
		doc = []byte(s)
	}
	if int64(len(doc)) > maxBytes {
		return nil, StatusTooLarge
	}
	return doc, ""
}

// fetch reads a remote document; status is set when it cannot.
func (m *metadataReader) fetch(ctx context.Context, u *url.URL) ([]byte, string) {
	target := u.String()
	if strings.EqualFold(u.Scheme, "ipfs") {
		path := strings.TrimPrefix(strings.TrimPrefix(u.Host+u.Path, "ipfs/"), "/")
		if m.opts.IPFSGateway == "" || path == "" {
			return nil, StatusInvalidScheme
		}
		target = strings.TrimSuffix(m.opts.IPFSGateway, "/") + "/" + path
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, StatusInvalidTokenURI
	}
	req.Header.Set("Accept", "application/json")
	client := m.opts.Client
	if client == nil {
		client = &http.Client{Timeout: m.opts.Timeout}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, StatusUnreachable
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return nil, StatusThrottled
	case resp.StatusCode/100 != 2:
		return nil, StatusUnreachable
	case resp.ContentLength > m.opts.MaxBytes:
		return nil, StatusTooLarge
	}
	doc, err := io.ReadAll(io.LimitReader(resp.Body, m.opts.MaxBytes+1))
	switch {
	case err != nil:
		return nil, StatusUnreachable
	case int64(len(doc)) > m.opts.MaxBytes:
		return nil, StatusTooLarge
	}
	return doc, ""
}

// parseMetadata reads an ERC-721 / ERC-1155 metadata JSON document.
func parseMetadata(doc []byte) store.NFTMetadata {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return store.NFTMetadata{Status: StatusInvalidMetadataJSON}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return store.NFTMetadata{Status: StatusInvalidMetadataJSON}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return store.NFTMetadata{Status: StatusInvalidMetadata}
	}
	md := store.NFTMetadata{
		Status:       StatusIndexed,
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
