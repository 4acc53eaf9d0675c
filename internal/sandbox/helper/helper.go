package helper

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// Package helper is the sandbox's helper: the program bubblewrap (or, in
// landlock mode, toolgate) starts in place of a command, which joins the
// run's limits, applies Landlock and execs the command. It is a package of
// its own, with few imports, so that a small binary of it
// (cmd/toolgate-sandbox) can stand in for toolgate's: toolgate's binary
// initializes a few hundred packages before its own init runs, which made
// the helper the largest part of the time the sandbox adds to a command.

// Marker is argv[1] of a binary started as the helper.
const Marker = "__toolgate-sandbox-exec"

// RelayMarker is argv[1] of a binary started as the network_allow relay.
const RelayMarker = "__toolgate-sandbox-relay"

// VersionMarker is argv[1] asking a helper binary for its Version.
const VersionMarker = "__toolgate-sandbox-version"

// Version names the Spec's format. A helper binary found beside toolgate
// is used only when it prints the same; and a helper refuses a spec with a
// field it does not know rather than run without it.
const Version = "toolgate-sandbox-helper 8"

// ProxyPort is the relay's port inside the sandbox's network namespace.
const ProxyPort = 3128

// Limits are a run's resource limits.
type Limits struct {
	Processes   int   `json:"processes,omitempty"`
	MemoryBytes int64 `json:"memory_bytes,omitempty"`
	CPUSeconds  int   `json:"cpu_seconds,omitempty"`
}

// Spec is what the helper applies before it execs the command.
type Spec struct {
	// Landlock applies the Landlock layer with ABI version ABI.
	Landlock bool `json:"landlock,omitempty"`
	ABI      int  `json:"abi,omitempty"`
	// ReadAll allows reading everything (bubblewrap masks already);
	// otherwise everything but Hidden.
	ReadAll bool     `json:"read_all,omitempty"`
	Hidden  []string `json:"hidden,omitempty"`
	// Visible are files readable although below a hidden path: the
	// program the command starts, as bubblewrap binds it in.
	Visible []string `json:"visible,omitempty"`
	// ReadOnly are paths in Writable left out of the write grants (still
	// readable unless hidden); bubblewrap binds them read-only already.
	ReadOnly []string `json:"read_only,omitempty"`
	// Writable directories and files.
	Writable      []string `json:"writable,omitempty"`
	WritableFiles []string `json:"writable_files,omitempty"`
	// Network allows TCP connect and bind.
	Network bool `json:"network,omitempty"`
	// JoinFDs is how many fds from 3 on are cgroup.procs files to join.
	JoinFDs int `json:"join_fds,omitempty"`
	// JoinTasks is how many fds from 3 on are cgroup v1 tasks files: a
	// helper that waits for its command (Control) moves only its own
	// locked thread into them, so that the command it starts from that
	// thread begins there while its other threads stay out of the
	// run's process count (child.go).
	JoinTasks int `json:"join_tasks,omitempty"`
	// CgroupDir, when set, is the fd of a cgroup v2 directory the
	// command is started in (CLONE_INTO_CGROUP), the helper staying out.
	CgroupDir int `json:"cgroup_dir,omitempty"`
	// InCgroups are the cgroups ("controller:path") the helper must
	// already be in: the command was forked into them (prejoin.go).
	InCgroups []string `json:"in_cgroups,omitempty"`
	// Limits left to rlimits.
	Limits Limits `json:"limits"`
	// ProxySocket is toolgate's network_allow proxy: the helper starts a
	// relay to it on 127.0.0.1:proxyPort, the one TCP port the command
	// may then connect to.
	ProxySocket string `json:"proxy_socket,omitempty"`
	// Dir is the directory to start in (landlock mode; bubblewrap sets it).
	Dir string `json:"dir,omitempty"`
	// Control, when set, is the fd of a socket on which the helper, once
	// confined, waits for its command (a sandbox started ahead of its
	// run, see Await); the command line then holds no command.
	Control int `json:"control,omitempty"`
	// NetNS, when set, is the session network the sandbox must run in
	// (its namespace's identity, "net:[inode]" as /proc/self/ns/net reads):
	// the helper refuses to run the command anywhere else, so a join that
	// did not happen fails closed instead of running with another network.
	NetNS string `json:"netns,omitempty"`
	// Mounts are the sandbox's mount points, checked when the command
	// comes: each must still be mounted where it was.
	Mounts []string `json:"mounts,omitempty"`
}

// Main runs the helper, the relay or the version query when the
// process was started as one, and then never returns; otherwise it
// returns at once.
func Main() {
	switch {
	case len(os.Args) == 2 && os.Args[1] == VersionMarker:
		fmt.Println(Version)
		os.Exit(0)
	case len(os.Args) == 3 && os.Args[1] == RelayMarker:
		err := runRelay(os.Args[2])
		fmt.Fprintf(os.Stderr, "toolgate sandbox relay: %v\n", err)
		os.Exit(1)
	case len(os.Args) == 4 && os.Args[1] == HoldMarker:
		err := runHold(os.Args[2], os.Args[3])
		fmt.Fprintf(os.Stderr, "toolgate sandbox network: %v\n", err)
		os.Exit(1)
	case len(os.Args) >= 3 && os.Args[1] == Marker:
		err := runHelper(os.Args[2], os.Args[3:])
		fmt.Fprintf(os.Stderr, "toolgate sandbox: %v\n", err)
		os.Exit(126)
	}
}

