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
// "/ext", which the host keeps for its own APIs and the chains. A segment
// after the first may be a wildcard, {name} (letters, digits and _), which
// stands for any one segment: /v2/chains/{chainId}/addresses.
func CheckPrefix(p string) error {
	if !strings.HasPrefix(p, "/") || p == "/" {
		return fmt.Errorf("path prefix %q: must start with / and name at least one segment, like /v1/chains", p)
	}
	if strings.ContainsAny(p, "?#") {
		return fmt.Errorf("path prefix %q: holds a query or fragment", p)
	}
	for i, seg := range strings.Split(p[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("path prefix %q: empty, . or .. segment (and no trailing /)", p)
		}
		if !strings.ContainsAny(seg, "{}") {
			continue
		}
		if !isWildcard(seg) {
			return fmt.Errorf("path prefix %q: segment %q: a wildcard is a whole segment {name}, the name letters, digits and _", p, seg)
		}
		if i == 0 {
			return fmt.Errorf("path prefix %q: the first segment must be literal", p)
		}
	}
	if p == "/ext" || strings.HasPrefix(p, "/ext/") {
		return fmt.Errorf("path prefix %q: /ext is the host's", p)
	}
	return nil
}

// isWildcard reports whether a prefix segment is {name}.
func isWildcard(seg string) bool {
	if len(seg) < 3 || seg[0] != '{' || seg[len(seg)-1] != '}' {
		return false
	}
	name := seg[1 : len(seg)-1]
	for _, c := range name {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// PrefixMatches reports whether the request path falls under prefix: it
// is the prefix or continues it with "/" (so /v1/chains covers
// /v1/chains/43112 but not /v1/chainsX), a wildcard segment of the prefix
// matching any one non-empty segment of the path.
func PrefixMatches(prefix, path string) bool {
	if !strings.Contains(prefix, "{") {
		rest, ok := strings.CutPrefix(path, prefix)
		return ok && (rest == "" || rest[0] == '/')
	}
	pre, segs := strings.Split(prefix, "/"), strings.Split(path, "/")
	if len(segs) < len(pre) {
		return false
	}
	for i, seg := range pre {
		if segs[i] != seg && (!isWildcard(seg) || segs[i] == "") {
			return false
		}
	}
	return true
}

// MoreSpecific reports whether prefix a is chosen over prefix b for a path
// both match: comparing them segment by segment, the first where they
// differ decides, a literal beating a wildcard; when one is the other's
// start, the longer wins.
func MoreSpecific(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := range min(len(as), len(bs)) {
		if wa, wb := isWildcard(as[i]), isWildcard(bs[i]); wa != wb {
			return wb
		}
	}
	return len(as) > len(bs)
}

// SamePaths reports whether two prefixes match exactly the same paths:
// equal but for the names of their wildcards.
func SamePaths(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	if len(as) != len(bs) {
		return false
	}
	for i := range as {
		if as[i] != bs[i] && !(isWildcard(as[i]) && isWildcard(bs[i])) {
			return false
		}
	}
	return true
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
