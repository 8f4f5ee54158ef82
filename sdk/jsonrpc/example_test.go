package jsonrpc_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// GreetArgs are the params of hello.greet.
type GreetArgs struct {
	Name string `json:"name"`
}

// A JSON-RPC method is a typed Go function: Method decodes params into its
// argument (an unknown param is -32602 naming it), and a returned
// *jsonrpc.Error chooses the error code. The server answers over HTTP with
// the node's framing (docs/api/jsonrpc.md).
func ExampleMethod() {
	srv := jsonrpc.NewServer(jsonrpc.Options{})
	srv.Register("hello.greet", jsonrpc.Method(func(_ context.Context, a GreetArgs) (map[string]string, error) {
		if a.Name == "" {
			return nil, jsonrpc.InvalidParams("%q is required", "name")
		}
		return map[string]string{"greeting": "hello, " + a.Name}, nil
	}))
	ts := httptest.NewServer(srv)
	defer ts.Close()

	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"hello.greet","params":{"name":"ada"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"hello.greet","params":[{}]}`,
		`{"jsonrpc":"2.0","id":3,"method":"hello.greet","params":{"nom":"ada"}}`,
	} {
		resp, err := http.Post(ts.URL, "application/json", strings.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, strings.TrimSpace(string(out)))
	}
	// Output:
	// 200 {"jsonrpc":"2.0","result":{"greeting":"hello, ada"},"id":1}
	// 200 {"jsonrpc":"2.0","error":{"code":-32602,"message":"invalid params: \"name\" is required"},"id":2}
	// 200 {"jsonrpc":"2.0","error":{"code":-32602,"message":"invalid params: unknown param \"nom\""},"id":3}
}
