package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/toolgate/toolgate/internal/sandbox/helper"
)

// Modes in force, as /healthz and toolgate_sandbox_info report them.
const (
	// InForceBwrap is bubblewrap with Landlock inside where the kernel has it.
	InForceBwrap = "bwrap"
	// InForceLandlock is Landlock alone.
	InForceLandlock = "landlock"
	// InForceOff runs commands unconfined, as configured.
	InForceOff = "off"
	// InForceUnavailable refuses every command: no layer works here.
	InForceUnavailable = "unavailable"
)

// ErrUnavailable is the error of a run that no sandbox could confine.
var ErrUnavailable = errors.New("no sandbox is available")

// Sandbox confines the runs of one toolgate process.
type Sandbox struct {
	cfg      Config
	mode     string
	reason   string // why the mode is unavailable, or what is missing
	bwrap    string // bubblewrap's path
	helper   string // the helper binary: toolgate-sandbox, or toolgate's own
	landlock int    // Landlock ABI version, 0 without
	home     string
	limits   Limits
	cgroups  *limitCgroups // nil where no limit cgroup can be made
	proxy    allowProxy    // serves sandbox.network_allow
	warm     *warmSlot     // the next run's sandbox, started ahead (bwrap mode)
	kept     keptSlot      // sandboxes kept for their session's next command
	ownNet   ownNetNS      // toolgate's network namespace, for session networks
	nets     sync.Map      // session networks open, by ID: "net:[inode]" -> *Network
}

// Info says what the sandbox is.
type Info struct {
	// Mode is bwrap, landlock, off or unavailable.
	Mode string `json:"mode"`
	// Landlock is the kernel's Landlock ABI version applied, 0 for none.
	Landlock int `json:"landlock_abi"`
	// Network is "on" or "off".
	Network string `json:"network"`
	// Limits enforces through "cgroup" or "rlimit".
	Limits string `json:"limits,omitempty"`
	// Reason says why commands are refused (mode unavailable).
	Reason string `json:"reason,omitempty"`
	// NetworkAllow are the hosts reachable through toolgate's proxy with
	// the network off (bwrap mode).
	NetworkAllow []string `json:"network_allow,omitempty"`
	// PIDNamespace says whether commands run in a PID namespace of their
	// own (bwrap mode only).
	PIDNamespace bool `json:"pid_namespace"`
	// Caveats are what this mode does not confine, in words.
	Caveats []string `json:"caveats,omitempty"`
	// Helper is the program started in place of each command:
	// "toolgate-sandbox" when that is installed beside toolgate's binary,
	// "self" when toolgate re-executes itself (slower to start).
	Helper string `json:"helper,omitempty"`
}

// probe is what this machine offers, found once per process.
type probe struct {
	bwrap    string
	bwrapErr error
	landlock int
	helper   string
}

var machine = sync.OnceValue(probeMachine)

func probeMachine() probe {
	var p probe
	if v, err := ll.LandlockGetABIVersion(); err == nil {
		p.landlock = v
	}
	exe, _ := os.Executable()
	p.helper = findHelper(exe)
	p.bwrap, p.bwrapErr = exec.LookPath("bwrap")
	if p.bwrapErr != nil {
		p.bwrapErr = errors.New("bubblewrap (bwrap) is not installed")
		return p
	}
	out, err := exec.Command(p.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid",
		"--unshare-net", "--die-with-parent", "--cap-drop", "ALL", "--", "true").CombinedOutput()
	if err != nil {
		p.bwrapErr = fmt.Errorf("bubblewrap cannot create its namespaces here (%v: %s)", err, strings.TrimSpace(string(out)))
	}
	return p
}

// helperName is the helper binary's name, looked for beside toolgate's.
const helperName = "toolgate-sandbox"

