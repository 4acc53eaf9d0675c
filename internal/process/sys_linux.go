package process

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// The Linux system calls that Run reaches; sys_other.go stands in for
// them on other systems.

// inCgroup starts the process in the cgroup that cg is open on.
func inCgroup(attr *syscall.SysProcAttr, cg *os.File) {
	attr.UseCgroupFD, attr.CgroupFD = true, int(cg.Fd())
}

// pipeCloexec makes a pipe whose ends are close-on-exec from the start.
func pipeCloexec(p []int) error { return unix.Pipe2(p, unix.O_CLOEXEC) }

// sysPidfdOpen opens a process descriptor for pid.
func sysPidfdOpen(pid, flags int) (int, error) { return unix.PidfdOpen(pid, flags) }
