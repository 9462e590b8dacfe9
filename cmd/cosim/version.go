package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// cosimVersion is the version of this binary: the module version it was
// built at ("v0.3.1", or "(devel)" for a build from a checkout), with the
// VCS revision and a "+dirty" mark when the build recorded them (go build
// in a git checkout; CI builds with -buildvcs=false record none).
func cosimVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		v += " " + rev[:min(len(rev), 12)] + dirty
	}
	return v
}

// printVersion writes "cosim VERSION (GO VERSION, OS/ARCH)".
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "cosim %s (%s, %s/%s)\n", cosimVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