// findHelper is the helper binary for toolgate's binary exe: the small
// toolgate-sandbox beside it when that is there and speaks this version's
// spec, else exe itself (every toolgate binary is a helper too, only
// slower to start).
func findHelper(exe string) string {
	if exe == "" {
		return ""
	}
	sibling := filepath.Join(filepath.Dir(exe), helperName)
	if sibling == exe {
		return exe
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, sibling, helper.VersionMarker).Output()
	if err != nil || strings.TrimSpace(string(out)) != helper.Version {
		return exe
	}
	return sibling
}

// New picks the mode the configuration asks for among those this machine
// offers. It never fails: where nothing works the sandbox is
// "unavailable" and every Prepare says why.
func New(cfg Config) *Sandbox {
	s := &Sandbox{cfg: cfg, home: homeDir(), limits: cfg.limits()}
	if cfg.Mode == ModeOff {
		s.mode = InForceOff
		return s
	}
	if notHere != "" {
		s.mode, s.reason = InForceUnavailable, notHere
		return s
	}
	m := machine()
	s.bwrap, s.helper, s.landlock = m.bwrap, m.helper, m.landlock
	if s.helper == "" {
		s.mode, s.reason = InForceUnavailable, "toolgate cannot find its own binary to start the sandbox helper"
		return s
	}
	canBwrap := m.bwrapErr == nil
	canLandlock := m.landlock >= 1
	switch {
	case cfg.Mode == ModeLandlock && canLandlock, cfg.Mode != ModeBwrap && !canBwrap && canLandlock:
		s.mode = InForceLandlock
	case cfg.Mode != ModeLandlock && canBwrap:
		s.mode = InForceBwrap
		s.warm = &warmSlot{}
	default:
		s.mode = InForceUnavailable
		var why []string
		if cfg.Mode != ModeLandlock {
			why = append(why, fmt.Sprint(m.bwrapErr))
		}
		if cfg.Mode != ModeBwrap {
			why = append(why, "the kernel has no Landlock")
		}
		s.reason = strings.Join(why, "; and ") +
			`. Install bubblewrap (Debian: apt-get install bubblewrap) or set "sandbox": {"mode": "off"} to run commands unconfined`
	}
	s.cgroups = newLimitCgroups(s.limits)
	return s
}

// Info describes the sandbox in force.
func (s *Sandbox) Info() Info {
	i := Info{Mode: s.mode, Network: "off", Reason: s.reason}
	if s.cfg.NetworkOn() || s.mode == InForceOff {
		i.Network = "on"
	}
	if s.mode == InForceBwrap || s.mode == InForceLandlock {
		i.Landlock = s.landlock
		i.Helper = "self"
		if filepath.Base(s.helper) == helperName {
			i.Helper = helperName
		}
		i.Limits = "rlimit"
		if s.cgroups != nil {
			i.Limits = "cgroup"
		}
		i.PIDNamespace = s.mode == InForceBwrap
		i.Caveats = s.caveats()
		if s.allowList() {
			i.NetworkAllow = s.cfg.NetworkAllow
		}
	}
	return i
}

// caveats says what the mode in force leaves open.
func (s *Sandbox) caveats() []string {
	var out []string
	if s.mode == InForceLandlock {
		out = append(out,
			"no PID namespace: commands can list other processes in /proc (Landlock refuses signals and ptrace to them)",
			"a new file cannot be made in a directory that holds a hidden (ignored) or protected path "+
				"(.clineignore, .git/config, .git/hooks, shell start-up files): git cannot write in .git unless "+
				"sandbox.allow_write lists .git/config and .git/hooks",
		)
		if s.cgroups == nil {
			out = append(out, "without a limit cgroup, a process that leaves the command's process group (setsid, then a double fork) can outlive its call")
		}
		if len(s.cfg.NetworkAllow) > 0 && !s.cfg.NetworkOn() {
			out = append(out, "sandbox.network_allow needs bubblewrap: the network stays off")
		}
		if s.landlock < 6 {
			out = append(out, "Landlock ABI below 6: commands can signal toolgate and other processes of its user")
		}
	}
	if s.cgroups == nil && os.Getuid() == 0 && s.limits.Processes > 0 {
		out = append(out, "no pids cgroup: the process limit is not enforced for root (RLIMIT_NPROC does not bind root)")
	}
	return out
}

