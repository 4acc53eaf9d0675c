//go:build !linux

package process

import (
	"os"
	"syscall"
)

// Stand-ins for sys_linux.go on systems other than Linux, where commands
// run with the sandbox off: no cgroups (cgroups finds none), no pidfd.

func inCgroup(*syscall.SysProcAttr, *os.File) {}

// pipeCloexec makes a pipe and marks its ends close-on-exec, under the
// fork lock so that no child started meanwhile inherits them.
func pipeCloexec(p []int) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := syscall.Pipe(p); err != nil {
		return err
	}
	syscall.CloseOnExec(p[0])
	syscall.CloseOnExec(p[1])
	return nil
}

// sysPidfdOpen has no pidfd to give: waitExit waits with a goroutine.
func sysPidfdOpen(int, int) (int, error) { return -1, syscall.ENOSYS }
