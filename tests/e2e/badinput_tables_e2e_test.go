package e2e

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
)

// badInputDoc is the page whose bad-input tables TestBadInputTables runs:
// the tables are the test's cases, so that every row documented is a row
// checked, and nothing is written twice.
const badInputDoc = "../../docs/bad-input.md"

// badInputSection is the heading of the tables in badInputDoc.
const badInputSection = "## Bad-input tables"

// badInputInterfaces are the tables the page must have: one per interface
// the node serves (issue 15). P and atomic join when they exist.
var badInputInterfaces = []string{
	"Routing and paths", "Host JSON-RPC framing", "Admin API", "Index API",
	"EVM JSON-RPC framing (C)", "X-Chain API (avm.*)", "Chain data API", "Metrics API (v1 avg_tps)",
}

// badInputRow is one row of a table: a request and its exact answer.
type badInputRow struct {
	line          int    // in badInputDoc
	table         string // the heading above it
	method, path  string
	header        [2]string // one optional header: name, value
	body          string    // with its repetitions expanded
	status        int
	answer        string // without the newline some answers end with
	hasBody       bool
	contentTypeOK bool // the row sets its own Content-Type
}

// repeat is the page's shorthand for long inputs: <N×TEXT> stands for
// TEXT written N times.
var repeat = regexp.MustCompile(`<(\d+)×([^>]*)>`)

func expandRepeats(s string) string {
	return repeat.ReplaceAllStringFunc(s, func(m string) string {
		p := repeat.FindStringSubmatch(m)
		n, _ := strconv.Atoi(p[1])
		return strings.Repeat(p[2], n)
	})
}

// codeSpans returns the `code` spans of a table cell.
var codeSpan = regexp.MustCompile("`([^`]*)`")

func codeSpans(cell string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// tableCells splits a Markdown table row at the pipes that are not
// escaped, and unescapes the others.
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(strings.TrimSuffix(line, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// readBadInputDoc returns the node config (the section's yaml block) and
// the rows of every table of the section.
func readBadInputDoc(t *testing.T) (config string, rows []badInputRow) {
	t.Helper()
	f, err := os.Open(badInputDoc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var (
		in, inYAML bool
		yaml       strings.Builder
		table      string
		lineNo     int
	)
	for sc.Scan() {
		line := sc.Text()
		lineNo++
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == badInputSection
			continue
		case !in:
			continue
		case line == "```yaml" && config == "":
			inYAML = true
			continue
		case inYAML && line == "```":
			inYAML, config = false, yaml.String()
			continue
		case inYAML:
			yaml.WriteString(line + "\n")
			continue
		case strings.HasPrefix(line, "### "):
			table = strings.TrimPrefix(line, "### ")
			continue
		case !strings.HasPrefix(line, "| `"):
			continue
		}
		cells := tableCells(line)
		if len(cells) != 4 {
			t.Fatalf("%s:%d: %d cells, want request, body, status, answer", badInputDoc, lineNo, len(cells))
		}
		req := codeSpans(cells[0])
		method, path, ok := strings.Cut(req[0], " ")
		if !ok || len(req) > 2 {
			t.Fatalf("%s:%d: request %q, want `METHOD PATH` and at most one `Header: value`", badInputDoc, lineNo, cells[0])
		}
		row := badInputRow{line: lineNo, table: table, method: method, path: path, answer: cells[3]}
		if len(req) == 2 {
			name, value, _ := strings.Cut(req[1], ": ")
			row.header = [2]string{name, value}
			row.contentTypeOK = strings.EqualFold(name, "Content-Type")
		}
		if body := codeSpans(cells[1]); len(body) == 1 {
			row.body, row.hasBody = expandRepeats(body[0]), true
		}
		if row.status, err = strconv.Atoi(cells[2]); err != nil {
			t.Fatalf("%s:%d: status %q", badInputDoc, lineNo, cells[2])
		}
		if ans := codeSpans(cells[3]); len(ans) == 1 {
			row.answer = ans[0]
		} else if cells[3] == "(empty)" {
			row.answer = ""
		} else {
			t.Fatalf("%s:%d: answer %q, want one code span or (empty)", badInputDoc, lineNo, cells[3])
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return config, rows
}

// TestBadInputTables sends every row of the bad-input tables in
// docs/bad-input.md to a real node started with the config the page
// gives, and compares the status and the whole answer.
func TestBadInputTables(t *testing.T) {
	t.Parallel()
	config, rows := readBadInputDoc(t)
	if config == "" {
		t.Fatalf("%s: no yaml block in %q", badInputDoc, badInputSection)
	}
	perTable := map[string]int{}
	for _, r := range rows {
		perTable[r.table]++
	}
	for _, name := range badInputInterfaces {
		if perTable[name] < 5 {
			t.Errorf("%s: table %q has %d rows, want at least 5", badInputDoc, name, perTable[name])
		}
	}

	n := nodetest.Start(t, nodetest.Options{Config: config})
	// The data API answers about blocks once it has indexed the genesis.
	waitDataBlock(t, n, 0)
	client := &http.Client{Timeout: 30 * time.Second}
	for _, r := range rows {
		t.Run(strconv.Itoa(r.line), func(t *testing.T) {
			var body io.Reader
			if r.hasBody {
				body = strings.NewReader(r.body)
			}
			req, err := http.NewRequestWithContext(context.Background(), r.method, n.URL+r.path, body)
			if err != nil {
				t.Fatal(err)
			}
			if req.URL.RequestURI() != r.path {
				t.Fatalf("the client would send %s for %s", req.URL.RequestURI(), r.path)
			}
			if r.hasBody && !r.contentTypeOK {
				req.Header.Set("Content-Type", "application/json")
			}
			if r.header[0] != "" {
				req.Header.Set(r.header[0], r.header[1])
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s: %s %s: %v", r.table, r.method, r.path, err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			answer := strings.TrimSuffix(string(got), "\n")
			if resp.StatusCode != r.status || answer != r.answer {
				t.Errorf("%s:%d (%s): %s %s\n got %d %s\nwant %d %s", badInputDoc, r.line, r.table, r.method, r.path, resp.StatusCode, answer, r.status, r.answer)
			}
		})
	}
}
