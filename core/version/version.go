// Package version holds the node's version, set at build time by the Makefile.
package version

// Version is the node version; the Makefile sets it with -ldflags -X.
var Version = "dev"
