package helper

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// A sandbox can be started ahead of its run: bubblewrap sets it up and the
// helper confines itself, then waits on the control socket (a
// SOCK_SEQPACKET socket, Spec.Control) for the run. Each message is one
// JSON Request or Reply. Once it has checked its mounts (CheckMounts) and
// noted the ID of each (MountIDs), the helper says it waits: a Reply with
// those IDs, to which the kernel attaches its process id, through which
// toolgate checks the sandbox's mounts itself (CheckMountIDs under
// /proc/PID/root) when a run comes, with no round trip to the helper.
// Then toolgate sends the command with its standard streams (stdin,
// stdout, stderr, in that order, as SCM_RIGHTS), and, once the call may
// run, a Go message (take.go). The helper checks its mounts again and
// starts the command as its child (child.go), answering a Reply that
// says it started, or why it was refused; once the command and
// everything it left in the sandbox have ended, a Reply with its Exit. Failures after the streams are taken (a program not found) go to
// the command's stderr with exit status 126, as when the helper is
// started for the command directly.

// maxReadyIDs bounds the mount IDs sent in the message saying the helper
// waits (21 bytes each at most, as JSON numbers); a sandbox with more
// mounts (thousands of masks) is checked by its mount table.
const maxReadyIDs = 48 << 10

// ReadyBuffer is a buffer large enough for the message saying a helper
// waits.
const ReadyBuffer = maxReadyIDs + 4<<10

// Request is a message from toolgate on the control socket.
type Request struct {
	// Argv, Env and Dir are the command to run.
	Argv []string `json:"argv,omitempty"`
	Env  []string `json:"env,omitempty"`
	Dir  string   `json:"dir,omitempty"`
	// Go starts the command received before it (take.go); it comes
	// alone, with no descriptors.
	Go bool `json:"go,omitempty"`
	// Reuse keeps the helper, once the command and what it left have
	// ended, for the next command of the same session (reuse.go): it
	// then waits for a Next message instead of exiting.
	Reuse bool `json:"reuse,omitempty"`
	// Next carries, instead of a command, the next command's limit
	// cgroups: Spec.JoinTasks cgroup v1 tasks files, then a cgroup v2
	// directory when Spec.CgroupDir is set, as SCM_RIGHTS.
	Next bool `json:"next,omitempty"`
}

// Reply says the helper waits, or why a command was refused.
type Reply struct {
	Error string `json:"error,omitempty"`
	// MountIDs are, in the message saying it waits, the IDs of the
	// mounts at Spec.Mounts (MountIDs), none where statx cannot tell.
	MountIDs []uint64 `json:"mount_ids,omitempty"`
	// Started says the command was started.
	Started bool `json:"started,omitempty"`
	// Exit says how it ended, once it and everything it left have.
	Exit *Exit `json:"exit,omitempty"`
	// Joined answers a Next message: the helper is in the next
	// command's cgroups, the sandbox is as it was made, and it waits.
	Joined bool `json:"joined,omitempty"`
}

// Exit is how a command ended: its exit status, or the signal that
// killed it.
type Exit struct {
	Code   int `json:"code"`
	Signal int `json:"signal,omitempty"`
}

// maxControlMessage bounds a Request on the control socket: toolgate hands
// over at most 64 KiB of command line and environment (maxHandOver),
// which JSON's escapes may make up to six times longer.
const maxControlMessage = 1 << 20

// newInbox is the buffer a helper receives every message of its control
// socket in, made once: a buffer of maxControlMessage made for each message
// was zeroed on every command's path, and made the helper's collector
// run every few commands (BenchmarkReceiveRequest, ./internal/sandbox/helper/).
func newInbox() []byte { return make([]byte, maxControlMessage) }

// await says it waits, then takes the command and its standard streams
// (stdin, stdout, stderr) once it may start (take), and returns it, with
// the IDs of its mounts (for the checks before each later command). A refusal is answered with
// a Reply saying why, and the streams are closed. inbox is newInbox's.
func await(spec Spec, inbox []byte) (command, []uint64, error) {
	if err := CheckMounts("/proc/self/mountinfo", spec.Mounts); err != nil {
		reply(spec.Control, Reply{Error: err.Error()})
		return command{}, nil, err
	}
	ids, _ := MountIDs("", spec.Mounts) // none: the mount table is read again
	if len(ids)*21 > maxReadyIDs {
		ids = nil // too many for one message
	}
	reply(spec.Control, Reply{MountIDs: ids}) // ready
	c, err := take(spec, ids, inbox)
	return c, ids, err
}

