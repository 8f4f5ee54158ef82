package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxShownValue is how much of a bad value an error message repeats.
const maxShownValue = 40

// Uint64 is an unsigned integer param that accepts a JSON number or a
// decimal string ("12"). It encodes as a decimal string, as avalanchego's
// json.Uint64 does. JSON null leaves it unchanged.
type Uint64 uint64

// String returns the decimal form of u.
func (u Uint64) String() string {
	return strconv.FormatUint(uint64(u), 10)
}

// MarshalJSON encodes u as a decimal string.
func (u Uint64) MarshalJSON() ([]byte, error) {
	return []byte(`"` + u.String() + `"`), nil
}

// UnmarshalJSON accepts a JSON number or a string holding decimal digits,
// and rejects negatives, fractions, exponents, hex and values over
// math.MaxUint64.
func (u *Uint64) UnmarshalJSON(data []byte) error {
	if len(data) == 0 {
		return errors.New("want an unsigned integer, got nothing")
	}
	var digits, shown string
	switch c := data[0]; {
	case c == 'n':
		return nil
	case c == '"':
		if err := json.Unmarshal(data, &digits); err != nil {
			return fmt.Errorf("want an unsigned integer: %w", err)
		}
		shown = strconv.Quote(clip(digits))
	case c == '-' || c >= '0' && c <= '9':
		digits = string(data)
		shown = clip(digits)
	case c == 't' || c == 'f':
		return errors.New("want an unsigned integer, got boolean")
	case c == '{':
		return errors.New("want an unsigned integer, got object")
	case c == '[':
		return errors.New("want an unsigned integer, got array")
	default:
		return fmt.Errorf("want an unsigned integer, got %s", clip(string(data)))
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	switch {
	case err == nil:
		*u = Uint64(n)
		return nil
	case errors.Is(err, strconv.ErrRange):
		return fmt.Errorf("want an unsigned integer of at most %d, got %s", uint64(math.MaxUint64), shown)
	case strings.HasPrefix(digits, "0x") || strings.HasPrefix(digits, "0X"):
		return fmt.Errorf("want a decimal unsigned integer, got %s", shown)
	default:
		return fmt.Errorf("want an unsigned integer, got %s", shown)
	}
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) <= maxShownValue {
		return s
	}
	return s[:maxShownValue] + "..."
}
