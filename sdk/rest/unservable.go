package rest

import "net/http"

// Unservable returns the endpoint of a path of a contract that a
// self-hosted node cannot serve: every request gets a 404 in the error
// body saying so, and why, which the module's docs list (docs/rest.md,
// "Paths a node cannot serve"). Unlike the 404 of an unknown path, it
// says that the path is known.
func Unservable(why string) EndpointFunc {
	return func(r *http.Request) (any, error) {
		return nil, NotFound("%s is not served by a self-hosted node: %s", r.URL.Path, why)
	}
}
