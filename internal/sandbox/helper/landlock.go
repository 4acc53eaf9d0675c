//go:build linux

package helper

import (
	"fmt"
	"slices"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Landlock rights the grants are made of.
const (
	accessRead    = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	accessWrite   = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSTruncate
	accessRW      = accessRead | accessWrite
	accessRWRefer = accessRW | ll.AccessFSRefer
	// accessFile are the rights that mean something on a file that is
	// not a directory; the kernel refuses any other on one.
	accessFile = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSTruncate
)

// applyLandlock restricts the helper's thread, and so the command it
// execs from that thread, to the spec. Every path grant is made from a
// descriptor opened without following a link (ruleset.grant): a rule
// made from a path resolves it, and a symlink on the way (a workspace's
// "h -> $HOME") would carry the grant to its target.
func applyLandlock(spec Spec) error {
	cfg := landlock.V7.BestEffort()
	if spec.Network {
		// TCP stays open; files and the IPC scopes (signals and abstract
		// sockets to processes outside the sandbox) are still restricted.
		cfg.HandledAccessNet = 0
	}
	var netRules []landlock.Rule
	if spec.ProxySocket != "" {
		netRules = append(netRules, landlock.ConnectTCP(ProxyPort))
	}
	fd, flags, err := cfg.NewRulesetFD(netRules...)
	if err != nil {
		return err
	}
	if fd < 0 {
		return nil // no Landlock on this kernel: best effort, as configured
	}
	defer unix.Close(fd)
	abi, _ := ll.LandlockGetABIVersion()
	r := ruleset{fd: fd, handled: handledFS(uint64(cfg.HandledAccessFS), abi)}
	if err := r.grants(spec); err != nil {
		return err
	}
	// Only the calling thread is restricted: runHelper has locked it and
	// execs the command from it.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

// grants adds the spec's path grants to the ruleset.
func (r ruleset) grants(spec Spec) error {
	var err error
	if spec.ReadAll {
		err = r.grant("/", accessRead)
	} else {
		err = r.grantExcept("/", spec.Hidden, accessRead)
	}
	for _, w := range spec.Writable {
		if err != nil {
			return err
		}
		if spec.ReadAll {
			err = r.grant(w, accessRWRefer)
		} else {
			err = r.grantExcept(w, append(slices.Clone(spec.Hidden), spec.ReadOnly...), accessRWRefer)
		}
	}
	for _, v := range spec.Visible {
		if err != nil {
			return err
		}
		err = r.grant(v, accessRead)
	}
	for _, f := range spec.WritableFiles {
		if err != nil {
			return err
		}
		err = r.grant(f, accessRW&accessFile)
	}
	return err
}

// handledFS is what a ruleset made for want handles on a kernel of
// Landlock ABI abi (best effort drops what the kernel does not know).
func handledFS(want uint64, abi int) uint64 {
	var known uint64
	switch {
	case abi >= 5:
		known = ll.AccessFSIoctlDev<<1 - 1
	case abi >= 3:
		known = ll.AccessFSTruncate<<1 - 1
	case abi == 2:
		known = ll.AccessFSRefer<<1 - 1
	case abi == 1:
		known = ll.AccessFSMakeSym<<1 - 1
	}
	return want & known
}

// ruleset is a Landlock ruleset being filled.
type ruleset struct {
	fd      int
	handled uint64 // the filesystem rights the ruleset handles
}

// add grants access beneath the file fd refers to, only the rights the
// ruleset handles, and on a file that is not a directory only the file
// rights.
func (r ruleset) add(fd int, access uint64, dir bool) error {
	access &= r.handled
	if !dir {
		access &= accessFile
	}
	if access == 0 {
		return nil
	}
	if err := ll.LandlockAddPathBeneathRule(r.fd, &ll.PathBeneathAttr{ParentFd: fd, AllowedAccess: access}, 0); err != nil {
		return fmt.Errorf("landlock_add_rule: %w", err)
	}
	return nil
}
