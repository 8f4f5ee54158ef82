// Package route holds the path rules a request's route is chosen by, which
// the host's router, a chain's own listener and the SDK's REST toolkit
// apply alike: the path prefixes a module may claim and what falls under
// one, and the segments a routed path may hold (docs/modules.md,
// "Routing"; docs/bad-input.md).
package route

import (
	"fmt"
	"strings"
)

// CheckPrefix reports whether p is a path prefix a module may claim: it
// starts with "/", has at least one segment, does not end with "/", holds
// no empty, "." or ".." segment, no query or fragment, and is not under
// "/ext", which the host keeps for its own APIs and the chains.
func CheckPrefix(p string) error {
	if !strings.HasPrefix(p, "/") || p == "/" {
		return fmt.Errorf("path prefix %q: must start with / and name at least one segment, like /v1/chains", p)
	}
	if strings.ContainsAny(p, "?#") {
		return fmt.Errorf("path prefix %q: holds a query or fragment", p)
	}
	for seg := range strings.SplitSeq(p[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("path prefix %q: empty, . or .. segment (and no trailing /)", p)
		}
	}
	if p == "/ext" || strings.HasPrefix(p, "/ext/") {
		return fmt.Errorf("path prefix %q: /ext is the host's", p)
	}
	return nil
}

// PrefixMatches reports whether the request path falls under prefix: it
// is the prefix or continues it with "/" (so /v1/chains covers
// /v1/chains/43112 but not /v1/chainsX).
func PrefixMatches(prefix, path string) bool {
	rest, ok := strings.CutPrefix(path, prefix)
	return ok && (rest == "" || rest[0] == '/')
}

// CheckSegments refuses a path with a "." or ".." segment (sent as such or
// escaped): routes are chosen by prefix, and a resolved path would name
// another route than the one the prefix does (docs/bad-input.md).
func CheckSegments(path string) error {
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("path %q has a %q segment: send the path with it resolved", path, seg)
		}
	}
	return nil
}
