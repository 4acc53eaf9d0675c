package sandbox

import (
	"os"
	"slices"
)

// bwrapArgs is the bubblewrap command line up to the program: a read-only
// root, private /dev, /proc and /tmp, the writable set bound read-write,
// the hidden paths masked (an empty read-only tmpfs over a directory,
// /dev/null over a file), its own PID namespace and, unless allowed, its
// own empty network namespace. No capability is kept, even for root, so
// nothing inside can unmount a mask.
func (s *Sandbox) bwrapArgs(ws, dir string, visible []string, network bool, writable, hidden []string) ([]string, error) {
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
	for _, h := range hidden {
		if (within(h, "/tmp") || within(h, "/dev") || within(h, "/proc")) && !slices.ContainsFunc(writable, func(w string) bool { return within(h, w) }) {
			continue // private in the sandbox already, unless bound in from outside
		}
		st, err := os.Lstat(h)
		if err != nil {
			continue // gone since: nothing to mask
		}
		if st.IsDir() {
			a = append(a, "--perms", "0000", "--tmpfs", h, "--remount-ro", h)
		} else {
			a = append(a, "--ro-bind", "/dev/null", h)
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
