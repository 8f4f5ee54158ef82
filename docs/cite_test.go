// Package docs holds no code: its test checks that every document the
// repository cites is in the repository, so that a reader can follow each
// citation.
package docs

import (
	"bufio"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	// outside names the documents that lived beside the project, never in
	// it; what they said is in docs/ now.
	outside = regexp.MustCompile(`\bSPEC\b|\bDESIGN\b|DESIGN\.md|SPEC\.md|\.\./shared/`)
	// cited is a path of the repository's docs or reference files, as code
	// comments and pages name them.
	cited = regexp.MustCompile(`\b(?:docs|reference)/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.(?:md|json|txt)\b`)
	// link is a Markdown link's target.
	link = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// skipDirs are not the project's text: fetched, generated or built files,
// and reference/, which holds third-party contracts as they were published.
var skipDirs = []string{".git", "node_modules", "build", "reference", "testdata"}

// TestCitations fails when a file cites a document outside the
// repository, names a docs/ or reference/ file that does not exist, or
// holds a Markdown link to a file or heading that does not exist.
func TestCitations(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && slices.Contains(skipDirs, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !isText(d.Name()) {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		checked++
		checkFile(t, root, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d files: the walk missed the repository", checked)
	}
}

func isText(name string) bool {
	switch filepath.Ext(name) {
	case ".go", ".md", ".yaml", ".yml", ".proto", ".sh", ".js", ".mjs":
		return true
	}
	return name == "Makefile"
}

func checkFile(t *testing.T, root, rel string) {
	t.Helper()
	f, err := os.Open(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := outside.FindString(line); m != "" && rel != "docs/cite_test.go" {
			t.Errorf("%s:%d cites %q, a document outside the repository: cite the page of docs/ that holds the rule", rel, n, m)
		}
		for _, c := range cited.FindAllString(line, -1) {
			if _, err := os.Stat(filepath.Join(root, c)); err != nil {
				t.Errorf("%s:%d cites %s, which is not in the repository", rel, n, c)
			}
		}
		if strings.HasSuffix(rel, ".md") {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				checkLink(t, root, rel, n, m[1])
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
}

// checkLink checks a relative Markdown link: its file exists and, with a
// fragment, the file has a heading of that anchor.
func checkLink(t *testing.T, root, rel string, n int, target string) {
	t.Helper()
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return
	}
	file, frag, _ := strings.Cut(target, "#")
	if file == "" {
		file = path.Base(rel)
	}
	p := path.Join(path.Dir(rel), file)
	st, err := os.Stat(filepath.Join(root, p))
	if err != nil {
		t.Errorf("%s:%d links to %s, which is not in the repository", rel, n, target)
		return
	}
	if frag == "" || st.IsDir() {
		return
	}
	anchors, err := headingAnchors(filepath.Join(root, p))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(anchors, frag) {
		t.Errorf("%s:%d links to %s, but %s has no heading with anchor %q", rel, n, target, p, frag)
	}
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown file: lower case, punctuation dropped, spaces as dashes.
func headingAnchors(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []string
	fence := false
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, anchor(strings.TrimLeft(line, "# ")))
	}
	return out, nil
}

func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
