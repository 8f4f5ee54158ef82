package firsthour

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The doc runner's own checks, on inputs made to fail: a runner that
// passes everything would pass the docs too.

func TestShapeDiff(t *testing.T) {
	for _, c := range []struct {
		name, doc, got string
		same           []string
		ok             bool
	}{
		{"same shape, other values", `{"a":1,"b":"x","c":[{"d":true}]}`, `{"a":2,"b":"y","c":[{"d":false},{"d":true}],"e":0}`, nil, true},
		{"a key missing", `{"a":1,"b":2}`, `{"a":1}`, nil, false},
		{"another type", `{"a":"1"}`, `{"a":1}`, nil, false},
		{"null is a type", `{"a":null}`, `{"a":{}}`, nil, false},
		{"an item shown, none answered", `{"a":[{"b":1}]}`, `{"a":[]}`, nil, false},
		{"no item of the item's shape", `{"a":[{"b":1}]}`, `{"a":[{"c":1}]}`, nil, false},
		{"items of two shapes", `[{"b":1},{"c":"x"}]`, `[{"c":"y"},{"b":2}]`, nil, true},
		{"elisions", `{"a":"…","…":"…","b":["…"]}`, `{"a":{"x":1},"b":[]}`, nil, true},
		{"a value marked same", `{"chainId":"43112"}`, `{"chainId":"1"}`, []string{"chainId"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := docJSONValues(c.doc)
			if err != nil {
				t.Fatal(err)
			}
			got := printedJSON([]byte(c.got))
			same := map[string]bool{}
			for _, k := range c.same {
				same[k] = true
			}
			diffs := shapeDiff(doc[0], got[0], "", same)
			if (len(diffs) == 0) != c.ok {
				t.Errorf("shapeDiff(%s, %s) = %q, want ok=%v", c.doc, c.got, diffs, c.ok)
			}
		})
	}
}

func TestErrorBodies(t *testing.T) {
	out := []byte(`some text {"jsonrpc":"2.0","result":{"error":"not an object"},"id":1}
[WARN] {"jsonrpc":"2.0","error":{"code":-32000,"message":"no"},"id":1}
[{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","error":{"code":-32602,"message":"bad"},"id":2}]
{"message":"fine","statusCode":200}
{"status":"ok","info":{"store":{"status":"up"}},"error":{},"details":{"store":{"status":"up"}}}
{"message":"gone","statusCode":404,"error":"Not Found"}`)
	got := errorBodies(printedJSON(out))
	if len(got) != 3 || !strings.Contains(got[0], "-32000") || !strings.Contains(got[1], "-32602") || !strings.Contains(got[2], "404") {
		t.Fatalf("errorBodies = %q, want the -32000 and -32602 errors and the 404 body, not the health check's empty error map", got)
	}
}

func TestDocJSONValuesRefusesElidedSyntax(t *testing.T) {
	if _, err := docJSONValues(`{"a":[1, ...]}`); err == nil {
		t.Fatal("a block with ... outside a string parsed")
	}
	vals, err := docJSONValues("{\"request\":1}\n{\"answer\":2}\n")
	if err != nil || len(vals) != 2 {
		t.Fatalf("two values: %v, %v", vals, err)
	}
}

