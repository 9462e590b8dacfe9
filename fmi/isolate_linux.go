package fmi

import "syscall"

// hostProcAttr makes the kernel kill a host process when cosim dies, so
// that no FMU outlives the run that started it (the host also sets it for
// itself, and checks its parent, fmuhost.c).
func hostProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
