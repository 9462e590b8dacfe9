//go:build !cgo || !unix

package fmi

import "fmt"

// This build has no cgo (CGO_ENABLED=0) or no dlopen: model descriptions
// can be read, FMUs opened and described, but no binary can be loaded.

const cgoAvailable = false

var inProcess transport = noTransport{}

type noTransport struct{}

func (noTransport) instantiate(f *FMU, k Interface, name string, use varUse) (instance, error) {
	return nil, fmt.Errorf("FMU %s (instance %s): %w", f.md.ModelName, name, ErrNeedsCgo)
}
