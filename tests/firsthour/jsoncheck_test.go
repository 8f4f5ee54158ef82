package firsthour

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// docJSONValues reads every JSON value of a doc's json block: one, or
// several one after the other (a request and its answer).
func docJSONValues(code string) ([]any, error) {
	dec := json.NewDecoder(strings.NewReader(code))
	dec.UseNumber()
	var out []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line := strings.Count(code[:min(int(dec.InputOffset()), len(code))], "\n") + 1
			return nil, fmt.Errorf("line %d of the block: %w", line, err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, errors.New("the block holds no JSON value")
	}
	return out, nil
}

// printedJSON finds the JSON objects and arrays in what a command printed,
// in order, skipping the text around them.
func printedJSON(out []byte) []any {
	var vals []any
	for i := 0; i < len(out); {
		if out[i] != '{' && out[i] != '[' {
			i++
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(out[i:]))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			i++
			continue
		}
		vals = append(vals, v)
		i += int(dec.InputOffset())
	}
	return vals
}

// errorBodies describes the JSON-RPC error objects (an "error" object with
// a "code", as JSON-RPC 2.0 has it: the health checks' empty "error" map
// is none) and the REST error bodies (statusCode 400 and above) among
// printed values, batches included.
func errorBodies(vals []any) []string {
	var out []string
	var check func(v any, top bool)
	check = func(v any, top bool) {
		switch v := v.(type) {
		case []any:
			if top {
				for _, e := range v {
					check(e, false)
				}
			}
		case map[string]any:
			if e, ok := v["error"].(map[string]any); ok && e["code"] != nil {
				b, _ := json.Marshal(e)
				out = append(out, "JSON-RPC error "+string(b))
			}
			if n, ok := v["statusCode"].(json.Number); ok {
				if code, err := n.Int64(); err == nil && code >= 400 {
					b, _ := json.Marshal(v)
					out = append(out, "REST error "+string(b))
				}
			}
		}
	}
	for _, v := range vals {
		check(v, true)
	}
	return out
}

// isElision reports whether a documented value stands for "and so on":
// the string "…" or "...".
func isElision(v any) bool {
	s, ok := v.(string)
	return ok && (s == "…" || s == "...")
}

// shapeDiff compares an actual answer with the documented one: every key
// the doc shows is present with the same JSON type, recursively; each item
// the doc shows in an array has an item of its shape in the answer. Keys
// named in same must also have equal values. It returns what differs, one
// line each, or nothing.
func shapeDiff(doc, got any, path string, same map[string]bool) []string {
	if isElision(doc) {
		return nil
	}
	if jsonType(doc) != jsonType(got) {
		return []string{fmt.Sprintf("%s: the doc shows %s %s, the answer has %s %s", pathOr(path), jsonType(doc), briefJSON(doc), jsonType(got), briefJSON(got))}
	}
	switch d := doc.(type) {
	case map[string]any:
		g := got.(map[string]any)
		var diffs []string
		for _, k := range slices.Sorted(maps.Keys(d)) {
			if isElision(k) {
				continue
			}
			gv, ok := g[k]
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s: the answer has no key %q (it has %s)", pathOr(path), k, strings.Join(slices.Sorted(maps.Keys(g)), ", ")))
				continue
			}
			diffs = append(diffs, shapeDiff(d[k], gv, path+"."+k, same)...)
			if same[k] && !jsonEqual(d[k], gv) {
				diffs = append(diffs, fmt.Sprintf("%s.%s: the doc shows %s, the answer has %s", path, k, briefJSON(d[k]), briefJSON(gv)))
			}
		}
		return diffs
	case []any:
		g := got.([]any)
		var diffs []string
		for i, item := range d {
			if isElision(item) {
				continue
			}
			if len(g) == 0 {
				return []string{fmt.Sprintf("%s: the doc shows items, the answer's array is empty", pathOr(path))}
			}
			var closest []string
			for j := range g {
				dd := shapeDiff(item, g[j], fmt.Sprintf("%s[%d]", path, j), same)
				if len(dd) == 0 {
					closest = nil
					break
				}
				if closest == nil || len(dd) < len(closest) {
					closest = dd
				}
			}
			if closest != nil {
				diffs = append(diffs, fmt.Sprintf("%s[%d]: no item of the answer has the shape of the doc's item %d:", pathOr(path), i, i))
				diffs = append(diffs, closest...)
			}
		}
		return diffs
	}
	return nil
}

// jsonType names a decoded JSON value's type.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// briefJSON is a value as JSON, cut to a line.
func briefJSON(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

func pathOr(p string) string {
	if p == "" {
		return "the answer"
	}
	return p
}
