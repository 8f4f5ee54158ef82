package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/v2"
)

// decode turns the merged configuration into a Config. Unknown keys and
// values of the wrong type are errors that name the key.
func decode(k *koanf.Koanf) (*Config, error) {
	var c Config
	dc := mapstructure.DecoderConfig{
		ErrorUnused:      true,
		WeaklyTypedInput: true,
		DecodeHook: mapstructure.ComposeDecodeHookFunc(
			durationHook,
			integerRangeHook,
			// A list in the environment is written a,b,c.
			mapstructure.StringToSliceHookFunc(","),
			mapstructure.TextUnmarshallerHookFunc(),
		),
	}
	if err := k.UnmarshalWithConf("", &c, koanf.UnmarshalConf{DecoderConfig: &dc}); err != nil {
		var errs []error
		translateDecodeError(err, &errs)
		return nil, errors.Join(errs...)
	}
	return &c, nil
}

// durationHook reads durations written like "10s" and refuses bare
// numbers, which would silently mean nanoseconds.
func durationHook(from, to reflect.Type, data any) (any, error) {
	if to != reflect.TypeFor[time.Duration]() || from == to {
		return data, nil
	}
	if from.Kind() == reflect.String {
		s := reflect.ValueOf(data).String()
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a duration (write it like 10s or 250ms)", s)
		}
		return d, nil
	}
	if n, ok, _ := integerOf(data); ok && n.Sign() == 0 {
		return time.Duration(0), nil
	}
	return nil, fmt.Errorf("%v is not a duration (write it with a unit, like 10s or 250ms)", data)
}

// integerRangeHook rejects numbers that do not fit the integer field they are
// decoded into (mapstructure would wrap -1 into a uint32 silently) and
// numbers with a fraction. Strings are left to mapstructure, which parses
// them with the field's size.
func integerRangeHook(_ reflect.Type, to reflect.Type, data any) (any, error) {
	signed := false
	switch to.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		signed = true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	default:
		return data, nil
	}
	n, ok, err := integerOf(data)
	if !ok || err != nil {
		return data, err
	}
	bits := uint(to.Bits())
	lo, hi := new(big.Int), new(big.Int).Lsh(big.NewInt(1), bits)
	if signed {
		hi.Rsh(hi, 1)
		lo.Neg(hi)
	}
	hi.Sub(hi, big.NewInt(1))
	if n.Cmp(lo) < 0 || n.Cmp(hi) > 0 {
		return nil, fmt.Errorf("%v is out of range for %s", data, to)
	}
	if signed {
		return n.Int64(), nil
	}
	return n.Uint64(), nil
}

// integerOf reads a number as an integer; ok is false for non-numbers.
func integerOf(data any) (n *big.Int, ok bool, err error) {
	if num, isNum := data.(json.Number); isNum {
		if n, ok := new(big.Int).SetString(string(num), 10); ok {
			return n, true, nil
		}
		f, err := num.Float64()
		if err != nil {
			return nil, true, fmt.Errorf("%s is not a number", num)
		}
		data = f
	}
	v := reflect.ValueOf(data)
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return big.NewInt(v.Int()), true, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return new(big.Int).SetUint64(v.Uint()), true, nil
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) {
			return nil, true, fmt.Errorf("%v is not an integer", data)
		}
		n, _ := big.NewFloat(f).Int(nil)
		return n, true, nil
	}
	return nil, false, nil
}

// translateDecodeError flattens mapstructure's error tree into one error per
// problem, each naming the full key path ("chains[0].xyz").
func translateDecodeError(err error, out *[]error) {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			translateDecodeError(e, out)
		}
		return
	}
	var de *mapstructure.DecodeError
	if !errors.As(err, &de) {
		*out = append(*out, fmt.Errorf("config: %w", err))
		return
	}
	inner := de.Unwrap()
	var nested *mapstructure.DecodeError
	if _, ok := inner.(interface{ Unwrap() []error }); ok || errors.As(inner, &nested) {
		translateDecodeError(inner, out)
		return
	}
	name := de.Name()
	if name == reflect.TypeFor[Config]().String() {
		name = "" // mapstructure names the root by its type
	}
	if keys, ok := strings.CutPrefix(inner.Error(), "has invalid keys: "); ok {
		for _, key := range strings.Split(keys, ", ") {
			if name != "" {
				key = name + "." + key
			}
			*out = append(*out, fmt.Errorf("config: unknown key %q", key))
		}
		return
	}
	*out = append(*out, fmt.Errorf("config: %s: %s", name, describe(inner)))
}

// describe words a decoding problem without mapstructure's Go type jargon
// where it can.
func describe(err error) string {
	var pe *mapstructure.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, strconv.ErrRange) {
			return fmt.Sprintf("%v is out of range for %s", pe.Value, pe.Expected.Type())
		}
		return fmt.Sprintf("cannot parse %q as %s", fmt.Sprint(pe.Value), kindName(pe.Expected.Type()))
	}
	var ue *mapstructure.UnconvertibleTypeError
	if errors.As(err, &ue) {
		return fmt.Sprintf("expected %s, got %s", kindName(ue.Expected.Type()), valueKind(ue.Value))
	}
	return err.Error()
}

// kindName names a target type as a config author thinks of it.
func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a map"
	}
	return t.String()
}

// valueKind names the kind of a decoded value.
func valueKind(v any) string {
	switch reflect.ValueOf(v).Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map:
		return "a map"
	case reflect.Invalid:
		return "nothing"
	}
	return fmt.Sprintf("%T %v", v, v)
}
