package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"
)

// The parsers of config files. Each keeps every integer exact on its way to
// the JSON handed to plugins (a genesis balance has 25 digits or more):
// integers beyond 64 bits become json.Number, never float64.

// jsonParser parses JSON with numbers as json.Number.
type jsonParser struct{}

// Unmarshal parses a JSON object.
func (jsonParser) Unmarshal(b []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out map[string]any
	if err := d.Decode(&out); err != nil {
		return nil, fmt.Errorf("parse json: %w", err)
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("parse json: data after the top-level object")
	}
	return out, nil
}

// Marshal writes JSON.
func (jsonParser) Marshal(m map[string]any) ([]byte, error) { return json.Marshal(m) }

// yamlParser parses YAML as yaml.v3 does, except that a plain integer too
// large for 64 bits, which yaml.v3 reads as a float, stays exact.
type yamlParser struct{}

// Unmarshal parses a YAML mapping.
func (yamlParser) Unmarshal(b []byte) (map[string]any, error) {
	var v *yamlValue
	if err := yaml.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("parse yaml: %w", err)
	}
	if v.value() == nil {
		return map[string]any{}, nil
	}
	m, ok := v.value().(map[string]any)
	if !ok {
		return nil, fmt.Errorf("parse yaml: the document is %s, not a mapping", valueKind(v.value()))
	}
	return m, nil
}

// Marshal writes YAML.
func (yamlParser) Marshal(m map[string]any) ([]byte, error) { return yaml.Marshal(m) }

// yamlValue is one YAML value decoded into plain Go values (maps with
// string keys, slices, scalars), yaml.v3 resolving anchors and merge keys.
type yamlValue struct{ v any }

// value is the decoded value; a null decodes to a nil *yamlValue (a
// non-pointer element would be dropped from its list).
func (y *yamlValue) value() any {
	if y == nil {
		return nil
	}
	return y.v
}

// UnmarshalYAML decodes n.
func (y *yamlValue) UnmarshalYAML(n *yaml.Node) error {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		var m map[string]*yamlValue
		if err := n.Decode(&m); err != nil {
			return err
		}
		out := make(map[string]any, len(m))
		for k, v := range m {
			out[k] = v.value()
		}
		y.v = out
	case yaml.SequenceNode:
		var s []*yamlValue
		if err := n.Decode(&s); err != nil {
			return err
		}
		out := make([]any, len(s))
		for i, v := range s {
			out[i] = v.value()
		}
		y.v = out
	default:
		if i, ok := bigInteger(n); ok {
			y.v = json.Number(i.String())
			return nil
		}
		return n.Decode(&y.v)
	}
	return nil
}

// bigInteger reads a plain decimal integer that yaml.v3 resolves as a float
// because it does not fit 64 bits (it reads 50000000000000000000000000 as
// 5e+25). Underscores are digit separators, as yaml.v3 reads them.
func bigInteger(n *yaml.Node) (*big.Int, bool) {
	if n.Kind != yaml.ScalarNode || n.Style&yaml.TaggedStyle != 0 || n.ShortTag() != "!!float" {
		return nil, false
	}
	return new(big.Int).SetString(strings.ReplaceAll(n.Value, "_", ""), 10)
}

// tomlParser parses TOML. TOML integers are 64-bit: a larger one is a syntax
// error, reported with its line and column.
type tomlParser struct{}

// Unmarshal parses a TOML document.
func (tomlParser) Unmarshal(b []byte) (map[string]any, error) {
	var out map[string]any
	if err := toml.Unmarshal(b, &out); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, fmt.Errorf("parse toml: line %d, column %d: %w", line, col, err)
		}
		return nil, fmt.Errorf("parse toml: %w", err)
	}
	return out, nil
}

// Marshal writes TOML.
func (tomlParser) Marshal(m map[string]any) ([]byte, error) { return toml.Marshal(m) }
