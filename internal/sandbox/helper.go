package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// helperMarker is argv[1] of toolgate's binary started as the helper.
const helperMarker = "__toolgate-sandbox-exec"

// helperSpec is what the helper applies before it execs the command.
type helperSpec struct {
	// Landlock applies the Landlock layer with ABI version ABI.
	Landlock bool `json:"landlock,omitempty"`
	ABI      int  `json:"abi,omitempty"`
	// ReadAll allows reading everything (bubblewrap masks already);
	// otherwise everything but Hidden.
	ReadAll bool     `json:"read_all,omitempty"`
	Hidden  []string `json:"hidden,omitempty"`
	// Writable directories and files.
	Writable      []string `json:"writable,omitempty"`
	WritableFiles []string `json:"writable_files,omitempty"`
	// Network allows TCP connect and bind.
	Network bool `json:"network,omitempty"`
	// JoinFDs is how many fds from 3 on are cgroup.procs files to join.
	JoinFDs int `json:"join_fds,omitempty"`
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
}

// init turns toolgate's binary (or a test binary of a package that runs
// commands) into the sandbox helper when started as one. It has to run
// before anything else parses the arguments, the test framework
// included, which is why it is an init and not a call from main.
func init() {
	if len(os.Args) == 3 && os.Args[1] == forwardMarker {
		err := runRelay(os.Args[2])
		fmt.Fprintf(os.Stderr, "toolgate sandbox relay: %v\n", err)
		os.Exit(1)
	}
	if len(os.Args) > 3 && os.Args[1] == helperMarker {
		err := runHelper(os.Args[2], os.Args[3:])
		fmt.Fprintf(os.Stderr, "toolgate sandbox: %v\n", err)
		os.Exit(126)
	}
}

// runHelper applies the spec and execs the command; it returns only on
// failure, and then nothing runs.
func runHelper(specJSON string, argv []string) error {
	var spec helperSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return fmt.Errorf("bad helper spec: %w", err)
	}
	if err := checkCgroups(spec.InCgroups); err != nil {
		return err
	}
	for i := range spec.JoinFDs {
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
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	return syscall.Exec(path, argv, os.Environ())
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

// applyLandlock restricts the helper, and so the command, to the spec.
func applyLandlock(spec helperSpec) error {
	var rules []landlock.Rule
	if spec.ReadAll {
		rules = append(rules, landlock.RODirs("/"))
	} else {
		rules = append(rules, readExcept(spec.Hidden)...)
	}
	writable := spec.Writable
	if !spec.ReadAll {
		writable = nil
		for _, w := range spec.Writable {
			rules = append(rules, writeExcept(w, spec.Hidden)...)
		}
	}
	if len(writable) > 0 {
		rules = append(rules, landlock.RWDirs(writable...).WithRefer().IgnoreIfMissing())
	}
	if len(spec.WritableFiles) > 0 {
		rules = append(rules, landlock.RWFiles(spec.WritableFiles...).IgnoreIfMissing())
	}
	if spec.ProxySocket != "" {
		rules = append(rules, landlock.ConnectTCP(proxyPort))
	}
	cfg := landlock.V7.BestEffort()
	if spec.Network {
		// TCP stays open; files and the IPC scopes (signals and abstract
		// sockets to processes outside the sandbox) are still restricted.
		cfg.HandledAccessNet = 0
	}
	return cfg.Restrict(rules...)
}
