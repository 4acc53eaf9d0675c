package helper

import "syscall"

// recvFlags are the flags of the control socket's Recvmsg: the
// descriptors a command comes with are close-on-exec from the start.
const recvFlags = syscall.MSG_CMSG_CLOEXEC

// relayAttr starts the proxy relay as a sibling of the helper
// (startRelay).
func relayAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Cloneflags: syscall.CLONE_PARENT}
}
