package main

import (
	"bytes"
	"os"
	"testing"
)

// TestSceneUpToDate: the committed scene is what the generator writes
// (a generated file must not drift from its generator).
func TestSceneUpToDate(t *testing.T) {
	got, err := os.ReadFile("../../" + Path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, Scene()) {
		t.Errorf("%s is stale: run go run ./benchmarks/stiffscene", Path)
	}
}
