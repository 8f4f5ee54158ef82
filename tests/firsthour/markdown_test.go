package firsthour

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// docFile is one Markdown file of the documentation, parsed.
type docFile struct {
	path     string // relative to the repository root, slash-separated
	blocks   []*docBlock
	links    []docLink
	headings map[string]bool // the anchors of its headings
}

// docBlock is one fenced block and what the doc says about running it
// (docs/doctest.md).
type docBlock struct {
	file    string
	line    int    // of the opening fence, from 1
	lang    string // the fence's language, "" when it has none
	code    string
	markers []docMarker // on the lines right before the fence
	args    []string    // node flags, from the block's or its section's markers
	notRun  string      // the reason of "_Not run by the doc tests: <reason>._"
}

// docMarker is one `<!-- doctest: <key> <value> -->` comment.
type docMarker struct {
	key, value string
	line       int
}

// docLink is one link of a doc, to another file or an anchor.
type docLink struct {
	line int
	dest string
}

// name is the block's subtest name: where a reader finds it.
func (b *docBlock) name() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// marker returns the value of the block's marker key and whether it has one.
func (b *docBlock) marker(key string) (string, bool) {
	for _, m := range b.markers {
		if m.key == key {
			return m.value, true
		}
	}
	return "", false
}

// markerValues returns the values of every marker key of the block.
func (b *docBlock) markerValues(key string) []string {
	var out []string
	for _, m := range b.markers {
		if m.key == key {
			out = append(out, m.value)
		}
	}
	return out
}

var (
	// markerComment is a doctest marker, alone in its HTML comment.
	markerComment = regexp.MustCompile(`^<!--\s*doctest:\s*(\S+)\s*(.*?)\s*-->$`)
	// notRunLine is the visible sentence of a block the tests do not run.
	notRunLine = regexp.MustCompile(`^_Not run by the doc tests: (.+)\._$`)
)

// markerKeys are the markers a doc may use, and where (docs/doctest.md).
var markerKeys = map[string]bool{
	"args": true, "expect": true, "error": true, "answer": true, "same": true, "part-of": true, "prelude": true,
	"node-config": true, "packages": true,
}

// docPaths lists README.md and every Markdown file under docs/, README
// first, then in path order.
func docPaths(root string) ([]string, error) {
	paths := []string{"README.md"}
	var under []string
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			under = append(under, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list docs: %w", err)
	}
	sort.Strings(under)
	return append(paths, under...), nil
}

// parseDoc reads one Markdown file with goldmark: its fenced blocks with
// their markers, its links and its headings' anchors.
func parseDoc(root, rel string) (*docFile, error) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	ids := &githubIDs{used: map[string]int{}}
	md := goldmark.New(goldmark.WithParserOptions(parser.WithAutoHeadingID()))
	doc := md.Parser().Parse(text.NewReader(src), parser.WithContext(parser.NewContext(parser.WithIDs(ids))))
	f := &docFile{path: rel, headings: map[string]bool{}}
	lines := newLineIndex(src)

	// sectionArgs holds the args markers of the open sections, by heading
	// level (0: before the first heading).
	sectionArgs := map[int][]string{}
	level := 0
	var problems []string
	err = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if id, ok := n.AttributeString("id"); ok {
				f.headings[string(id.([]byte))] = true
			}
			level = n.Level
			for l := range sectionArgs {
				if l >= level {
					delete(sectionArgs, l)
				}
			}
		case *ast.HTMLBlock:
			if markersBeforeFence(n, src, lines) {
				return ast.WalkContinue, nil // a block's own marker, read with the block
			}
			m, ok := htmlMarker(n, src, lines)
			switch {
			case !ok:
			case m.key != "args":
				problems = append(problems, fmt.Sprintf("%s:%d: marker %q is not on the line right before a fence (only args may mark a whole section)", rel, m.line, m.key))
			default:
				sectionArgs[level] = append(sectionArgs[level], strings.Fields(m.value)...)
			}
		case *ast.FencedCodeBlock:
			b := fencedBlock(rel, n, src, lines)
			for _, l := range sortedLevels(sectionArgs) {
				b.args = append(b.args, sectionArgs[l]...)
			}
			for prev := n.PreviousSibling(); prev != nil; prev = prev.PreviousSibling() {
				h, ok := prev.(*ast.HTMLBlock)
				if !ok || !isRightBefore(h, prev.NextSibling(), src, lines) {
					if p, ok := prev.(*ast.Paragraph); ok && isRightBefore(p, n, src, lines) {
						last := p.Lines().At(p.Lines().Len() - 1)
						if m := notRunLine.FindSubmatch(bytes.TrimSpace(last.Value(src))); m != nil {
							b.notRun = string(m[1])
						}
					}
					break
				}
				m, ok := htmlMarker(h, src, lines)
				if !ok {
					break
				}
				b.markers = append([]docMarker{m}, b.markers...)
			}
			for _, m := range b.markers {
				if !markerKeys[m.key] {
					problems = append(problems, fmt.Sprintf("%s:%d: unknown doctest marker %q (docs/doctest.md lists them)", rel, m.line, m.key))
				}
				if m.key == "args" {
					b.args = append(b.args, strings.Fields(m.value)...)
				}
			}
			f.blocks = append(f.blocks, b)
		case *ast.Link:
			f.links = append(f.links, docLink{line: nodeLine(n, src, lines), dest: string(n.Destination)})
		case *ast.Image:
			f.links = append(f.links, docLink{line: nodeLine(n, src, lines), dest: string(n.Destination)})
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", rel, err)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return f, nil
}

