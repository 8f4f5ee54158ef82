package jsonrpc

import (
	"bytes"
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// emptyObject returns the params a method sees when the request has none.
func emptyObject() json.RawMessage {
	return json.RawMessage("{}")
}

// normalizeParams returns the params object of a request: the object itself,
// the single object of a one-element array, or {} when params is absent,
// null or an empty array.
func normalizeParams(params json.RawMessage) (json.RawMessage, *Error) {
	if len(params) == 0 {
		return emptyObject(), nil
	}
	if params[0] == '{' {
		return params, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(params, &items); err != nil {
		return nil, InvalidParams("want an object or an array holding one object")
	}
	switch {
	case len(items) == 0:
		return emptyObject(), nil
	case len(items) == 1:
		if item := bytes.TrimSpace(items[0]); len(item) > 0 && item[0] == '{' {
			return item, nil
		}
	}
	return nil, InvalidParams("want an object or an array holding one object")
}

// Validator is implemented by params types that check themselves after
// decoding; a Validate error is answered as invalid params.
type Validator interface {
	Validate() error
}

// Method returns a Handler that decodes the params object into P, rejecting
// unknown members, validates it if P is a Validator, and calls fn. Decode
// errors are answered as invalid params naming the param at fault.
func Method[P any, R any](fn func(ctx context.Context, p P) (R, error)) Handler {
	return func(ctx context.Context, params json.RawMessage) (any, error) {
		if len(bytes.TrimSpace(params)) == 0 {
			params = emptyObject()
		}
		var p P
		if err := decodeParams(params, &p); err != nil {
			return nil, describeDecodeError(params, func() any { return new(P) }, err)
		}
		if v, ok := any(&p).(Validator); ok {
			if err := v.Validate(); err != nil {
				var rpcErr *Error
				if errors.As(err, &rpcErr) && rpcErr != nil {
					return nil, rpcErr
				}
				return nil, InvalidParams("%v", err)
			}
		}
		r, err := fn(ctx, p)
		return r, err // the Server ignores r when err is a failure
	}
}

// decodeParams decodes params into dst, rejecting unknown members.
func decodeParams(params json.RawMessage, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}

// describeDecodeError turns a decode error into invalid params that name
// the param at fault. newDst makes a fresh value of the params type, used
// to find the faulty member when the error does not name it.
func describeDecodeError(params json.RawMessage, newDst func() any, err error) *Error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		if typeErr.Field == "" {
			return InvalidParams("%s", describeTypeError(typeErr))
		}
		return InvalidParams("%q: %s", typeErr.Field, describeTypeError(typeErr))
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return InvalidParams("unknown param %s", name)
	}
	// An error of a custom unmarshaler does not say where it happened:
	// decode the members one at a time to find the first that fails.
	var members map[string]json.RawMessage
	if json.Unmarshal(params, &members) == nil {
		for _, name := range slices.Sorted(maps.Keys(members)) {
			one, mErr := json.Marshal(map[string]json.RawMessage{name: members[name]})
			if mErr != nil {
				continue
			}
			if memberErr := decodeParams(one, newDst()); memberErr != nil {
				return InvalidParams("%q: %s", name, describeMemberError(memberErr))
			}
		}
	}
	return InvalidParams("%s", strings.TrimPrefix(err.Error(), "json: "))
}

// describeMemberError returns the text of an error found decoding a single
// member.
func describeMemberError(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return describeTypeError(typeErr)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// describeTypeError says what was wanted and what came.
func describeTypeError(e *json.UnmarshalTypeError) string {
	return fmt.Sprintf("want %s, got %s", describeType(e.Type), e.Value)
}

// describeType names the JSON a Go type is decoded from, for messages.
func describeType(t reflect.Type) string {
	if t == nil {
		return "a valid value"
	}
	textUnmarshaler := reflect.TypeFor[encoding.TextUnmarshaler]()
	if t.Implements(textUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return "a string"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an unsigned integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	case reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return describeType(t.Elem())
	default:
		return "a valid value"
	}
}
