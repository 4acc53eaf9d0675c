package handlers

import "syscall"

// browserAttr starts the browser in a process group of its own (ended
// as a whole), killed with toolgate.
func browserAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