// message is the kind of a message on the control socket.
type message int

const (
	commandMessage message = iota // a command, with its three standard streams
	goMessage                     // Go, alone
	nextMessage                   // Next, with the next command's cgroups
)

// receive takes the next message, which must be of kind k with its
// descriptors. buf is the helper's inbox (newInbox).
func receive(spec Spec, k message, buf []byte) (Request, []int, error) {
	ctl := spec.Control
	oob := make([]byte, syscall.CmsgSpace(4*4))
	n, oobn, _, _, err := syscall.Recvmsg(ctl, buf, oob, recvFlags)
	if err != nil {
		return Request{}, nil, fmt.Errorf("control socket: %w", err)
	}
	if n == 0 {
		return Request{}, nil, errors.New("control socket closed: no command came")
	}
	var fds []int
	if oobn > 0 {
		msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
		if err == nil && len(msgs) == 1 {
			fds, err = syscall.ParseUnixRights(&msgs[0])
		}
		if err != nil {
			return Request{}, nil, fmt.Errorf("control socket: %w", err)
		}
	}
	refuse := func(err error) (Request, []int, error) {
		for _, fd := range fds {
			_ = syscall.Close(fd)
		}
		reply(ctl, Reply{Error: err.Error()})
		return Request{}, nil, err
	}
	var req Request
	dec := json.NewDecoder(bytes.NewReader(buf[:n]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return refuse(fmt.Errorf("bad request on the control socket: %w", err))
	}
	want := 3
	switch k {
	case goMessage:
		want = 0
	case nextMessage:
		want = spec.JoinTasks
		if spec.CgroupDir > 0 {
			want++
		}
	}
	switch {
	case req.Next != (k == nextMessage) || req.Go != (k == goMessage):
		return refuse(fmt.Errorf("unexpected message on the control socket (next %v, go %v)", req.Next, req.Go))
	case len(fds) != want:
		return refuse(fmt.Errorf("the message came with %d descriptors, not %d", len(fds), want))
	}
	return req, fds, nil
}

// reply sends one Reply on the control socket.
func reply(ctl int, r Reply) {
	b, _ := json.Marshal(r)
	_, _ = syscall.Write(ctl, b)
}

// checkMountsAgain checks that the mounts are as they were when the
// helper said it waits: by their IDs, else by the mount table.
func checkMountsAgain(mounts []string, ids []uint64) error {
	if ids != nil {
		err := CheckMountIDs("", mounts, ids)
		if !errors.Is(err, ErrNoMountIDs) && !errors.Is(err, fs.ErrPermission) {
			return err
		}
	}
	return CheckMounts("/proc/self/mountinfo", mounts)
}

// CheckMounts verifies that every path is a mount point in the mount
// namespace whose mountinfo file (/proc/PID/mountinfo) it reads, a line
// for each of the host's mounts: the lines are scanned in place, not
// split into fields (BenchmarkCheckMounts, ./internal/sandbox/helper/).
// A sandbox started ahead reads it once, before it says it waits; a
// run's checks compare mount IDs instead where statx has them
// (mountids.go).
func CheckMounts(mountinfo string, want []string) error {
	if len(want) == 0 {
		return nil
	}
	b, err := os.ReadFile(mountinfo)
	if err != nil {
		return err
	}
	found := make([]bool, len(want))
	for line := range strings.Lines(string(b)) {
		// id parent major:minor root mountpoint options ...
		point, ok := mountField(line, 4)
		if !ok {
			continue
		}
		point = unescapeMountPath(point)
		for i, w := range want {
			if w == point {
				found[i] = true
			}
		}
	}
	for i, w := range want {
		if !found[i] {
			return fmt.Errorf("the sandbox changed since it was made: %s is no longer mounted", w)
		}
	}
	return nil
}

// mountField is the n-th (from 0) space-separated field of a mountinfo
// line; mountinfo separates fields by one space and escapes those in
// paths.
func mountField(line string, n int) (string, bool) {
	line = strings.TrimRight(line, "\n")
	for range n {
		_, rest, ok := strings.Cut(line, " ")
		if !ok {
			return "", false
		}
		line = rest
	}
	field, _, _ := strings.Cut(line, " ")
	return field, field != ""
}

// unescapeMountPath undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
