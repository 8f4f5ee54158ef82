// Package openapi checks answers against an OpenAPI 3.1 contract, for the
// data API's conformance tests: it finds the operation of a request path
// and validates the JSON body against the response schema of its status,
// with a JSON Schema 2020-12 validator (santhosh-tekuri/jsonschema).
//
// Two readings are added to the contract as it is loaded
// (docs/data-api.md, "The contract"):
//   - every object schema with properties refuses members it does not
//     declare (unevaluatedProperties: false), which catches a misspelt or
//     invented member the published SDK would silently drop;
//   - an enum whose type allows null accepts null (tokenReputation), as the
//     published SDK reads it, though JSON Schema alone would refuse it;
//   - an examples keyword that is not an array (OpenAPI's map of named
//     examples, on Blockchain.genesisData) is dropped: it is only an
//     annotation, and JSON Schema 2020-12 refuses the schema with it.
package openapi

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// contractURL is the name the contract is known by to the compiler.
const contractURL = "data-api.json"

// Contract is a loaded OpenAPI document.
type Contract struct {
	doc      map[string]any
	compiler *jsonschema.Compiler

	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema // by JSON pointer
}

// Load reads the OpenAPI document at path.
func Load(path string) (*Contract, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: not a JSON object", path)
	}
	tighten(doc)
	c := jsonschema.NewCompiler()
	if err := c.AddResource(contractURL, doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Contract{doc: doc, compiler: c, compiled: map[string]*jsonschema.Schema{}}, nil
}

// tighten adds the package's readings to every schema below v.
func tighten(v any) {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["properties"]; ok {
			x["unevaluatedProperties"] = false
		}
		if enum, ok := x["enum"].([]any); ok && typeAllowsNull(x["type"]) && !slices.Contains(enum, nil) {
			x["enum"] = append(enum, nil)
		}
		if ex, ok := x["examples"]; ok {
			if _, list := ex.([]any); !list {
				delete(x, "examples")
			}
		}
		for key, child := range x {
			if props, ok := child.(map[string]any); ok && key == "properties" {
				// A map of property schemas, not a schema: a property may
				// be named examples.
				for _, p := range props {
					tighten(p)
				}
				continue
			}
			tighten(child)
		}
	case []any:
		for _, child := range x {
			tighten(child)
		}
	}
}

// typeAllowsNull reports whether a schema's type keyword admits null.
func typeAllowsNull(t any) bool {
	switch t := t.(type) {
	case string:
		return t == "null"
	case []any:
		return slices.Contains(t, any("null"))
	}
	return false
}

// Operation returns the path template of the contract that path matches
// (literal segments win over parameters) and its operation for method.
func (c *Contract) Operation(method, path string) (string, map[string]any, error) {
	paths, _ := c.doc["paths"].(map[string]any)
	segs := strings.Split(strings.TrimSuffix(path, "/"), "/")
	best, bestLiterals := "", -1
	for tmpl := range paths {
		t := strings.Split(tmpl, "/")
		if len(t) != len(segs) {
			continue
		}
		literals, ok := 0, true
		for i := range t {
			switch {
			case strings.HasPrefix(t[i], "{") && strings.HasSuffix(t[i], "}"):
				ok = ok && segs[i] != ""
			case t[i] == segs[i]:
				literals++
			default:
				ok = false
			}
		}
		if ok && (literals > bestLiterals || (literals == bestLiterals && tmpl < best)) {
			best, bestLiterals = tmpl, literals
		}
	}
	if best == "" {
		return "", nil, fmt.Errorf("no path of the contract matches %s", path)
	}
	op, ok := paths[best].(map[string]any)[strings.ToLower(method)].(map[string]any)
	if !ok {
		return best, nil, fmt.Errorf("%s has no %s operation", best, method)
	}
	return best, op, nil
}

// Validate checks that body is the answer the contract gives for method
// and path with status.
func (c *Contract) Validate(method, path string, status int, body []byte) error {
	tmpl, op, err := c.Operation(method, path)
	if err != nil {
		return err
	}
	responses, _ := op["responses"].(map[string]any)
	if _, ok := responses[fmt.Sprint(status)]; !ok {
		return fmt.Errorf("%s %s: the contract has no %d answer", method, tmpl, status)
	}
	pointer := "/paths/" + escape(tmpl) + "/" + strings.ToLower(method) + "/responses/" + fmt.Sprint(status) +
		"/content/application~1json/schema"
	if err := c.validate(pointer, body); err != nil {
		return fmt.Errorf("%s %s %d: %w", method, tmpl, status, err)
	}
	return nil
}

// ValidateSchema checks body against the component schema name (like
// "NotFound").
func (c *Contract) ValidateSchema(name string, body []byte) error {
	return c.validate("/components/schemas/"+escape(name), body)
}

// validate checks body against the schema at a JSON pointer of the
// document, compiled on first use.
func (c *Contract) validate(pointer string, body []byte) error {
	c.mu.Lock()
	schema, ok := c.compiled[pointer]
	if !ok {
		var err error
		if schema, err = c.compiler.Compile(contractURL + "#" + pointer); err != nil {
			c.mu.Unlock()
			return fmt.Errorf("schema %s: %w", pointer, err)
		}
		c.compiled[pointer] = schema
	}
	c.mu.Unlock()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	return schema.Validate(v)
}

// escape escapes a JSON pointer token (RFC 6901).
func escape(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// Find returns the path of the data API contract, the repository's
// reference/openapi/data-api.json, looking for it in dir and the
// directories above it.
func Find(dir string) (string, error) {
	for d := dir; ; {
		p := filepath.Join(d, "reference", "openapi", "data-api.json")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("reference/openapi/data-api.json not found above " + dir)
		}
		d = parent
	}
}
