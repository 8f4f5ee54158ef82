package rest_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/chainhost/chainhost/sdk/rest"
)

// A module serving a paged list: path and query parameters checked, pages
// chained by signed tokens, requests limited per key and per client IP,
// every error answered with the REST error body.
func Example() {
	// A module keeps its key in its data directory:
	//   key, err := rest.LoadOrCreateKey(filepath.Join(dataDir, "pagetoken.key"))
	key := bytes.Repeat([]byte{7}, 32)
	tokens, err := rest.NewPageTokens(key, 24*time.Hour)
	if err != nil {
		panic(err)
	}
	limiter, err := rest.NewLimiter(rest.LimiterOptions{Config: rest.LimitConfig{
		Anonymous: rest.Limit{PerSecond: 10, Burst: 20},
		Keys: []rest.APIKey{
			{Name: "team-a", Key: "team-a-secret-0123456789", Limit: rest.Limit{PerSecond: 100, Burst: 200}},
		},
	}})
	if err != nil {
		panic(err)
	}

	type cursor struct {
		Next int `json:"next"`
	}
	const total = 25
	// rest.Mux answers unknown paths (404) and other methods (405) with
	// the REST error body, and writes each endpoint's value or error.
	mux := rest.NewMux(rest.MuxOptions{})
	mux.Handle("/v1/chains/{chainId}/numbers", func(r *http.Request) (any, error) {
		chainID, err := rest.PathParam(r, "chainId")
		if err != nil {
			return nil, err
		}
		q := rest.Query(r)
		pageSize := q.Int("pageSize", rest.IntRange{Default: 10, Min: 1, Max: 100})
		order := q.Enum("sortOrder", "asc", "asc", "desc")
		pageToken := q.String("pageToken", "")
		if err := q.Err(); err != nil {
			return nil, err
		}
		// The scope is what the pages depend on: not pageSize, not pageToken.
		scope := rest.Scope(r.Pattern, chainID, order)
		var c cursor
		if pageToken != "" {
			if err := tokens.Open(pageToken, scope, &c); err != nil {
				return nil, err
			}
		}
		resp := struct {
			NextPageToken string `json:"nextPageToken,omitempty"`
			Numbers       []int  `json:"numbers"`
		}{Numbers: []int{}}
		next := min(c.Next+pageSize, total)
		for n := c.Next; n < next; n++ {
			resp.Numbers = append(resp.Numbers, n)
		}
		if next < total {
			if resp.NextPageToken, err = tokens.Seal(scope, cursor{Next: next}); err != nil {
				return nil, err // 500 "internal error"; log err
			}
		}
		return resp, nil
	})
	handler := limiter.Wrap(mux)

	get := func(target string, header ...string) string {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		if len(header) == 2 {
			r.Header.Set(header[0], header[1])
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, r)
		return fmt.Sprintf("%d %s", rec.Code, strings.TrimSpace(rec.Body.String()))
	}
	// nextToken returns the nextPageToken of a 200 answer.
	nextToken := func(answer string) string {
		_, after, _ := strings.Cut(answer, `"nextPageToken":"`)
		token, _, _ := strings.Cut(after, `"`)
		return token
	}

	first := get("/v1/chains/43112/numbers?pageSize=20", "x-data-api-key", "team-a-secret-0123456789")
	second := get("/v1/chains/43112/numbers?pageSize=20&pageToken=" + nextToken(first))
	fmt.Println(strings.Replace(first, nextToken(first), "…", 1))
	fmt.Println(second)
	fmt.Println(get("/v1/chains/43112/numbers?sortOrder=desc&pageToken=" + nextToken(first)))
	fmt.Println(get("/v1/chains/43112/numbers?pageSize=0&sortOrder=up"))
	fmt.Println(get("/v1/chains/43112/numbers", "x-data-api-key", "guess"))
	fmt.Println(get("/v1/nowhere"))
	// Output:
	// 200 {"nextPageToken":"…","numbers":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19]}
	// 200 {"numbers":[20,21,22,23,24]}
	// 400 {"message":"pageToken: not a valid page token for this request","statusCode":400,"error":"Bad Request"}
	// 400 {"message":"pageSize: must be an integer from 1 to 100, got \"0\"; sortOrder: must be one of asc|desc, got \"up\"","statusCode":400,"error":"Bad Request"}
	// 401 {"message":"invalid API key","statusCode":401,"error":"Unauthorized"}
	// 404 {"message":"no endpoint GET /v1/nowhere","statusCode":404,"error":"Not Found"}
}
