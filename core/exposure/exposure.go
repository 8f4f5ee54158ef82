// Package exposure decides whether a chain may be served where it is
// listened for: a chain whose VM declares an API unsafe in public (a dev
// API that moves its clock, a personal API that keeps keys on the server)
// is served beyond loopback only with the operator's leave, given by name
// in http-allow-unsafe-apis (README, "Running a public node").
package exposure

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
)

// Flag is the config key and flag that allows unsafe APIs by name.
const Flag = "http-allow-unsafe-apis"

// Name is how the operator names a chain's unsafe API: <chain alias>.<API>
// ("C.dev").
func Name(chain, api string) string { return chain + "." + api }

// ParseName splits a name written <chain alias>.<API>.
func ParseName(s string) (chain, api string, err error) {
	chain, api, ok := strings.Cut(s, ".")
	if !ok || chain == "" || api == "" {
		return "", "", fmt.Errorf("%q is not <chain alias>.<API>, like C.dev", s)
	}
	return chain, api, nil
}

// IsLoopback reports whether a listen address reaches this machine only:
// its host (of host:port, or the whole of addr) is a loopback IP
// (127.0.0.0/8, ::1) or localhost. Every other host is beyond loopback,
// the unspecified ones (0.0.0.0, ::, empty) and names other than localhost
// included.
func IsLoopback(addr string) bool {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return err == nil && ip.Unmap().IsLoopback()
}

// Listener is an address a chain is served on and the config key that
// sets it.
type Listener struct {
	Addr string
	Key  string
}

// String is the address with its key, as messages name it.
func (l Listener) String() string { return fmt.Sprintf("%s (%s)", l.Addr, l.Key) }

// RefusedError says a chain may not be served: it declares unsafe APIs the
// operator has not allowed, on listeners beyond loopback.
type RefusedError struct {
	Chain string
	// APIs are the unsafe APIs not allowed, sorted.
	APIs []string
	// Beyond are the chain's listeners beyond loopback.
	Beyond []Listener
}

// Error names the chain, the APIs, the listeners and the override.
func (e *RefusedError) Error() string {
	names := make([]string, len(e.APIs))
	for i, api := range e.APIs {
		names[i] = Name(e.Chain, api)
	}
	where := make([]string, len(e.Beyond))
	for i, l := range e.Beyond {
		where[i] = l.String()
	}
	apis, is, them := "the "+e.APIs[0]+" API", "is", "it"
	if n := len(e.APIs); n > 1 {
		apis, is, them = "the "+strings.Join(e.APIs[:n-1], ", ")+" and "+e.APIs[n-1]+" APIs", "are", "them"
	}
	return fmt.Sprintf("chain %s: %s %s unsafe in public and would be reachable beyond loopback on %s; "+
		"turn %s off in the chain's config, listen on loopback only, or allow %s by name with --%s=%s",
		e.Chain, apis, is, strings.Join(where, " and "), them, them, Flag, strings.Join(names, ","))
}

// Check decides whether chain, which declares apis unsafe in public, may
// be served on listeners, given the names the operator allowed. It
// returns a *RefusedError when an API not allowed would be reachable
// beyond loopback, and otherwise the APIs served beyond loopback by the
// operator's leave (none when every listener is on loopback).
func Check(chain string, apis []string, listeners []Listener, allowed []string) ([]string, error) {
	var beyond []Listener
	for _, l := range listeners {
		if !IsLoopback(l.Addr) {
			beyond = append(beyond, l)
		}
	}
	if len(beyond) == 0 || len(apis) == 0 {
		return nil, nil
	}
	var refused, leave []string
	for _, api := range apis {
		if slices.Contains(allowed, Name(chain, api)) {
			leave = append(leave, api)
		} else {
			refused = append(refused, api)
		}
	}
	if len(refused) > 0 {
		slices.Sort(refused)
		return nil, &RefusedError{Chain: chain, APIs: slices.Compact(refused), Beyond: beyond}
	}
	return leave, nil
}
