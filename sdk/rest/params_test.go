package rest

import (
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// pageSize is the range of the data API's list page size.
var pageSize = IntRange{Default: 10, Min: 1, Max: 100}

func TestParams(t *testing.T) {
	tests := []struct {
		name    string
		query   string
		read    func(p *Params) any
		want    any
		wantErr string // the whole message; "" for no error
	}{
		{"int absent", "", func(p *Params) any { return p.Int("pageSize", pageSize) }, 10, ""},
		{"int empty", "pageSize=", func(p *Params) any { return p.Int("pageSize", pageSize) }, 10, ""},
		{"int given", "pageSize=100", func(p *Params) any { return p.Int("pageSize", pageSize) }, 100, ""},
		{"int below", "pageSize=0", func(p *Params) any { return p.Int("pageSize", pageSize) }, 10,
			`pageSize: must be an integer from 1 to 100, got "0"`},
		{"int above", "pageSize=101", func(p *Params) any { return p.Int("pageSize", pageSize) }, 10,
			`pageSize: must be an integer from 1 to 100, got "101"`},
		{"int not a number", "pageSize=ten", func(p *Params) any { return p.Int("pageSize", pageSize) }, 10,
			`pageSize: must be an integer from 1 to 100, got "ten"`},
		{"int fraction", "pageSize=1.5", func(p *Params) any { return p.Int("pageSize", pageSize) }, 10,
			`pageSize: must be an integer from 1 to 100, got "1.5"`},
		{"int unbounded", "n=-1", func(p *Params) any { return p.Int("n", IntRange{Min: 0, Max: math.MaxInt}) }, 0,
			`n: must be an integer of at least 0, got "-1"`},
		{"int repeated", "pageSize=1&pageSize=2", func(p *Params) any { return p.Int("pageSize", pageSize) }, 10,
			`pageSize: must be given at most once, got 2 values`},
		{"int bad escape", "pageSize=%zz", func(p *Params) any { return p.Int("pageSize", pageSize) }, 10,
			`pageSize: invalid URL escape in "%zz"`},
		{"unknown parameters ignored", "foo=1&foo=2&bar=%zz&pageSize=5", func(p *Params) any { return p.Int("pageSize", pageSize) }, 5, ""},

		{"uint64 absent", "", func(p *Params) any { v, ok := p.Uint64("blockNumber"); return [2]any{v, ok} }, [2]any{uint64(0), false}, ""},
		{"uint64 given", "blockNumber=18446744073709551615", func(p *Params) any { v, ok := p.Uint64("blockNumber"); return [2]any{v, ok} },
			[2]any{uint64(math.MaxUint64), true}, ""},
		{"uint64 negative", "blockNumber=-1", func(p *Params) any { v, ok := p.Uint64("blockNumber"); return [2]any{v, ok} }, [2]any{uint64(0), false},
			`blockNumber: must be a non-negative 64-bit integer, got "-1"`},
		{"uint64 overflow", "blockNumber=18446744073709551616", func(p *Params) any { v, ok := p.Uint64("blockNumber"); return [2]any{v, ok} }, [2]any{uint64(0), false},
			`blockNumber: must be a non-negative 64-bit integer, got "18446744073709551616"`},

		{"int64 absent", "", func(p *Params) any { v, ok := p.Int64("startTimestamp", 0); return [2]any{v, ok} }, [2]any{int64(0), false}, ""},
		{"int64 zero", "startTimestamp=0", func(p *Params) any { v, ok := p.Int64("startTimestamp", 0); return [2]any{v, ok} }, [2]any{int64(0), true}, ""},
		{"int64 below", "startTimestamp=-1", func(p *Params) any { v, ok := p.Int64("startTimestamp", 0); return [2]any{v, ok} }, [2]any{int64(0), false},
			`startTimestamp: must be an integer of at least 0, got "-1"`},
		{"int64 not a number", "endTimestamp=yesterday", func(p *Params) any { v, ok := p.Int64("endTimestamp", 0); return [2]any{v, ok} }, [2]any{int64(0), false},
			`endTimestamp: must be an integer of at least 0, got "yesterday"`},

		{"bool absent", "", func(p *Params) any { return p.Bool("filterSpamTokens", true) }, true, ""},
		{"bool false", "filterSpamTokens=false", func(p *Params) any { return p.Bool("filterSpamTokens", true) }, false, ""},
		{"bool true", "filterSpamTokens=true", func(p *Params) any { return p.Bool("filterSpamTokens", false) }, true, ""},
		{"bool yes", "filterSpamTokens=yes", func(p *Params) any { return p.Bool("filterSpamTokens", true) }, true,
			`filterSpamTokens: must be true or false, got "yes"`},
		{"bool upper case", "filterSpamTokens=TRUE", func(p *Params) any { return p.Bool("filterSpamTokens", false) }, false,
			`filterSpamTokens: must be true or false, got "TRUE"`},

		{"enum absent", "", func(p *Params) any { return p.Enum("sortOrder", "desc", "asc", "desc") }, "desc", ""},
		{"enum given", "sortOrder=asc", func(p *Params) any { return p.Enum("sortOrder", "desc", "asc", "desc") }, "asc", ""},
		{"enum other", "sortOrder=up", func(p *Params) any { return p.Enum("sortOrder", "desc", "asc", "desc") }, "desc",
			`sortOrder: must be one of asc|desc, got "up"`},

		{"list absent", "", func(p *Params) any { return p.List("contractAddresses") }, []string(nil), ""},
		{"list trimmed", "contractAddresses=0xa,%200xb%20,,0xc,", func(p *Params) any { return p.List("contractAddresses") }, []string{"0xa", "0xb", "0xc"}, ""},
		{"list repeated", "contractAddresses=0xa&contractAddresses=0xb", func(p *Params) any { return p.List("contractAddresses") }, []string(nil),
			`contractAddresses: must be given at most once, got 2 values`},

		{"string absent", "", func(p *Params) any { return p.String("currency", "usd") }, "usd", ""},
		{"string unescaped", "blockNumber=latest+1%21", func(p *Params) any { return p.String("blockNumber", "") }, "latest 1!", ""},
		{"string repeated", "pageToken=a&pageToken=b", func(p *Params) any { return p.String("pageToken", "") }, "",
			`pageToken: must be given at most once, got 2 values`},
		{"long value cut", "pageSize=" + strings.Repeat("9", 100), func(p *Params) any { return p.Int("pageSize", pageSize) }, 10,
			`pageSize: must be an integer from 1 to 100, got "` + strings.Repeat("9", 64) + `"...`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Query(httptest.NewRequest(http.MethodGet, "/v1/x?"+tt.query, nil))
			if got := tt.read(p); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("value %#v, want %#v", got, tt.want)
			}
			err := p.Err()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Err() = %v, want an *Error", err)
			}
			if e.Status != http.StatusBadRequest || e.Message != tt.wantErr {
				t.Errorf("Err() = %d %q, want 400 %q", e.Status, e.Message, tt.wantErr)
			}
		})
	}
}

