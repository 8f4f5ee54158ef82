package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/rest"
)

// The two sections of docs/data-api.md and docs/metrics-api.md that list
// the contract's operations a node answers without serving them: the ones
// not served yet, which get the router's unknown-route answer, and the
// ones a self-hosted node cannot serve, which get rest.Unservable's 404.
const (
	notServedYet = "Not served yet"
	notServable  = "Not servable by a self-hosted node"
)

// unservableMessage is in the message of every rest.Unservable answer.
const unservableMessage = "is not served by a self-hosted node: "

// operation is one method and path of a contract.
type operation struct {
	Method, Path string
}

func (o operation) String() string { return o.Method + " " + o.Path }

// TestContractCoverage walks every path and method of the data and metrics
// contracts against a node started from the embedded default config and
// fails on each that gets the router's unknown-route answer, except the
// rows of the docs' "Not served yet" tables; a listed one that is served
// fails too, so that a list never goes stale. The rows of the "Not
// servable by a self-hosted node" tables must answer rest.Unservable's
// 404.
func TestContractCoverage(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	chainID, err := evmDial(t, n, "C", "rpc").ChainID(ctx)
	if err != nil {
		t.Fatalf("eth_chainId of C: %v", err)
	}
	// Plausible values of the node's own; every other path parameter takes
	// the contract's example.
	values := map[string]string{"chainId": chainID.String(), "address": evmLocalAddr, "network": "fuji"}
	for _, c := range []struct{ contract, doc string }{
		{"../../reference/openapi/data-api.json", "../../docs/data-api.md"},
		{"../../reference/openapi/metrics-api.json", "../../docs/metrics-api.md"},
	} {
		ops, params := contractOperations(t, c.contract)
		notYet := docOperations(t, c.doc, notServedYet, ops)
		unservable := docOperations(t, c.doc, notServable, ops)
		for _, op := range ops {
			path, err := fillPath(op.Path, params[op], values)
			if err != nil {
				t.Fatalf("%s: %v", c.contract, err)
			}
			status, msg := send(t, ctx, op.Method, n.URL+path)
			unrouted := unknownRoute(status, msg)
			_, later := notYet[op]
			_, never := unservable[op]
			switch {
			case later && never:
				t.Errorf("%s: listed in both %q and %q of %s", op, notServedYet, notServable, c.doc)
			case later && !unrouted:
				t.Errorf("%s (%s) is served now (%d %q): remove its row from %q of %s", op, path, status, msg, notServedYet, c.doc)
			case later:
			case never:
				if status != http.StatusNotFound || !strings.Contains(msg, unservableMessage) {
					t.Errorf("%s (%s): %d %q, want the 404 of a path a self-hosted node cannot serve (%s lists it)", op, path, status, msg, c.doc)
				}
			case unrouted:
				t.Errorf("%s (%s): %d %q, the router's answer to an unknown route: serve it, or list it in %q of %s", op, path, status, msg, notServedYet, c.doc)
			}
		}
	}
}

// unknownRoute reports whether an answer is the router's to a method and
// path it does not route: the host's 404 for a path outside every
// module's prefixes, a module mux's 404 for a path it does not know, or
// its 405 for a method it does not serve on a known path (docs/rest.md,
// "Routing").
func unknownRoute(status int, msg string) bool {
	switch status {
	case http.StatusNotFound:
		return strings.HasPrefix(msg, "no route for ") || strings.HasPrefix(msg, "no endpoint ")
	case http.StatusMethodNotAllowed:
		return strings.HasPrefix(msg, "method ") && strings.HasSuffix(msg, " not allowed: use GET")
	}
	return false
}

// send sends method to url, with an empty JSON object as the body of a
// method that takes one, and returns the status and the message of a
// REST error body ("" for another answer).
func send(t *testing.T, ctx context.Context, method, url string) (int, string) {
	t.Helper()
	body := ""
	if method != http.MethodGet && method != http.MethodDelete {
		body = "{}"
	}
	status, b := rawRequest(t, ctx, method, url, body)
	var e rest.ErrorBody
	if status < 400 || json.Unmarshal([]byte(b), &e) != nil {
		return status, ""
	}
	switch m := e.Message.(type) {
	case string:
		return status, m
	case []any: // the messages style of the metrics v1 routes
		if len(m) > 0 {
			s, _ := m[0].(string)
			return status, s
		}
	}
	return status, ""
}

// pathParam is a path parameter of an operation, with its example.
type pathParam struct {
	Name    string `json:"name"`
	In      string `json:"in"`
	Example any    `json:"example"`
}

// contractOperations returns every operation of the OpenAPI contract at
// path, in the contract's order of paths, and the path parameters of
// each.
func contractOperations(t *testing.T, path string) ([]operation, map[operation][]pathParam) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var ops []operation
	params := map[operation][]pathParam{}
	for p, methods := range doc.Paths {
		for m, raw := range methods {
			method := strings.ToUpper(m)
			if !slices.Contains([]string{"GET", "POST", "PUT", "PATCH", "DELETE"}, method) {
				continue
			}
			var o struct {
				Parameters []pathParam `json:"parameters"`
			}
			if err := json.Unmarshal(raw, &o); err != nil {
				t.Fatalf("%s: %s %s: %v", path, method, p, err)
			}
			op := operation{method, p}
			ops = append(ops, op)
			for _, prm := range o.Parameters {
				if prm.In == "path" {
					params[op] = append(params[op], prm)
				}
			}
		}
	}
	slices.SortFunc(ops, func(a, b operation) int { return strings.Compare(a.String(), b.String()) })
	if len(ops) == 0 {
		t.Fatalf("%s: no operations", path)
	}
	return ops, params
}

var placeholder = regexp.MustCompile(`\{([^}]+)\}`)

// fillPath replaces each {name} of path with values[name], or else the
// parameter's example.
func fillPath(path string, params []pathParam, values map[string]string) (string, error) {
	var missing error
	out := placeholder.ReplaceAllStringFunc(path, func(m string) string {
		name := m[1 : len(m)-1]
		if v, ok := values[name]; ok {
			return v
		}
		for _, p := range params {
			if p.Name == name && p.Example != nil {
				return fmt.Sprint(p.Example)
			}
		}
		missing = fmt.Errorf("%s: path parameter %s has no example and no value of the test's", path, name)
		return m
	})
	return out, missing
}

// docRow is a row of a table of the docs: `| METHOD | `path` | why |`.
var docRow = regexp.MustCompile("^\\| *([A-Z]+) *\\| *`([^`]+)` *\\| *(.+?) *\\|$")

// docOperations returns the operations of the table under the heading
// "## "+section of the Markdown file doc, failing the test when the
// section is missing, a row has no reason, or names no operation of ops.
func docOperations(t *testing.T, doc, section string, ops []operation) map[operation]string {
	t.Helper()
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[operation]string{}
	in, found := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## "+section
			found = found || in
			continue
		}
		m := docRow.FindStringSubmatch(line)
		if !in || m == nil {
			continue
		}
		op := operation{m[1], m[2]}
		if !slices.Contains(ops, op) {
			t.Errorf("%s, %q: %s is no operation of the contract", doc, section, op)
		}
		out[op] = m[3]
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Fatalf("%s has no section %q", doc, section)
	}
	return out
}