// runHelper applies the spec and execs the command; it returns only on
// failure, and then nothing runs.
func runHelper(specJSON string, argv []string) error {
	var spec Spec
	dec := json.NewDecoder(strings.NewReader(specJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return fmt.Errorf("bad helper spec (a helper of another version?): %w", err)
	}
	// Landlock and the capabilities dropped below hold for this thread
	// alone: the command is exec'd from it, so it is never unlocked.
	runtime.LockOSThread()
	if spec.Control > 0 {
		// Neither the relay started below nor the command may hold it.
		syscall.CloseOnExec(spec.Control)
	}
	if spec.CgroupDir > 0 {
		// Nor the run's cgroup directory: through it a command could
		// reach its parent's files.
		syscall.CloseOnExec(spec.CgroupDir)
	}
	if err := checkCgroups(spec.InCgroups); err != nil {
		return err
	}
	if err := checkNetNS(spec.NetNS); err != nil {
		return err
	}
	for i := range spec.JoinFDs + spec.JoinTasks {
		f := os.NewFile(uintptr(3+i), "cgroup.procs")
		if _, err := f.WriteString("0"); err != nil {
			return fmt.Errorf("cannot join the run's limit cgroup: %w", err)
		}
		_ = f.Close()
	}
	if err := setRlimits(spec.Limits); err != nil {
		return err
	}
	if spec.Dir != "" {
		if err := os.Chdir(spec.Dir); err != nil {
			return err
		}
	}
	if spec.ProxySocket != "" {
		if err := startRelay(spec.ProxySocket); err != nil {
			return err
		}
	}
	if spec.Landlock {
		if err := applyLandlock(spec); err != nil {
			return fmt.Errorf("landlock: %w", err)
		}
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if spec.Control > 0 {
		return serve(spec)
	}
	env := os.Environ()
	if len(argv) == 0 {
		return errors.New("no command to run")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	return syscall.Exec(path, argv, env)
}

// setRlimits sets the limits no cgroup enforces. A CPU limit sends
// SIGXCPU at the soft limit and SIGKILL a second later.
func setRlimits(l Limits) error {
	set := func(res int, v uint64, hard uint64) error {
		if err := syscall.Setrlimit(res, &syscall.Rlimit{Cur: v, Max: hard}); err != nil {
			return fmt.Errorf("setrlimit %d: %w", res, err)
		}
		return nil
	}
	if l.CPUSeconds > 0 {
		if err := set(syscall.RLIMIT_CPU, uint64(l.CPUSeconds), uint64(l.CPUSeconds)+1); err != nil {
			return err
		}
	}
	if l.MemoryBytes > 0 {
		if err := set(syscall.RLIMIT_DATA, uint64(l.MemoryBytes), uint64(l.MemoryBytes)); err != nil {
			return err
		}
	}
	if l.Processes > 0 && os.Getuid() != 0 {
		// Counted per user, and never enforced for root: the pids cgroup
		// is the real limit where there is one.
		const rlimitNproc = 6
		if err := set(rlimitNproc, uint64(l.Processes), uint64(l.Processes)); err != nil {
			return err
		}
	}
	return nil
}

// ErrNotInCgroup is the helper's refusal when the command would run
// outside its limit cgroups.
var ErrNotInCgroup = errors.New("the command is not in its limit cgroups: started without Prepared.Start")

// checkCgroups verifies that this process is in each of the cgroups (v1
// "controller:path" lines of /proc/self/cgroup).
func checkCgroups(want []string) error {
	if len(want) == 0 {
		return nil
	}
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			have[c+":"+parts[2]] = true
		}
	}
	for _, w := range want {
		if !have[w] {
			return fmt.Errorf("%w (not in %s)", ErrNotInCgroup, w)
		}
	}
	return nil
}

// startRelay listens on the relay port and starts the relay process, a
// re-exec of the helper's own binary. The listener is made here, before
// the command runs, so the command never finds the port closed.
func startRelay(socket string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(ProxyPort))
	if err != nil {
		return fmt.Errorf("proxy relay: %w", err)
	}
	f, err := ln.(*net.TCPListener).File()
	_ = ln.Close()
	if err != nil {
		return fmt.Errorf("proxy relay: %w", err)
	}
	defer f.Close()
	cmd := exec.Command("/proc/self/exe", RelayMarker, socket)
	cmd.ExtraFiles = []*os.File{f}
	// bubblewrap's PID 1 is its parent, not the helper: a helper that
	// starts the command as its child reaps its descendants until none
	// is left (child.go), and must not wait for this one.
	cmd.SysProcAttr = relayAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("proxy relay: %w", err)
	}
	return nil
}

// runRelay relays every connection on fd 3 to the proxy's socket; it ends
// with the sandbox.
func runRelay(socket string) error {
	ln, err := net.FileListener(os.NewFile(3, "relay"))
	if err != nil {
		return err
	}
	return relay(ln, socket)
}

// relay copies each connection accepted on ln to and from a connection to
// the proxy's unix socket, until ln fails.
func relay(ln net.Listener, socket string) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go func() {
			defer c.Close()
			up, err := net.Dial("unix", socket)
			if err != nil {
				return
			}
			defer up.Close()
			done := make(chan struct{}, 2)
			go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
			go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
			<-done
		}()
	}
}