// Close releases what the sandbox holds between runs: a thread waiting in
// the next run's limit cgroups, the next run's sandbox started ahead of
// time, the network_allow proxy. Runs prepared
// afterwards still work without that head start; those that would need
// the proxy are refused.
func (s *Sandbox) Close() {
	if s.warm != nil {
		s.warm.close()
	}
	s.kept.close()
	s.proxy.close()
	if s.cgroups != nil {
		s.cgroups.closed.Store(true)
		s.cgroups.drain()
		s.cgroups.closeParents()
	}
}

// allowList reports whether runs reach the network_allow hosts through
// the proxy: bubblewrap mode with the network off.
func (s *Sandbox) allowList() bool {
	return s.mode == InForceBwrap && len(s.cfg.NetworkAllow) > 0 && !s.cfg.NetworkOn()
}

// Mode is the mode in force.
func (s *Sandbox) Mode() string { return s.mode }

// Config is the configuration the sandbox was made from.
func (s *Sandbox) Config() Config { return s.cfg }

// Writable lists the writable paths beyond the workspace, as configured.
func (s *Sandbox) Writable() []string {
	var out []string
	for _, w := range s.cfg.Writable {
		out = append(out, expandHome(w, s.home))
	}
	return out
}

// Run is what one run may see beyond the configuration.
type Run struct {
	// Workspace is writable; Dir is where the command starts.
	Workspace string
	Dir       string
	// Hide are further absolute paths to mask: toolgate's own files and
	// the workspace files the ignore rules exclude.
	Hide []string
	// ReadOnly are further absolute paths in the writable set that the
	// command may read but not change (toolgate's config and ignore files
	// in the workspace), beyond the protected ones every run has.
	ReadOnly []string
	// Network allows the network whatever the configuration says: a
	// subagent runner must reach its model and toolgate.
	Network bool
	// StartOnThread says the caller starts the command with
	// Prepared.Start, which lets it begin inside its limit cgroups
	// instead of moving into them (faster; see prejoin.go).
	StartOnThread bool
	// Net is the session's network (NewNetwork): the run joins it instead
	// of getting an empty network namespace of its own. Only bwrap mode
	// with the network off has one; Network true overrides it.
	Net *Network
	// Warm lets the run go to a sandbox started ahead of time (bwrap mode,
	// see warm.go), and has the next run's started. The caller starts the
	// command with Prepared.Start, its output going to files, and waits
	// for and kills Prepared.Running instead of the command it made.
	Warm bool
	// TTY is the path of the pseudo-terminal (its slave) the command's
	// standard streams are, "" for pipes: the terminal is made visible
	// inside, as the command's controlling terminal (see withTerminal).
	// Such a run is never handed to a sandbox started ahead of time.
	TTY string
	// Session names the session the run is a command of: a sandbox
	// started ahead of time that served it is kept for the session's
	// next command, and serves it if that command's sandbox would be
	// exactly the same (reuse.go). "" keeps none.
	Session string
}

// View is what a run of the sandbox sees wherever it starts: two runs
// with the same View see the same files (a HOME and its profile among
// them) and the same network. Where it starts (Dir), its terminal and
// how it is started are not part of it.
func (r Run) View() string {
	net := ""
	if r.Net != nil {
		net = fmt.Sprintf("%p", r.Net) // a session's own network
	}
	return strings.Join([]string{r.Workspace, strings.Join(r.Hide, "\x01"), strings.Join(r.ReadOnly, "\x01"),
		strconv.FormatBool(r.Network), net}, "\x00")
}

// resolve makes a path absolute and real, "" when it does not exist.
func resolve(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	// Most paths a run asks about (credential places, protected names)
	// do not exist: one lstat says so, where EvalSymlinks lstats every
	// component first. A path whose lstat fails cannot be resolved
	// either. It exists for speed: BenchmarkResolveCandidates
	// (./internal/sandbox/) defends it.
	if _, err := os.Lstat(abs); err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return ""
	}
	return real
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
