//go:build ignore

// schema_gen writes docs/scene.schema.json, the JSON Schema of scene files,
// from the node registry: go generate ./docs runs it in the docs directory.
package main

import (
	"log"
	"log/slog"
	"os"

	"github.com/cosimgo/cosim/nodes"
	"github.com/cosimgo/cosim/scene"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("docs/schema_gen: ")
	// Listing the catalog builds deprecated nodes, which warn; irrelevant here.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	b, err := scene.Schema(nodes.Registry())
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("scene.schema.json", b, 0o644); err != nil {
		log.Fatal(err)
	}
}
