package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README's quick start is this program, verbatim: it compiles, runs,
// and cannot drift from the README.
func TestREADMEQuickStart(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(readme)
	if block == nil {
		t.Fatal("README has no Go block")
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, code, _ := strings.Cut(string(src), "package main")
	if "package main"+code != string(block[1]) {
		t.Error("examples/quickstart/main.go differs from the README's quick start: keep them identical")
	}
	main()
}
