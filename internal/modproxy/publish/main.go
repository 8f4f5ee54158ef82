// Command publish writes one version of the module in a directory into a
// file-based Go module proxy: how the test fixture of a plugin built on an
// earlier SDK release was made (tests/e2e/testdata/goproxy/README.md).
//
//	go run ./internal/modproxy/publish -root DIR -version vX.Y.Z -out PROXY [dir ...]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/chainhost/chainhost/internal/modproxy"
)

func main() {
	root := flag.String("root", ".", "the module's root directory, a git work tree")
	version := flag.String("version", "", "the version to publish (vX.Y.Z)")
	out := flag.String("out", "", "the proxy directory")
	flag.Parse()
	if *version == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "publish: -version and -out are required")
		os.Exit(2)
	}
	files, err := modproxy.ModuleFiles(*root, flag.Args()...)
	if err != nil {
		fail(err)
	}
	mv, err := modproxy.Publish(*out, *root, *version, files)
	if err != nil {
		fail(err)
	}
	fmt.Printf("published %s (%d files) to %s\n", mv, len(files), *out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "publish:", err)
	os.Exit(1)
}