func TestParamsSeveralProblems(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet,
		"/v1/chains/43112/addresses/0x1/transactions?pageSize=0&sortOrder=up&startBlock=x&pageSize=3&endBlock=9&extra=1", nil)
	p := Query(r)
	p.Int("pageSize", pageSize)
	p.Int("pageSize", pageSize) // read twice, reported once
	p.Enum("sortOrder", "desc", "asc", "desc")
	p.Uint64("startBlock")
	if v, ok := p.Uint64("endBlock"); !ok || v != 9 {
		t.Errorf("endBlock = %d, %v; want 9, true", v, ok)
	}
	p.Bool("filterSpamTokens", true)

	want := []string{
		`pageSize: must be given at most once, got 2 values`,
		`sortOrder: must be one of asc|desc, got "up"`,
		`startBlock: must be a non-negative 64-bit integer, got "x"`,
	}
	var e *Error
	if !errors.As(p.Err(), &e) {
		t.Fatalf("Err() = %v, want an *Error", p.Err())
	}
	if e.Status != 400 || !reflect.DeepEqual(e.Messages, want) || e.Message != strings.Join(want, "; ") {
		t.Errorf("Err() = %d %q %q, want 400 and %q", e.Status, e.Message, e.Messages, want)
	}

	rec := httptest.NewRecorder()
	WriteErrorMessages(rec, p.Err())
	body := decodeBody(t, rec)
	items, _ := body["message"].([]any)
	if len(items) != len(want) {
		t.Fatalf("messages style: message %v, want %d items", body["message"], len(want))
	}
	for i := range want {
		if items[i] != want[i] {
			t.Errorf("messages style: item %d = %q, want %q", i, items[i], want[i])
		}
	}

	rec = httptest.NewRecorder()
	WriteError(rec, p.Err())
	if body := decodeBody(t, rec); body["message"] != strings.Join(want, "; ") {
		t.Errorf("string style: message %v", body["message"])
	}
}

func TestParamsErrIsACopy(t *testing.T) {
	p := Query(httptest.NewRequest(http.MethodGet, "/?a=x&b=y", nil))
	p.Int("a", pageSize)
	first := p.Err().(*Error)
	p.Int("b", pageSize)
	if len(first.Messages) != 1 {
		t.Errorf("an earlier Err() changed after more reads: %q", first.Messages)
	}
	if second := p.Err().(*Error); len(second.Messages) != 2 {
		t.Errorf("Err() after two bad reads has %q", second.Messages)
	}
}

func TestPathParam(t *testing.T) {
	type result struct {
		value string
		err   string
	}
	tests := []struct {
		name    string
		pattern string
		param   string
		path    string
		want    result
	}{
		{"given", "GET /v1/chains/{chainId}/blocks/{blockId}", "blockId", "/v1/chains/43112/blocks/0xab", result{value: "0xab"}},
		{"escaped", "GET /v1/chains/{chainId}/blocks/{blockId}", "chainId", "/v1/chains/a%2Fb/blocks/1", result{value: "a/b"}},
		{"empty rest", "GET /v1/networks/{network}/metrics/{metric...}", "metric", "/v1/networks/fuji/metrics/", result{err: "metric: must not be empty"}},
		{"not in the pattern", "GET /v1/chains/{chainId}", "address", "/v1/chains/1", result{err: "address: must not be empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got result
			called := false
			mux := http.NewServeMux()
			mux.HandleFunc(tt.pattern, func(w http.ResponseWriter, r *http.Request) {
				called = true
				v, err := PathParam(r, tt.param)
				got.value = v
				if err != nil {
					var e *Error
					if !errors.As(err, &e) || e.Status != 400 {
						t.Errorf("PathParam error %v, want a 400 *Error", err)
					}
					got.err = err.Error()
				}
			})
			mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, tt.path, nil))
			if !called {
				t.Fatalf("%s did not match %s", tt.path, tt.pattern)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
