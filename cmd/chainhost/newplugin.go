package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/chainhost/chainhost/core/version"
	"github.com/chainhost/chainhost/internal/scaffold"
)

const newPluginUsage = `Usage: chainhost new-plugin vm|module DIR [flags]

Writes a new VM (a counter chain) or REST module in DIR, a Go module of its
own that builds against the chainhost SDK as a dependency, with its tests
(docs/plugin-sdk.md).

Flags:
`

// runNewPlugin is `chainhost new-plugin`.
func runNewPlugin(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("new-plugin", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	name := fs.String("name", "", "the VM or module name (default: the base name of DIR)")
	modPath := fs.String("module-path", "", "the Go module path (default: example.com/<name>)")
	sdkVersion := fs.String("sdk-version", "", "the SDK release to require (default: this node's release)")
	sdkDir := fs.String("sdk-dir", "", "build against this chainhost checkout instead of a release")
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) {
		fmt.Fprint(stdout, newPluginUsage+fs.FlagUsages())
		return 0
	}
	if err == nil && fs.NArg() != 2 {
		err = errors.New("want the kind (vm or module) and a directory")
	}
	if err != nil {
		fmt.Fprintf(stderr, "chainhost new-plugin: %v\n\n%s%s", err, newPluginUsage, fs.FlagUsages())
		return 2
	}
	opts := scaffold.Options{Kind: fs.Arg(0), Dir: fs.Arg(1), Name: *name, ModulePath: *modPath, SDKVersion: *sdkVersion, SDKDir: *sdkDir}
	if opts.SDKVersion == "" && opts.SDKDir == "" {
		if !scaffold.IsRelease(version.Version) {
			fmt.Fprintf(stderr, "chainhost new-plugin: this chainhost (%s) is not a release: give --sdk-version vX.Y.Z, or --sdk-dir with the checkout it was built from\n", version.Version)
			return 2
		}
		opts.SDKVersion = version.Version
	}
	files, err := scaffold.Write(opts)
	if err != nil {
		fmt.Fprintf(stderr, "chainhost new-plugin: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %d files in %s; next: cd %s && go mod tidy && go test ./... (README.md says the rest)\n", len(files), opts.Dir, opts.Dir)
	return 0
}
