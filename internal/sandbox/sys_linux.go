package sandbox

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// The Linux system calls that files built everywhere reach; sys_other.go
// stands in for them on other systems, where the sandbox is unavailable
// and none of them runs.

// holderAttr starts a network's holder in a new network namespace, in a
// user namespace of its own too with userns.
func holderAttr(userns bool) *syscall.SysProcAttr {
	// Its own group, away from signals meant for toolgate's; and it dies
	// with toolgate.
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if userns {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		// Not root inside, it would lose its capabilities over the new
		// namespaces on exec: setting the loopback up needs this one.
		attr.AmbientCaps = []uintptr{unix.CAP_NET_ADMIN}
	}
	return attr
}

// setNetNS moves the calling thread into the network namespace ns.
func setNetNS(ns *os.File) error { return unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET) }

// gettid is the calling thread's id.
func gettid() int { return syscall.Gettid() }

// seqpacketCloexec is the type of the warm sandbox's control socket.
const seqpacketCloexec = syscall.SOCK_SEQPACKET | syscall.SOCK_CLOEXEC

// passCred has the kernel attach the sender's credentials to each message
// fd receives.
func passCred(fd int) error {
	return syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_PASSCRED, 1)
}

// sizeofCred is the size of the credentials passCred attaches.
const sizeofCred = syscall.SizeofUcred

// credPid is the sender's process id in a control message passCred
// attached.
func credPid(m *syscall.SocketControlMessage) (int, error) {
	cred, err := syscall.ParseUnixCredentials(m)
	if err != nil {
		return 0, err
	}
	return int(cred.Pid), nil
}

// notHere is why this system can have no sandbox: nothing, on Linux.
const notHere = ""
