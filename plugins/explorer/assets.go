package explorer

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/chainhost/chainhost/sdk/rest"
)

// distFS holds the built front end: `make build` runs its build into
// web/dist (docs/explorer.md, "Building"). The folder is committed with
// a .gitkeep alone, so that the Go code builds before the front end is.
//
//go:embed all:web/dist
var distFS embed.FS

// distDir is distFS's folder of the built files.
const distDir = "web/dist"

// indexFile is the page every route of the front end answers with; the
// front end reads the route from the URL.
const indexFile = "index.html"

// assetsDir holds the files whose names carry a hash of their content,
// cached for good.
const assetsDir = "assets/"

// baseMarker is where index.html gets the prefix it is served under, so
// that its relative URLs resolve below the prefix from any route.
const baseMarker = "<head>"

// contentSecurityPolicy lets the page load only its own origin's files:
// no external script, style, font or tracker. It may call other origins
// (HTTP and WebSocket) because the external chains the data API lists
// answer at their own nodes' URLs, which only the browser learns; the
// page's own script calls nothing else (docs/explorer.md, "Serving").
const contentSecurityPolicy = "default-src 'self'; connect-src 'self' http: https: ws: wss:; img-src 'self' data:; style-src 'self'; script-src 'self'; " +
	"base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

// asset is one file, ready to serve.
type asset struct {
	body, gzipped []byte
	contentType   string
	etag          string
	cacheControl  string
}

// assets are the built files by path below dist, and index.html.
type assets struct {
	files map[string]*asset
	index []byte
}

// errNotBuilt is Initialize's error when the binary was built without the
// front end.
var errNotBuilt = errors.New("the explorer's front end is not built into this binary: build it with make build (npm ci and npm run build in plugins/explorer/web, then go build ./cmd/explorer)")

// loadAssets reads and compresses the built files of fsys's dist folder.
func loadAssets(fsys fs.FS) (*assets, error) {
	dist, err := fs.Sub(fsys, distDir)
	if err != nil {
		return nil, fmt.Errorf("explorer assets: %w", err)
	}
	a := &assets{files: map[string]*asset{}}
	err = fs.WalkDir(dist, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(path.Base(name), ".") {
			return err
		}
		body, err := fs.ReadFile(dist, name)
		if err != nil {
			return err
		}
		if name == indexFile {
			a.index = body
			return nil
		}
		cache := "no-cache"
		if strings.HasPrefix(name, assetsDir) {
			cache = "public, max-age=31536000, immutable"
		}
		a.files[name], err = newAsset(name, body, cache)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("explorer assets: %w", err)
	}
	if a.index == nil {
		return nil, errNotBuilt
	}
	if !bytes.Contains(a.index, []byte(baseMarker)) {
		return nil, fmt.Errorf("explorer assets: %s has no %s", indexFile, baseMarker)
	}
	return a, nil
}

// newAsset prepares body for serving: its type by extension, its
// compressed form and its entity tag.
func newAsset(name string, body []byte, cacheControl string) (*asset, error) {
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(body); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	sum := sha256.Sum256(body)
	return &asset{body: body, gzipped: gz.Bytes(), contentType: ctype,
		etag: `"` + hex.EncodeToString(sum[:12]) + `"`, cacheControl: cacheControl}, nil
}

// page returns index.html as served under prefix.
func (a *assets) page(prefix string) (*asset, error) {
	body := bytes.Replace(a.index, []byte(baseMarker), []byte(baseMarker+`<base href="`+html.EscapeString(prefix)+`/">`), 1)
	return newAsset(indexFile, body, "no-cache")
}

// serve answers a request for rest, the path below prefix: a built file,
// else, outside assetsDir, the page (the front end routes by URL).
func (a *assets) serve(w http.ResponseWriter, r *http.Request, prefix, rest string, page *asset) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		restWriteError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed: use GET", r.Method))
		return
	}
	if rest == "" {
		http.Redirect(w, r, prefix+"/", http.StatusFound)
		return
	}
	f, ok := a.files[strings.TrimPrefix(rest, "/")]
	if !ok {
		if strings.HasPrefix(rest, "/"+assetsDir) {
			restWriteError(w, http.StatusNotFound, fmt.Sprintf("no file %s", rest))
			return
		}
		f = page
	}
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("Cache-Control", f.cacheControl)
	h.Set("ETag", f.etag)
	h.Set("Vary", "Accept-Encoding")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("Referrer-Policy", "no-referrer")
	if r.Header.Get("If-None-Match") == f.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := f.body
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = f.gzipped
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// acceptsGzip reports whether the client takes gzip (every browser does).
func acceptsGzip(r *http.Request) bool {
	for part := range strings.SplitSeq(r.Header.Get("Accept-Encoding"), ",") {
		coding, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// restWriteError answers in the REST error body (docs/rest.md).
func restWriteError(w http.ResponseWriter, status int, msg string) {
	rest.WriteError(w, rest.Errorf(status, "%s", msg))
}
