//go:build !cgo

package main

import (
	"fmt"
	"os"
)

// Without cgo there is no c-shared binary: the package still builds (so
// that go build ./... does with CGO_ENABLED=0), as a program that says so.
func main() {
	fmt.Fprintln(os.Stderr, "fmi/export/cshared is an FMU's binary, built with go build -buildmode=c-shared, which needs cgo (CGO_ENABLED=1 and a C compiler)")
	os.Exit(2)
}