func TestParseDoc(t *testing.T) {
	root := t.TempDir()
	doc := "# Title\n\n<!-- doctest: args --api-admin-enabled=true -->\n\n## Part one\n\n" +
		"<!-- doctest: expect 43112 -->\n<!-- doctest: error oops -->\n```sh\necho 43112\n```\n\n" +
		"_Not run by the doc tests: it needs a tool._\n```sh\ncast\n```\n\n" +
		"```\nno language\n```\n\n" +
		"## Part one\n\nSee [part one](#part-one-1), [title](other.md#title).\n\n" +
		"1. A step:\n\n   <!-- doctest: prelude -->\n   ```sh\n   f() { :; }\n   ```\n"
	if err := os.WriteFile(filepath.Join(root, "a.md"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := parseDoc(root, "a.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.blocks) != 4 {
		t.Fatalf("%d blocks, want 4", len(f.blocks))
	}
	first, notRun, bare, nested := f.blocks[0], f.blocks[1], f.blocks[2], f.blocks[3]
	if first.line != 9 || first.lang != "sh" || first.code != "echo 43112\n" {
		t.Errorf("first block: line %d, lang %q, code %q", first.line, first.lang, first.code)
	}
	if v, _ := first.marker("expect"); v != "43112" {
		t.Errorf("expect marker %q", v)
	}
	if v, _ := first.marker("error"); v != "oops" {
		t.Errorf("error marker %q", v)
	}
	if strings.Join(first.args, " ") != "--api-admin-enabled=true" || strings.Join(nested.args, " ") != "--api-admin-enabled=true" {
		t.Errorf("section args: %q, %q", first.args, nested.args)
	}
	if notRun.notRun != "it needs a tool" || len(notRun.markers) != 0 {
		t.Errorf("not-run block: %q, %v", notRun.notRun, notRun.markers)
	}
	if bare.lang != "" || bare.notRun != "" {
		t.Errorf("bare block: lang %q, not run %q", bare.lang, bare.notRun)
	}
	if _, ok := nested.marker("prelude"); !ok || nested.code != "f() { :; }\n" {
		t.Errorf("block in a list: markers %v, code %q", nested.markers, nested.code)
	}
	if !f.headings["part-one"] || !f.headings["part-one-1"] || !f.headings["title"] {
		t.Errorf("anchors %v", f.headings)
	}
	if len(f.links) != 2 || f.links[0].dest != "#part-one-1" || f.links[1].dest != "other.md#title" {
		t.Errorf("links %v", f.links)
	}
}

func TestParseDocRefusesMisplacedMarkers(t *testing.T) {
	root := t.TempDir()
	for name, doc := range map[string]string{
		"unknown": "<!-- doctest: expects 1 -->\n```sh\ntrue\n```\n",
		"astray":  "# T\n\n<!-- doctest: expect 1 -->\n\nText.\n\n```sh\ntrue\n```\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name+".md"), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := parseDoc(root, name+".md"); err == nil {
			t.Errorf("%s marker: parsed", name)
		}
	}
}

func TestGitHubAnchors(t *testing.T) {
	ids := &githubIDs{used: map[string]int{}}
	for _, c := range []struct{ heading, want string }{
		{"`index.getContainerRange`", "indexgetcontainerrange"},
		{"Moving a node from its embedded store: `dataapi migrate`", "moving-a-node-from-its-embedded-store-dataapi-migrate"},
		{"The `evm_mine` method", "the-evm_mine-method"},
		{"Index (issue 4)", "index-issue-4"},
		{"Index (issue 4)", "index-issue-4-1"},
	} {
		if got := string(ids.Generate([]byte(c.heading), 0)); got != c.want {
			t.Errorf("anchor of %q: %q, want %q", c.heading, got, c.want)
		}
	}
}

func TestConfigSnippet(t *testing.T) {
	for _, c := range []struct {
		name, code, partOf, wantErr string
	}{
		{"a whole config", "http-port: 9651\nmodules:\n  - name: data\n    plugin: dataapi\n    config: {page-token-ttl: 1h}\n", "", ""},
		{"an unknown host key", "http-prot: 9651\n", "", "http-prot"},
		{"an unknown chain config key", "chains:\n  - alias: C\n    vm: evm\n    genesis-file: g.json\n    config: {block-prodution: auto}\n", "", "block-prodution"},
		{"an unknown module config key", "config:\n  rate-limit: {anonymous: {per-secnd: 1}}\n", "module metricsapi", "per-secnd"},
		{"a genesis fragment", "genesis:\n  assets: []\n", "chain avm", "no assets"},
		{"a VM no plugin ships, with config", "chains:\n  - alias: m\n    vm: myvm\n    config: {a: 1}\n", "", "cannot be checked"},
		{"not YAML", "a: [\n", "", "not YAML"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := checkConfigSnippet(c.code, c.partOf, t.TempDir())
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("error %v, want one naming %q", err, c.wantErr)
			}
		})
	}
}
