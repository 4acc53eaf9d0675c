//go:build !linux

package handlers

import "syscall"

// browserAttr starts the browser in a process group of its own (ended
// as a whole). Only Linux kills it with toolgate (Pdeathsig).
func browserAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
