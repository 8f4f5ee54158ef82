// Package logging keeps the host's registry of named loggers.
//
// Every name (main, one per chain, one per module, one per plugin process)
// has two levels that can be changed at run time: a log level for JSON lines
// appended to <dir>/<name>.log, and a display level for human-readable text
// written to a shared display writer (normally os.Stderr). A change takes
// effect at once for every logger already handed out, including the
// sub-loggers derived from it with Named or With.
package logging
