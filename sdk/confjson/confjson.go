// Package confjson reads the JSON a plugin is handed by the host: its
// config and its genesis. Every plugin reads them the same way, strictly,
// so that a misspelt key is an error naming it rather than a default
// silently kept (docs/modules.md, "Configuration").
package confjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"time"
)

// Decode reads the JSON value b into v: an unknown key is an error naming
// it, so is a bad Duration ("key.inner: problem"), and so is anything after
// the value. Empty input or null leaves v as it is, so v may hold the
// defaults on entry.
func Decode(b []byte, v any) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var bad *json.UnmarshalTypeError
		if errors.As(err, &bad) && bad.Type == durationType {
			if bad.Field == "" {
				return errors.New(bad.Value)
			}
			return fmt.Errorf("%s: %s", bad.Field, bad.Value)
		}
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// Validator is a config that checks its own values, naming the key of
// each problem.
type Validator interface{ Validate() error }

// Parse reads b over defaults (Decode) and checks what results.
func Parse[T Validator](b []byte, defaults T) (T, error) {
	if err := Decode(b, &defaults); err != nil {
		return defaults, err
	}
	return defaults, defaults.Validate()
}

// Duration is a time.Duration written in JSON as a Go duration string
// ("2s", "500ms"); a JSON number is taken as seconds. A negative duration
// is an error.
type Duration time.Duration

// durationType marks the errors of Duration's UnmarshalJSON.
var durationType = reflect.TypeFor[Duration]()

// badDuration is the error of a value that is no Duration: a
// json.UnmarshalTypeError, which encoding/json completes with the key the
// value was at, carrying the problem in Value, for Decode to report as
// "key: problem".
func badDuration(format string, args ...any) error {
	return &json.UnmarshalTypeError{Value: fmt.Sprintf(format, args...), Type: durationType}
}

// D returns the duration as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String returns the Go duration string.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes the duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var v time.Duration
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if v, err = time.ParseDuration(s); err != nil {
			return badDuration("duration %q: must be like \"2s\" or \"500ms\"", s)
		}
	} else {
		var secs float64
		if err := json.Unmarshal(b, &secs); err != nil {
			return badDuration("duration must be a string like \"2s\" or a number of seconds, got %s", b)
		}
		v = time.Duration(secs * float64(time.Second))
	}
	if v < 0 {
		return badDuration("duration %s: must not be negative", v)
	}
	*d = Duration(v)
	return nil
}
