// Command quickstart is the README's quick start: a ball on a table,
// composed in Go, stepped by the graph and summarized.
//
// It is the code the README shows; a test runs it and checks its output.
// Concurrency: it runs on one goroutine.
package main
