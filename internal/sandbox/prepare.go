package sandbox

import (
	"encoding/json"
	"fmt"
	"github.com/toolgate/toolgate/internal/sandbox/helper"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

// Prepared is a run made ready: the program to start instead of the
// command, and what to clean up after it.
type Prepared struct {
	// Argv replaces the command's argv; Env its environment.
	Argv []string
	Env  []string
	// ExtraFiles must be passed to the process (fds 3...): the helper
	// joins the run's limit cgroups through them.
	ExtraFiles []*os.File
	// Relayed is set when the command's status passes through bubblewrap,
	// which turns death by signal N into exit status 128+N.
	Relayed bool

	tmp       string          // landlock mode's private temporary directory
	limits    *runLimits      // nil without limit cgroups
	prejoined *prejoined      // the thread to start the command from, until Start
	left      <-chan struct{} // closed once that thread has left the cgroups
	warm      *warm           // the sandbox started ahead of time the run goes to
	offered   bool            // its command was sent to it (Offer)
	handed    bool            // and started there (Start)
	reported  bool            // its helper reported the command's end (Ended)
	// box and session: the run may leave its sandbox started ahead to
	// the session's next command (reuse.go); reused: it got the
	// session's, kept from its last command.
	box     *Sandbox
	session string
	reused  bool
	// removeLater: the limit cgroups of a run handed over are removed
	// after Finish (finishLater).
	removeLater bool
	command     []string // the command and its directory, for warm
	net         *Network // the session network to start the command in
	dir         string
}

// Start starts cmd (made from Argv, Env and ExtraFiles): from the thread
// waiting in the run's limit cgroups when there is one, else as
// cmd.Start. A run prepared with StartOnThread must be started here.
//
// A run that goes to a sandbox started ahead of time (Run.Warm) does not
// start cmd: its environment and standard streams, which must be files or
// nil (stdin may be any reader), are handed to the waiting sandbox with
// the prepared command and directory (at Offer, when the caller offered
// it earlier), and the sandbox's helper starts it. Running names the
// process to wait for and kill then.
func (p *Prepared) Start(cmd *exec.Cmd) error {
	if p != nil && p.warm != nil {
		if err := p.Offer(cmd); err != nil {
			return err
		}
		if err := p.goAhead(); err != nil {
			p.warm.stop()
			return err
		}
		p.handed = true
		return nil
	}
	if p != nil && p.net != nil {
		return p.net.start(cmd)
	}
	if p == nil || p.prejoined == nil {
		return cmd.Start()
	}
	pj := p.prejoined
	p.prejoined = nil
	p.left = pj.left
	pj.start <- cmd
	return <-pj.result
}

// Running is the process the run's command runs as once Start has
// returned: cmd, or the bubblewrap of a sandbox started ahead of time that
// the command was handed to. Its exit status is the command's, and it is
// the leader of a process group of its own when cmd was to be one.
func (p *Prepared) Running(cmd *exec.Cmd) *exec.Cmd {
	if p != nil && p.handed {
		return p.warm.cmd
	}
	return cmd
}

// LimitReached is closed when the run reached one of its limits: the
// runner should then kill the run (Finish names the limit). It is never
// closed for a run without limit cgroups.
func (p *Prepared) LimitReached() <-chan struct{} {
	if p == nil || p.limits == nil {
		return nil
	}
	return p.limits.hit
}

// Finish releases what the run held and says, when a limit ended it,
// which one ("" otherwise). Call it once the process has ended.
func (p *Prepared) Finish() string {
	if p == nil {
		return ""
	}
	if p.prejoined != nil {
		close(p.prejoined.start) // never started: let the thread go
		p.left = p.prejoined.left
		p.prejoined = nil
	}
	if p.left != nil {
		<-p.left // the cgroups can only be removed once it is out
	}
	if p.reported {
		return p.finishReported()
	}
	if p.warm != nil {
		if !p.handed {
			p.warm.stop() // never started: its command is not coming
		}
		_ = p.warm.conn.Close()
		p.warm.releaseMounts()
		p.warm.dropNext() // not kept: the helper did not report
	}
	for _, f := range p.ExtraFiles {
		_ = f.Close()
	}
	if p.tmp != "" {
		_ = os.RemoveAll(p.tmp)
	}
	if p.limits != nil && p.handed && p.removeLater {
		return p.limits.finishLater()
	}
	if p.limits != nil {
		return p.limits.finish()
	}
	return ""
}

// Prepare wraps argv (the command, e.g. bash -c line) so that it runs
// confined. With the sandbox off it returns argv unchanged; where no
// sandbox is available it fails with ErrUnavailable and the reason.
func (s *Sandbox) Prepare(argv, env []string, r Run) (*Prepared, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("sandbox: no command to run")
	}
	switch s.mode {
	case InForceOff:
		return &Prepared{Argv: argv, Env: env}, nil
	case InForceUnavailable:
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, s.reason)
	}
	ws := resolve(r.Workspace)
	if ws == "" {
		return nil, fmt.Errorf("sandbox: workspace %s cannot be resolved", r.Workspace)
	}
	dir := ws
	if r.Dir != "" {
		if dir = resolve(r.Dir); dir == "" {
			return nil, fmt.Errorf("sandbox: directory %s cannot be resolved", r.Dir)
		}
	}
	writable := []string{ws}
	for _, w := range s.Writable() {
		if err := os.MkdirAll(w, 0o755); err != nil {
			return nil, fmt.Errorf("sandbox: writable path %s: %w", w, err)
		}
		if real := resolve(w); real != "" {
			writable = append(writable, real)
		}
	}
	p := &Prepared{Env: env}
	network := s.cfg.NetworkOn() || r.Network
	spec := helperSpec{Landlock: s.landlock >= 1, Network: network, ABI: s.landlock, Limits: s.limits}
	hidden := s.hidden(ws, r.Hide)
	readOnly := s.readOnly(ws, writable, hidden, r.ReadOnly)
	if s.mode == InForceBwrap && slices.ContainsFunc(hidden, func(h string) bool { return within(h, ws) }) {
		p.Env = gitStatEnv(p.Env) // masked workspace files look unchanged to git (gitmask.go)
	}
	var visible []string
	if s.mode == InForceBwrap {
		spec.Writable = append(slices.Clone(writable), "/tmp", "/dev")
		spec.ReadAll = true
		visible = []string{s.helper, programPath(argv[0])}
		if s.joinNetwork(p, &spec, r) {
			network = true // no namespace of its own: it joins the session's
		} else if !network && s.allowList() {
			if err := s.proxy.start(s.cfg.NetworkAllow); err != nil {
				return nil, fmt.Errorf("sandbox: network_allow proxy: %w", err)
			}
			spec.ProxySocket = s.proxy.socketPath()
			visible = append(visible, s.proxy.dir.path)
			p.Env = proxyEnv(p.Env)
		}
		if r.Warm && s.warm != nil && r.TTY == "" {
			// The helper moves to the run's directory itself.
			args, err := s.bwrapArgs(ws, "/", visible, network, writable, readOnly, hidden)
			if err != nil {
				return nil, err
			}
			args = p.net.wrap(args)
			if s.prepareWarm(p, argv, dir, args, spec, r.Session) {
				return p, nil
			}
		}
	}
	if p.net != nil {
		r.StartOnThread = false // forked from a thread in the session's network instead
	}
	if pj := s.prejoined(r); pj != nil {
		p.limits, p.prejoined = pj.limits, pj
		pj.limits.startWatch()
		spec.InCgroups = pj.limits.cgroupLines()
		spec.Limits = pj.limits.rlimitsLeft(s.limits)
	} else if s.cgroups != nil {
		// Limits this machine can enforce are not dropped for one run.
		lim, files, err := s.cgroups.make()
		if err != nil {
			return nil, fmt.Errorf("sandbox: cannot make the run's limit cgroups: %w", err)
		}
		lim.startWatch()
		p.limits, p.ExtraFiles = lim, files
		spec.JoinFDs = len(files)
		spec.Limits = lim.rlimitsLeft(s.limits)
	}
	switch s.mode {
	case InForceBwrap:
		args, err := s.bwrapArgs(ws, dir, visible, network, writable, readOnly, hidden)
		if err != nil {
			p.Finish()
			return nil, err
		}
		if r.TTY != "" {
			args = withTerminal(args, r.TTY)
		}
		args = p.net.wrap(args) // after withTerminal: nsenter comes before bubblewrap's arguments
		p.Argv = append(args, s.helperArgv(spec, argv)...)
		p.Relayed = true
	case InForceLandlock:
		tmp, runs, err := privateTmp()
		if err != nil {
			p.Finish()
			return nil, fmt.Errorf("sandbox: private temporary directory: %w", err)
		}
		p.tmp = tmp
		p.Env = append(slices.Clone(env), "TMPDIR="+tmp)
		spec.Writable = append(writable, tmp)
		spec.WritableFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom"}
		if r.TTY != "" {
			spec.WritableFiles = append(spec.WritableFiles, r.TTY)
		}
		// Every run's temporary directory is masked, this one's granted
		// again as writable: a run reads no other run's files. The
		// machine's temporary directory is masked whole, as bubblewrap's
		// private /tmp hides it: a command uses its own TMPDIR, and a
		// path masked below a directory Landlock otherwise grants costs a
		// grant on each of that directory's entries, one system call or
		// two each, in every run (10,000 entries in a busy /tmp took
		// 100 ms a command: BenchmarkSandboxedTrue/landlock). A
		// workspace or writable path below it is granted on its own.
		tmps := hostTmp()
		spec.Hidden = append(append(hidden, runs), tmps...)
		// The program itself stays runnable there, as bubblewrap binds
		// it in (a server built into a temporary directory).
		if prog := programPath(argv[0]); prog != "" && slices.ContainsFunc(tmps, func(d string) bool { return within(prog, d) }) {
			spec.Visible = []string{prog}
		}
		spec.ReadOnly = readOnly
		spec.Dir = dir
		p.Argv = s.helperArgv(spec, argv)
	}
	return p, nil
}