// fencedBlock reads a fenced block's language, code and line.
func fencedBlock(rel string, n *ast.FencedCodeBlock, src []byte, lines lineIndex) *docBlock {
	b := &docBlock{file: rel, lang: string(n.Language(src))}
	var code strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		code.Write(seg.Value(src))
	}
	b.code = code.String()
	switch {
	case n.Info != nil:
		b.line = lines.line(n.Info.Segment.Start)
	case n.Lines().Len() > 0:
		b.line = lines.line(n.Lines().At(0).Start) - 1
	default:
		b.line = lines.line(n.Pos())
	}
	return b
}

// htmlMarker reads a doctest marker from an HTML block holding only it.
func htmlMarker(n *ast.HTMLBlock, src []byte, lines lineIndex) (docMarker, bool) {
	var raw bytes.Buffer
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		raw.Write(seg.Value(src))
	}
	if n.HasClosure() {
		closure := n.ClosureLine
		raw.Write(closure.Value(src))
	}
	m := markerComment.FindSubmatch(bytes.TrimSpace(raw.Bytes()))
	if m == nil {
		return docMarker{}, false
	}
	return docMarker{key: string(m[1]), value: string(m[2]), line: lines.line(n.Lines().At(0).Start)}, true
}

// markersBeforeFence reports whether n starts a run of HTML blocks, each on
// the line after the one before, that ends on the line right before a fence.
func markersBeforeFence(n *ast.HTMLBlock, src []byte, lines lineIndex) bool {
	var cur ast.Node = n
	for {
		next := cur.NextSibling()
		if !isRightBefore(cur, next, src, lines) {
			return false
		}
		if _, ok := next.(*ast.FencedCodeBlock); ok {
			return true
		}
		cur = next
	}
}

// isRightBefore reports whether block a ends on the line right before
// block b starts.
func isRightBefore(a, b ast.Node, src []byte, lines lineIndex) bool {
	if a == nil || b == nil || a.Lines().Len() == 0 {
		return false
	}
	end := a.Lines().At(a.Lines().Len() - 1).Start
	if h, ok := a.(*ast.HTMLBlock); ok && h.HasClosure() {
		end = h.ClosureLine.Start
	}
	start := 0
	switch b := b.(type) {
	case *ast.FencedCodeBlock:
		if b.Info != nil {
			start = lines.line(b.Info.Segment.Start)
		} else if b.Lines().Len() > 0 {
			start = lines.line(b.Lines().At(0).Start) - 1
		} else {
			return false
		}
	case *ast.HTMLBlock:
		if b.Lines().Len() == 0 {
			return false
		}
		start = lines.line(b.Lines().At(0).Start)
	default:
		return false
	}
	return lines.line(end)+1 == start
}

// nodeLine is the line of an inline node: that of the block holding it.
func nodeLine(n ast.Node, src []byte, lines lineIndex) int {
	for p := n; p != nil; p = p.Parent() {
		if p.Type() == ast.TypeBlock && p.Lines().Len() > 0 {
			return lines.line(p.Lines().At(0).Start)
		}
	}
	return 0
}

func sortedLevels(m map[int][]string) []int {
	var out []int
	for l := range m {
		out = append(out, l)
	}
	sort.Ints(out)
	return out
}

// lineIndex maps byte offsets of a file to line numbers.
type lineIndex []int // the offset of each line's start

func newLineIndex(src []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range src {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// line returns the line (from 1) holding offset.
func (idx lineIndex) line(offset int) int {
	return sort.Search(len(idx), func(i int) bool { return idx[i] > offset })
}

// githubIDs gives headings the anchors GitHub gives them: the text in lower
// case, without the characters other than letters, digits, spaces, `-` and
// `_`, spaces made `-`; a repeated anchor gets -1, -2, ...
type githubIDs struct{ used map[string]int }

func (g *githubIDs) Generate(value []byte, kind ast.NodeKind) []byte {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(string(value))) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	id := b.String()
	n, seen := g.used[id]
	g.used[id] = n + 1
	if seen {
		id = fmt.Sprintf("%s-%d", id, n)
	}
	return []byte(id)
}

func (g *githubIDs) Put(value []byte) { g.used[string(value)]++ }
