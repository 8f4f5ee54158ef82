// Package bench holds the project's benchmarks that span packages or
// processes; `make bench` runs them with the package benchmarks. Results,
// with the commands that produced them, are in docs/benchmarks.md.
package bench
