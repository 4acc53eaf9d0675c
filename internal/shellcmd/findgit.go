package shellcmd

import "strings"

// findActions are the find predicates that run commands or delete files.
var findActions = map[string]bool{
	"-exec": true, "-execdir": true, "-ok": true, "-okdir": true, "-delete": true,
}

// find flags -exec and friends and records each command they run, which
// ends at a ";" or "+" word.
func (w *walker) find(v argv, in dirState, wrapping int) {
	for i := 1; i < len(v.vals); i++ {
		if !findActions[v.vals[i]] {
			continue
		}
		w.a.risk(KindFindExec, w.text(v))
		if v.vals[i] == "-delete" {
			continue
		}
		end := i + 1
		for end < len(v.vals) && v.vals[end] != ";" && v.vals[end] != "+" {
			end++
		}
		sub := v.tail(0)
		sub.vals, sub.infos, sub.from = v.vals[:end], v.infos[:end], v.from[:end]
		if end < len(v.from) {
			sub.end = v.from[end]
		}
		w.inner(sub, i+1, in, wrapping)
		i = end
	}
}

// fd runs the rest of its arguments after -x/--exec/-X/--exec-batch.
func (w *walker) fd(v argv, in dirState, wrapping int) {
	for i := 1; i < len(v.vals); i++ {
		switch v.vals[i] {
		case "-x", "--exec", "-X", "--exec-batch":
			w.a.risk(KindFindExec, w.text(v))
			w.inner(v, i+1, in, wrapping)
			return
		case "--":
			return
		}
	}
}

// gitValued are git's global options whose value is the next word.
var gitValued = map[string]bool{
	"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--super-prefix": true, "--config-env": true, "--exec-path": true,
}

// git flags the global options that change git's configuration, since
// configuration names programs git runs (core.pager, core.fsmonitor,
// diff.external, alias.x=!cmd ...).
func (w *walker) git(v argv) {
	for i := 1; i < len(v.vals); i++ {
		arg := v.vals[i]
		if !strings.HasPrefix(arg, "-") {
			return
		}
		name, _, hasValue := strings.Cut(arg, "=")
		if strings.HasPrefix(arg, "-c") || name == "--config-env" || name == "--exec-path" {
			w.a.risk(KindGitConfig, w.text(v))
		}
		if gitValued[name] && !hasValue {
			i++
		}
	}
}

// gitSubcommand returns the index of git's subcommand, and whether every
// global option before it is one that cannot change what git runs or where.
func gitSubcommand(args []string) (int, bool) {
	plain := true
	for i := 1; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "-") {
			return i, plain
		}
		switch arg {
		case "--no-pager", "-P", "--no-optional-locks", "--no-replace-objects":
		default:
			plain = false
			if name, _, ok := strings.Cut(arg, "="); gitValued[name] && !ok {
				i++
			}
		}
	}
	return len(args), plain
}
