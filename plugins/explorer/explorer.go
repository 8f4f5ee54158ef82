// Package explorer is the explorer module: a small web front end for
// people, embedded in the binary and served at /explorer, that shows the
// node, its chains and their data by calling the node's public APIs from
// the browser (docs/explorer.md). The module itself reads no chain: it
// only serves the built assets.
package explorer

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"strings"

	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/confjson"
	"github.com/chainhost/chainhost/sdk/rest"
)

// Name is the module plugin's name.
const Name = "explorer"

// Prefix is the path prefix the module serves unless its config names
// others.
const Prefix = "/explorer"

// config is the module's config: it has no keys yet, and refuses unknown
// ones like every module.
type config struct{}

// CheckConfig reports what is wrong with the module's config: it has no
// key, so anything but an empty object is (the doc tests check config
// files with it, docs/doctest.md).
func CheckConfig(raw []byte) error {
	var cfg config
	return confjson.Decode(raw, &cfg)
}

// Options configures a Module.
type Options struct {
	// Assets holds the built front end in web/dist; nil: the one embedded
	// in the binary.
	Assets fs.FS
}

// Module is the explorer module.
type Module struct {
	opts     Options
	prefixes []string
	assets   *assets
	pages    []*asset // index.html as each prefix serves it
}

// New returns an uninitialized module.
func New(opts Options) *Module {
	if opts.Assets == nil {
		opts.Assets = distFS
	}
	return &Module{opts: opts}
}

// Initialize checks the config and loads the embedded assets.
func (m *Module) Initialize(_ context.Context, env *sdk.Env) error {
	if err := CheckConfig(env.Config); err != nil {
		return fmt.Errorf("module %s config: %w", env.Name, err)
	}
	a, err := loadAssets(m.opts.Assets)
	if err != nil {
		return err
	}
	m.assets = a
	m.prefixes = env.Prefixes
	if len(m.prefixes) == 0 {
		m.prefixes = []string{Prefix}
	}
	for _, p := range m.prefixes {
		page, err := a.page(p)
		if err != nil {
			return fmt.Errorf("explorer page for %s: %w", p, err)
		}
		m.pages = append(m.pages, page)
	}
	return nil
}

// Handler serves the assets below each of the module's prefixes.
func (m *Module) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i, p := range m.prefixes {
			if rest, ok := strings.CutPrefix(r.URL.Path, p); ok && (rest == "" || rest[0] == '/') {
				m.assets.serve(w, r, p, rest, m.pages[i])
				return
			}
		}
		rest.WriteError(w, rest.NotFound("no page at %s", rest.Quote(r.URL.Path)))
	})
}

// Shutdown has nothing to stop.
func (m *Module) Shutdown(context.Context) error { return nil }
