package shellcmd

import (
	"path"
	"strings"
)

// wrapper describes a command that runs another command given as its
// remaining arguments.
type wrapper struct {
	valued  string // short options that take the next word as value
	assigns bool   // NAME=VALUE words may precede the command
	skip    int    // operands before the command (timeout's duration)
}

var wrappers = map[string]wrapper{
	"sudo":    {valued: "CDghpRrtTUu", assigns: true},
	"doas":    {valued: "Cu"},
	"env":     {valued: "CPSu", assigns: true},
	"nice":    {valued: "n"},
	"ionice":  {valued: "cnp"},
	"timeout": {valued: "ks", skip: 1},
	"nohup":   {},
	"command": {},
	"builtin": {},
	"exec":    {valued: "a"},
	"stdbuf":  {valued: "eio"},
	"setsid":  {},
	"time":    {valued: "fo"},
	"xargs":   {valued: "adEILnPs"},
}

// shellState are builtins that change how later words and commands are
// interpreted: aliases (with expand_aliases), hash -p, trap, enable -f,
// set -k, cdable_vars, or variables such as PATH, IFS and CDPATH.
var shellState = map[string]bool{
	"set": true, "shopt": true, "alias": true, "unalias": true, "enable": true, "trap": true,
	"hash": true, "unset": true, "read": true, "mapfile": true, "readarray": true,
	"getopts": true, "bind": true, "umask": true, "ulimit": true, "declare": true,
	"typeset": true, "export": true, "local": true, "readonly": true,
}

var shells = map[string]bool{
	"sh": true, "bash": true, "rbash": true, "dash": true, "zsh": true, "ksh": true,
	"mksh": true, "ash": true, "fish": true, "csh": true, "tcsh": true, "busybox": true,
}

// special follows commands that run other commands, and flags the ones
// whose effect depends on more than their words.
func (w *walker) special(v argv, in dirState, wrapping int) (succ, fail dirState) {
	name := v.vals[0]
	base := path.Base(name)
	switch {
	case name == "command" && hasShortFlag(v.vals[1:], "vV"):
		return in, in // command -v only describes a name
	case name == "exec":
		w.a.risk(KindExec, w.text(v))
	case name == "xargs":
		w.a.risk(KindXargs, w.text(v))
		w.inner(v, afterOptions(v.vals, wrappers[name]), in, wrapping)
		return in, in
	case shellState[name] || name == "printf" && hasShortFlag(v.vals[1:], "v"):
		w.a.risk(KindShellState, w.text(v))
		w.a.unsettled = true
		return in, in
	case name == "eval":
		w.a.risk(KindEval, w.text(v))
		out := w.script(v, 1, strings.Join(v.vals[1:], " "), in)
		return out, out
	case name == "source" || name == ".":
		w.a.risk(KindSource, w.text(v))
		w.a.unsettled = true
		return in.union(single(unknownDir)), in.union(single(unknownDir))
	case shells[base]:
		w.shell(v, in)
		return in, in
	case name == "watch":
		w.a.risk(KindShellCommand, w.text(v))
		k := afterOptions(v.vals, wrapper{valued: "dnq"})
		w.script(v, k, strings.Join(v.vals[k:], " "), in)
		return in, in
	case name == "find":
		w.find(v, in, wrapping)
		return in, in
	case name == "fd" || name == "fdfind":
		w.fd(v, in, wrapping)
		return in, in
	case name == "git":
		w.git(v)
		return in, in
	}
	spec, ok := wrappers[name]
	if !ok {
		return in, in
	}
	if name != "exec" {
		w.a.risk(KindWrapper, w.text(v))
	}
	if name == "env" && (hasShortFlag(v.vals[1:], "S") || hasLong(v.vals[1:], "--split-string")) {
		w.a.risk(KindShellCommand, w.text(v))
	}
	succ, fail = w.inner(v, afterOptions(v.vals, spec), in, wrapping)
	if name == "command" || name == "builtin" {
		// These run a builtin in the current shell: `command cd d` moves it.
		return succ, fail
	}
	return in, in
}

func (w *walker) text(v argv) string {
	if v.from[0] <= v.end && v.end <= len(w.src) {
		return w.src[v.from[0]:v.end]
	}
	return strings.Join(v.vals, " ")
}

// script analyses a command string (eval, bash -c, watch) when it is known
// literally; an expansion in it already is a risk of its own. It returns
// the directories the string may leave, which matter only for eval (a
// child shell's cd stays in the child); unknownDir is among them when the
// string is not analysed.
func (w *walker) script(v argv, from int, s string, in dirState) dirState {
	for _, info := range v.infos[min(from, len(v.infos)):] {
		if !info.resolved {
			return in.union(single(unknownDir))
		}
	}
	if w.nesting >= maxNesting {
		w.a.risk(KindShellCommand, "command strings nested too deep")
		return in.union(single(unknownDir))
	}
	return in.union(w.a.run(s, w.nesting+1, in))
}

// shell flags any shell started from the line: with -c it runs a command
// string, otherwise a script or its standard input.
func (w *walker) shell(v argv, in dirState) {
	w.a.risk(KindShellCommand, w.text(v))
	for i := 1; i < len(v.vals); i++ {
		arg := v.vals[i]
		if arg == "--" || !strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "+") {
			return
		}
		if !strings.HasPrefix(arg, "--") && strings.Contains(arg[1:], "c") && i+1 < len(v.vals) {
			w.script(v, i+1, v.vals[i+1], in)
			return
		}
		if arg == "-o" || arg == "+o" || arg == "-O" || arg == "+O" {
			i++ // set -o NAME, shopt -O NAME
		}
	}
}

// afterOptions returns the index of the wrapped command's name.
func afterOptions(args []string, spec wrapper) int {
	i := 1
	for i < len(args) {
		arg := args[i]
		if arg == "--" {
			i++
			break
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			break
		}
		i++
		if strings.HasPrefix(arg, "--") {
			continue // long options are written --name=value here
		}
		if k := strings.IndexAny(arg[1:], spec.valued); k >= 0 && k == len(arg)-2 {
			i++ // the value is the next word
		}
	}
	for spec.assigns && i < len(args) && isAssignment(args[i]) {
		i++
	}
	return min(i+spec.skip, len(args))
}

func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// hasShortFlag reports whether a short option cluster before the first
// operand holds one of the letters.
func hasShortFlag(args []string, letters string) bool {
	for _, arg := range args {
		if arg == "--" || !strings.HasPrefix(arg, "-") || arg == "-" {
			return false
		}
		if !strings.HasPrefix(arg, "--") && strings.ContainsAny(arg[1:], letters) {
			return true
		}
	}
	return false
}

// hasLong reports whether any argument is the long option or sets it.
func hasLong(args []string, opt string) bool {
	for _, arg := range args {
		if arg == opt || strings.HasPrefix(arg, opt+"=") {
			return true
		}
	}
	return false
}
