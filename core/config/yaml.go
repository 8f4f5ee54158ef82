package config

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// YAML returns the effective configuration as YAML, keys in the order of
// the default config; Load reads it back to an equal Config.
func (c *Config) YAML() ([]byte, error) {
	n, err := toNode(reflect.ValueOf(*c))
	if err != nil {
		return nil, fmt.Errorf("config: yaml: %w", err)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, fmt.Errorf("config: yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("config: yaml: %w", err)
	}
	return buf.Bytes(), nil
}

// toNode converts a value to YAML the way Load reads it: structs by their
// koanf tags in field order, durations and text marshalers as strings.
func toNode(v reflect.Value) (*yaml.Node, error) {
	if !v.IsValid() {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	switch t := v.Type(); {
	case t == reflect.TypeFor[time.Duration]():
		return scalar(time.Duration(v.Int()).String())
	case t == reflect.TypeFor[json.Number]():
		return &yaml.Node{Kind: yaml.ScalarNode, Value: v.String()}, nil
	case t.Implements(reflect.TypeFor[encoding.TextMarshaler]()) && v.Kind() != reflect.Pointer:
		text, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return nil, fmt.Errorf("marshal %s: %w", t, err)
		}
		return scalar(string(text))
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return toNode(reflect.Value{})
		}
		return toNode(v.Elem())
	case reflect.Struct:
		return structNode(v)
	case reflect.Map:
		n := &yaml.Node{Kind: yaml.MappingNode}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int {
			return strings.Compare(fmt.Sprint(a.Interface()), fmt.Sprint(b.Interface()))
		})
		for _, key := range keys {
			if err := appendPair(n, fmt.Sprint(key.Interface()), v.MapIndex(key)); err != nil {
				return nil, err
			}
		}
		return n, nil
	case reflect.Slice, reflect.Array:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for i := range v.Len() {
			item, err := toNode(v.Index(i))
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, item)
		}
		return n, nil
	}
	n := &yaml.Node{}
	if err := n.Encode(v.Interface()); err != nil {
		return nil, fmt.Errorf("encode %s: %w", v.Type(), err)
	}
	return n, nil
}

// structNode maps a struct's koanf-tagged fields, leaving out empty
// `omitempty` fields.
func structNode(v reflect.Value) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		tag, ok := f.Tag.Lookup("koanf")
		if !ok || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if opts == "omitempty" && v.Field(i).IsZero() {
			continue
		}
		if err := appendPair(n, name, v.Field(i)); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// appendPair adds key: value to a mapping node.
func appendPair(n *yaml.Node, key string, v reflect.Value) error {
	k, err := scalar(key)
	if err != nil {
		return err
	}
	val, err := toNode(v)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	n.Content = append(n.Content, k, val)
	return nil
}

// scalar returns a string scalar, quoted where YAML would read it otherwise.
func scalar(s string) (*yaml.Node, error) {
	n := &yaml.Node{}
	if err := n.Encode(s); err != nil {
		return nil, fmt.Errorf("encode %q: %w", s, err)
	}
	return n, nil
}
