//go:build unix && !linux

package fmi

import "syscall"

// hostProcAttr: without Linux's parent-death signal, a host process ends
// when cosim's end closes its request pipe (it exits at end of input).
func hostProcAttr() *syscall.SysProcAttr { return nil }
