package rest

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxQuotedValue is how many bytes of a bad value an error message quotes.
const maxQuotedValue = 64

// IntRange is the default and the inclusive bounds of an integer parameter.
type IntRange struct {
	Default, Min, Max int
}

// Params reads the query parameters of one request and gathers every
// problem it finds, so that one 400 names each parameter at fault.
// An absent or empty parameter takes its default; a parameter given more
// than once is an error; parameters that are never read are ignored.
type Params struct {
	values    map[string][]string
	badEscape map[string]bool // names whose value has an invalid %-escape
	faulty    map[string]bool // names already reported
	problems  []string
}

// Query returns the query parameters of r.
func Query(r *http.Request) *Params {
	p := &Params{
		values:    map[string][]string{},
		badEscape: map[string]bool{},
		faulty:    map[string]bool{},
	}
	for rest := r.URL.RawQuery; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		if pair == "" {
			continue
		}
		rawName, rawValue, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(rawName)
		if err != nil {
			continue // a name that cannot be read is no parameter a handler reads
		}
		value, err := url.QueryUnescape(rawValue)
		if err != nil {
			p.badEscape[name] = true
			value = rawValue
		}
		p.values[name] = append(p.values[name], value)
	}
	return p
}

// fault records a problem of the parameter name, once per name.
func (p *Params) fault(name, format string, args ...any) {
	if p.faulty[name] {
		return
	}
	p.faulty[name] = true
	p.problems = append(p.problems, name+": "+fmt.Sprintf(format, args...))
}

// lookup returns the value of name and whether one was given; a repeated
// parameter or a bad escape is recorded and reads as absent.
func (p *Params) lookup(name string) (string, bool) {
	values := p.values[name]
	switch {
	case len(values) == 0:
		return "", false
	case len(values) > 1:
		p.fault(name, "must be given at most once, got %d values", len(values))
		return "", false
	case p.badEscape[name]:
		p.fault(name, "invalid URL escape in %s", Quote(values[0]))
		return "", false
	}
	return values[0], values[0] != ""
}

// String returns the parameter name, or def when it is absent.
func (p *Params) String(name, def string) string {
	v, ok := p.lookup(name)
	if !ok {
		return def
	}
	return v
}

// Int returns the integer parameter name, rng.Default when it is absent;
// a non-integer or a value outside rng.Min..rng.Max is an error.
func (p *Params) Int(name string, rng IntRange) int {
	v, ok := p.lookup(name)
	if !ok {
		return rng.Default
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < rng.Min || n > rng.Max {
		if rng.Max == math.MaxInt {
			p.fault(name, "must be an integer of at least %d, got %s", rng.Min, Quote(v))
		} else {
			p.fault(name, "must be an integer from %d to %d, got %s", rng.Min, rng.Max, Quote(v))
		}
		return rng.Default
	}
	return n
}

// Uint64 returns the optional unsigned integer parameter name; ok is false
// when it is absent or bad (a bad value is an error).
func (p *Params) Uint64(name string) (v uint64, ok bool) {
	s, ok := p.lookup(name)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		p.fault(name, "must be a non-negative 64-bit integer, got %s", Quote(s))
		return 0, false
	}
	return n, true
}

// Int64 returns the optional integer parameter name, which must be at least
// least; ok is false when it is absent or bad (a bad value is an error).
func (p *Params) Int64(name string, least int64) (v int64, ok bool) {
	s, ok := p.lookup(name)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < least {
		p.fault(name, "must be an integer of at least %d, got %s", least, Quote(s))
		return 0, false
	}
	return n, true
}

// Bool returns the boolean parameter name, def when it is absent; only
// "true" and "false" are accepted.
func (p *Params) Bool(name string, def bool) bool {
	s, ok := p.lookup(name)
	if !ok {
		return def
	}
	switch s {
	case "true":
		return true
	case "false":
		return false
	}
	p.fault(name, "must be true or false, got %s", Quote(s))
	return def
}

// Enum returns the parameter name, def when it is absent; a value not in
// allowed is an error.
func (p *Params) Enum(name, def string, allowed ...string) string {
	s, ok := p.lookup(name)
	if !ok {
		return def
	}
	if !slices.Contains(allowed, s) {
		p.fault(name, "must be one of %s, got %s", strings.Join(allowed, "|"), Quote(s))
		return def
	}
	return s
}

// List returns the comma-separated parameter name, items trimmed and empty
// items dropped; nil when it is absent.
func (p *Params) List(name string) []string {
	s, ok := p.lookup(name)
	if !ok {
		return nil
	}
	var items []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}

// Err returns nil, or a 400 *Error naming every bad parameter read so far:
// its Message joins the problems with "; " and its Messages list them.
func (p *Params) Err() error {
	if len(p.problems) == 0 {
		return nil
	}
	return problems(slices.Clone(p.problems))
}

// PathParam returns the path parameter name of r (a http.ServeMux pattern
// wildcard); an empty value is a 400 naming it.
func PathParam(r *http.Request, name string) (string, error) {
	v := r.PathValue(name)
	if v == "" {
		return "", BadRequest("%s: must not be empty", name)
	}
	return v, nil
}

// Quote returns a client's value v quoted for an error message, cut to
// maxQuotedValue bytes (at a rune boundary) and marked "..." when cut.
func Quote(v string) string {
	if len(v) <= maxQuotedValue {
		return strconv.Quote(v)
	}
	cut := maxQuotedValue
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return strconv.Quote(v[:cut]) + "..."
}
