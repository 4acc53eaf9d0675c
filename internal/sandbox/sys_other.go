//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"syscall"
)

// Stand-ins for sys_linux.go and network_diag.go on systems other than
// Linux, so that the package builds there: the sandbox is unavailable
// (New says why), so none of these is reached.

// errLinuxOnly is what the stand-ins return.
var errLinuxOnly = errors.New("toolgate's sandbox runs on Linux only")

func holderAttr(bool) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func setNetNS(*os.File) error { return errLinuxOnly }

func gettid() int { return 0 }

const seqpacketCloexec = syscall.SOCK_SEQPACKET

func passCred(int) error { return errLinuxOnly }

const sizeofCred = 0

func credPid(*syscall.SocketControlMessage) (int, error) { return 0, errLinuxOnly }

// sockDiag is network_diag.go's netlink socket; elsewhere there is none.
type sockDiag struct{}

func (d *sockDiag) close() {}

// netlinkPorts has no netlink socket: Ports reads /proc instead.
func (n *Network) netlinkPorts() ([]Port, error) { return nil, errLinuxOnly }

// notHere is why this system can have no sandbox.
const notHere = `toolgate's sandbox needs Linux (bubblewrap or Landlock); set "sandbox": {"mode": "off"} to run commands unconfined`
