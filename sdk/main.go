package sdk

import (
	"fmt"
	"os"
)

// Main is the whole main of a plugin binary that has nothing to clean up:
// it runs Serve and, when Serve returns an error, prints it to stderr and
// exits 1. A main with defers calls Serve itself, so that they run first.
func Main(opts ServeOpts) {
	if err := Serve(opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
