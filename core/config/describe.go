package config

import (
	"bufio"
	"regexp"
	"strings"

	"github.com/chainhost/chainhost/configs"
)

// topKey is a top-level key of the embedded defaults.
var topKey = regexp.MustCompile(`^([a-z0-9-]+):`)

// descriptions returns what each top-level key means: the first sentence
// of the comment above it in configs/default.yaml, which is the one place
// a key is described. The flags' help shows it; the Config field docs and
// the README's table say the same, which a test checks.
func descriptions() map[string]string {
	out := map[string]string{}
	var comment []string
	sc := bufio.NewScanner(strings.NewReader(string(configs.Default())))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#"):
			comment = append(comment, strings.TrimSpace(strings.TrimPrefix(line, "#")))
		case topKey.MatchString(line):
			if len(comment) > 0 {
				out[topKey.FindStringSubmatch(line)[1]] = firstSentence(strings.Join(comment, " "))
			}
			comment = nil
		default:
			comment = nil
		}
	}
	return out
}

// firstSentence is s up to its first full stop followed by a space or
// the end.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
