//go:build !unix

package fmi

import (
	"context"
	"fmt"
	"time"
)

// The out-of-process transport passes file descriptors 3 and 4 to its
// host program, which only unix systems do.

type isolated struct {
	timeout time.Duration
	ctx     context.Context
}

func (isolated) instantiate(f *FMU, k Interface, name string, use varUse) (instance, error) {
	return nil, fmt.Errorf("FMU %s (instance %s): %w: isolated FMUs run on unix systems only", f.md.ModelName, name, ErrHost)
}
