package explorer

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/plugintest"
	"github.com/chainhost/chainhost/sdk/rest"
)

// testDist is a built front end in miniature.
var testDist = fstest.MapFS{
	"web/dist/.gitkeep":            {},
	"web/dist/index.html":          {Data: []byte(`<!doctype html><html><head><script type="module" src="assets/app-1.js"></script></head></html>`)},
	"web/dist/assets/app-1.js":     {Data: []byte(strings.Repeat("console.log('explorer');\n", 100))},
	"web/dist/assets/app-1.css":    {Data: []byte("body{margin:0}")},
	"web/dist/robots.txt":          {Data: []byte("User-agent: *\n")},
	"web/dist/assets/.hidden-file": {Data: []byte("x")},
}

func get(t *testing.T, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// The transport would ask for gzip itself and hide the encoding.
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// TestServe: each route of the front end answers the page with the base
// of the prefix it was asked under; files answer with their type, cached
// for good under assets/, compressed for clients that take gzip and not
// sent again when unchanged; what is not there, and other methods, get
// the REST error body.
func TestServe(t *testing.T) {
	h := plugintest.StartModule(t, New(Options{Assets: testDist}), plugintest.Options{Name: "explorer", Config: []byte("{}"), Prefixes: []string{"/explorer", "/ui/x"}})
	url := h.ModuleURL()

	pages := []struct{ path, base string }{
		{"/explorer/", "/explorer/"},
		{"/explorer/chain/C/tx/0xab", "/explorer/"},
		{"/ui/x/address/X-local1abc", "/ui/x/"},
	}
	for _, p := range pages {
		res, body := get(t, url+p.path)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
			!strings.Contains(string(body), `<head><base href="`+p.base+`"><script`) || res.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("GET %s = %d %v %s", p.path, res.StatusCode, res.Header, body)
		}
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("GET %s: Content-Security-Policy %q", p.path, csp)
		}
	}

	res, body := get(t, url+"/explorer/assets/app-1.js")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") ||
		!strings.Contains(res.Header.Get("Cache-Control"), "immutable") || res.Header.Get("Content-Encoding") != "" ||
		string(body) != string(testDist["web/dist/assets/app-1.js"].Data) {
		t.Errorf("GET app-1.js = %d %v (%d bytes)", res.StatusCode, res.Header, len(body))
	}
	etag := res.Header.Get("ETag")
	res, gz := get(t, url+"/explorer/assets/app-1.js", "Accept-Encoding", "br, gzip;q=0.8")
	if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Vary") != "Accept-Encoding" || len(gz) >= len(body) {
		t.Fatalf("GET app-1.js with gzip = %v, %d bytes of %d", res.Header, len(gz), len(body))
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := io.ReadAll(zr); err != nil || !bytes.Equal(plain, body) {
		t.Errorf("gzip body decodes to %d bytes (%v), want the file", len(plain), err)
	}
	if res, _ := get(t, url+"/explorer/assets/app-1.js", "Accept-Encoding", "gzip;q=0"); res.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 answered with %q", res.Header.Get("Content-Encoding"))
	}
	if res, body := get(t, url+"/explorer/assets/app-1.js", "If-None-Match", etag); res.StatusCode != 304 || len(body) != 0 {
		t.Errorf("GET with If-None-Match %s = %d (%d bytes), want 304", etag, res.StatusCode, len(body))
	}
	if res, body := get(t, url+"/explorer/robots.txt"); res.StatusCode != 200 || string(body) != "User-agent: *\n" || res.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("GET robots.txt = %d %v %q", res.StatusCode, res.Header, body)
	}

	res, _ = get(t, url+"/explorer")
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/explorer/" {
		t.Errorf("GET /explorer = %d, Location %q", res.StatusCode, res.Header.Get("Location"))
	}

	errs := []struct {
		method, path string
		status       int
		msg          string
	}{
		{http.MethodGet, "/explorer/assets/app-2.js", 404, "no file /assets/app-2.js"},
		{http.MethodGet, "/explorer/assets/.hidden-file", 404, "no file /assets/.hidden-file"},
		{http.MethodGet, "/explorerx", 404, `no page at "/explorerx"`},
		{http.MethodPost, "/explorer/", 405, "method POST not allowed: use GET"},
	}
	for _, e := range errs {
		req, _ := http.NewRequest(e.method, url+e.path, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body rest.ErrorBody
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if err != nil || res.StatusCode != e.status || body.StatusCode != e.status || body.Message != e.msg || body.Error != rest.StatusName(e.status) {
			t.Errorf("%s %s = %d %+v (%v), want %d %q", e.method, e.path, res.StatusCode, body, err, e.status, e.msg)
		}
	}
}

// TestNotBuilt: a binary built before the front end refuses to start,
// saying how to build it, rather than serving an empty page.
func TestNotBuilt(t *testing.T) {
	_, err := loadAssets(fstest.MapFS{"web/dist/.gitkeep": {}})
	if !errors.Is(err, errNotBuilt) {
		t.Errorf("loadAssets without index.html = %v, want %v", err, errNotBuilt)
	}
	_, err = loadAssets(fstest.MapFS{"web/dist/index.html": {Data: []byte("<html></html>")}})
	if err == nil || !strings.Contains(err.Error(), "has no <head>") {
		t.Errorf("loadAssets of a page without <head> = %v", err)
	}
}

// TestConfig: the module refuses config keys it does not know.
func TestConfig(t *testing.T) {
	err := New(Options{Assets: testDist}).Initialize(t.Context(), &sdk.Env{Name: "explorer", Config: []byte(`{"colour":"blue"}`)})
	if err == nil || !strings.Contains(err.Error(), `module explorer config: json: unknown field "colour"`) {
		t.Errorf("Initialize with an unknown key = %v", err)
	}
}
