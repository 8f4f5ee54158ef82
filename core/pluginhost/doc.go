// Package pluginhost runs plugin binaries as go-plugin subprocesses: it
// describes them, starts them with the host services on the broker,
// initializes them, proxies HTTP to them, and restarts them with backoff when
// they exit.
package pluginhost
