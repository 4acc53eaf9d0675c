//go:build !linux

package helper

import (
	"errors"
	"syscall"
)

// The helper runs on Linux only (namespaces, Landlock, capabilities): on
// other systems toolgate's sandbox is unavailable (sandbox.New) and never
// starts it. These stand in for the Linux-only files so that the module
// builds there, for running with the sandbox off.

// errLinuxOnly is what the helper's Linux-only steps return elsewhere.
var errLinuxOnly = errors.New("the sandbox helper runs on Linux only")

// HoldMarker is hold.go's: the first argument that makes a toolgate
// binary a network namespace's holder.
const HoldMarker = "__toolgate-sandbox-hold"

// ErrNoMountIDs is mountids.go's.
var ErrNoMountIDs = errors.New("statx reports no mount IDs")

// recvFlags are the flags of the control socket's Recvmsg.
const recvFlags = 0

func relayAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// MountIDs needs Linux's statx.
func MountIDs(string, []string) ([]uint64, error) { return nil, errLinuxOnly }

// CheckMountIDs needs Linux's statx.
func CheckMountIDs(string, []string, []uint64) error { return errLinuxOnly }

func runHold(string, string) error { return errLinuxOnly }
func checkNetNS(string) error      { return errLinuxOnly }
func applyLandlock(Spec) error     { return errLinuxOnly }
func dropCapabilities() error      { return errLinuxOnly }
func serve(Spec) error             { return errLinuxOnly }
