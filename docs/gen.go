//go:build ignore

// gen regenerates cosim's documentation: go generate ./docs runs it in
// the docs directory.
package main

import (
	"log"
	"log/slog"
	"os"

	"github.com/cosimgo/cosim/docs"
	"github.com/cosimgo/cosim/nodes"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("docs/gen: ")
	// Describing every node builds one of each, and the deprecated ones
	// warn on construction; those warnings say nothing about the docs.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	if err := docs.Generate(".", nodes.Registry()); err != nil {
		log.Fatal(err)
	}
}
