package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// bwrapArgs is the bubblewrap command line up to the program: a read-only
// root, private /dev, /proc and /tmp, the writable set bound read-write,
// the protected paths in it bound read-only over themselves, the hidden
// paths masked (an empty read-only tmpfs over a directory, or its
// skeleton inside the workspace: gitmask_dir.go; /dev/null over a file,
// or a stand-in of zeros over a workspace file: gitmask.go), its
// own PID namespace and, unless allowed, its
// own empty network namespace. No capability is kept, even for root, so
// nothing inside can unmount a mask.
func (s *Sandbox) bwrapArgs(ws, dir string, visible []string, network bool, writable, readOnly, hidden []string) ([]string, error) {
	a := []string{s.bwrap,
		"--die-with-parent", "--new-session", "--unshare-pid", "--cap-drop", "ALL",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
	}
	if !network {
		a = append(a, "--unshare-net")
	}
	for _, w := range writable {
		a = append(a, "--bind", w, w)
	}
	// The directories on the way to a read-only path become mount points
	// (bound onto themselves) so that they cannot be renamed or removed:
	// "mv .git old && git init" would otherwise give the repository a
	// fresh, writable hooks directory. Then the read-only binds, before
	// the masks: a bind brings the path back as it is outside, hidden
	// paths below it included.
	for _, d := range mountedAncestors(readOnly, writable) {
		a = append(a, "--bind", d, d)
	}
	for _, p := range readOnly {
		a = append(a, "--ro-bind", p, p)
	}
	for _, h := range hidden {
		if (within(h, "/tmp") || within(h, "/dev") || within(h, "/proc")) && !slices.ContainsFunc(writable, func(w string) bool { return within(h, w) }) {
			continue // private in the sandbox already, unless bound in from outside
		}
		st, err := os.Lstat(h)
		if err != nil {
			continue // gone since: nothing to mask
		}
		if st.IsDir() {
			a = append(a, maskDirArgs(ws, h)...) // gitmask_dir.go
		} else {
			a = append(a, "--ro-bind", maskFor(ws, h, st), h) // gitmask.go
		}
	}
	// The helper binary, the program and the proxy's socket must be
	// visible inside: a test binary, a server built for a test, the
	// socket, live under the private /tmp.
	for _, p := range visible {
		if p != "" && (within(p, "/tmp") || within(p, "/dev")) && !slices.ContainsFunc(writable, func(w string) bool { return within(p, w) }) {
			a = append(a, "--ro-bind", p, p)
		}
	}
	a = append(a, "--chdir", dir, "--")
	return a, nil
}

// mountedAncestors are the directories strictly between a writable root
// and each of paths, parents first, each once.
func mountedAncestors(paths, roots []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		i := slices.IndexFunc(roots, func(r string) bool { return within(p, r) && p != r })
		if i < 0 {
			continue
		}
		var chain []string
		for d := filepath.Dir(p); d != roots[i] && within(d, roots[i]); d = filepath.Dir(d) {
			chain = append(chain, d)
		}
		for j := len(chain) - 1; j >= 0; j-- {
			if !seen[chain[j]] {
				seen[chain[j]] = true
				out = append(out, chain[j])
			}
		}
	}
	return out
}

// withTerminal adapts a bubblewrap command line to a run whose standard
// streams are the pseudo-terminal tty (its slave's path). The sandbox's
// private /dev has a devpts instance of its own, where tty does not
// exist: its /dev/pts becomes an empty tmpfs with tty alone bound in, so
// that ttyname (tty, ps, ssh) finds the terminal under its own name and
// no other terminal of the machine is reachable. --new-session goes: it
// would take the terminal away as the command's controlling terminal,
// and job control (bash -i, Ctrl-C) needs it. What --new-session guards
// against is TIOCSTI pushing input into the terminal toolgate runs in;
// this terminal is the command's own, its input already the client's.
func withTerminal(args []string, tty string) []string {
	out := make([]string, 0, len(args)+5)
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--new-session":
			continue
		case args[i] == "--dev" && i+1 < len(args) && args[i+1] == "/dev":
			out = append(out, "--dev", "/dev", "--tmpfs", "/dev/pts", "--dev-bind", tty, tty)
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}