// prejoined takes the pre-joined run cgroups for a run started through
// Prepared.Start, nil when there are none ready.
func (s *Sandbox) prejoined(r Run) *prejoined {
	if !r.StartOnThread || s.cgroups == nil || !s.cgroups.prejoinable() {
		return nil
	}
	return s.cgroups.take()
}

// hidden lists the existing real paths to mask: credential places,
// sandbox.deny_read and the run's own list. A path that holds the
// workspace is left out: masking it would hide the workspace itself.
func (s *Sandbox) hidden(ws string, extra []string) []string {
	var cand []string
	if s.home != "" {
		for _, c := range credentialPlaces {
			cand = append(cand, filepath.Join(s.home, c))
		}
	}
	for _, d := range s.cfg.DenyRead {
		cand = append(cand, expandHome(d, s.home))
	}
	cand = append(cand, extra...)
	seen := map[string]bool{}
	var out []string
	for _, c := range cand {
		real := resolve(c)
		if real == "" || seen[real] || within(ws, real) {
			continue
		}
		seen[real] = true
		out = append(out, real)
	}
	return out
}

// programPath is the real path of the program argv[0] names, "" when it
// cannot be found (the helper then reports that inside).
func programPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return resolve(p)
}

// helperArgv is the helper's command line: toolgate's own binary, the
// marker, the spec, then the command.
func (s *Sandbox) helperArgv(spec helperSpec, argv []string) []string {
	b, _ := json.Marshal(spec) // plain data: cannot fail
	return append([]string{s.helper, helper.Marker, string(b)}, argv...)
}

// hostTmp is the machine's temporary directories, /tmp and $TMPDIR, by
// their real paths.
func hostTmp() []string {
	var out []string
	for _, d := range []string{"/tmp", os.TempDir()} {
		if real := resolve(d); real != "" && real != "/" && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

// privateTmp makes a Landlock-only run's private temporary directory in
// the directory of all runs' (made 0700 when missing), and returns both
// by their real paths: the helper grants no path reached through a link.
func privateTmp() (tmp, runs string, err error) {
	runs = filepath.Join(os.TempDir(), fmt.Sprintf("toolgate-runs-%d", os.Getuid()))
	if err := os.MkdirAll(runs, 0o700); err != nil {
		return "", "", err
	}
	real := resolve(runs)
	if real == "" {
		return "", "", fmt.Errorf("%s cannot be resolved", runs)
	}
	runs = real
	tmp, err = os.MkdirTemp(runs, "run-")
	return tmp, runs, err
}
