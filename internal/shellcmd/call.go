package shellcmd

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// argv is a simple command's words: unquoted values with their source spans.
type argv struct {
	vals  []string
	infos []wordInfo
	from  []int // source offset where each word starts
	end   int   // source offset where the command ends

	assigns bool // VAR=x prefixes (CDPATH=/ cd etc)
}

func (v argv) tail(k int) argv {
	return argv{vals: v.vals[k:], infos: v.infos[k:], from: v.from[k:], end: v.end, assigns: v.assigns}
}

func (w *walker) call(c *syntax.CallExpr, st *syntax.Stmt, in dirState) (succ, fail dirState) {
	// Commands substituted into the words are listed after this one,
	// in source order, although bash runs them first.
	defer w.substitutions(c, in)
	w.redirectPaths(st, in)
	if len(c.Args) == 0 {
		w.a.unsettled = true // a bare assignment may set PATH, IFS or CDPATH
		return in, in
	}
	v := argv{end: int(c.End().Offset()), assigns: len(c.Assigns) > 0}
	for _, r := range st.Redirs {
		if r.Word != nil {
			v.end = max(v.end, int(r.Word.End().Offset()))
		}
	}
	for _, word := range c.Args {
		info := unquoteWord(w.src, word)
		w.wordRisks(info, nodeText(w.src, word))
		v.vals = append(v.vals, info.value)
		v.infos = append(v.infos, info)
		v.from = append(v.from, int(word.Pos().Offset()))
	}
	start := v.from[0]
	if len(c.Assigns) > 0 {
		start = int(c.Pos().Offset())
	}
	return w.simple(v, start, in, 0)
}

func (w *walker) substitutions(c *syntax.CallExpr, in dirState) {
	for _, as := range c.Assigns {
		w.nested(as.Value, in)
		if as.Array != nil {
			w.generic(as.Array, in)
		}
	}
	for _, word := range c.Args {
		w.nested(word, in)
	}
}

func (w *walker) wordRisks(info wordInfo, text string) {
	if info.glob {
		w.a.risk(KindGlob, text)
	}
	if info.tilde {
		w.a.risk(KindTilde, text)
	}
	if info.brace {
		w.a.risk(KindBraceExpansion, text)
	}
}

// simple records one simple command (start is the source offset of its
// text) and follows what it runs; wrapping counts the wrappers around it.
func (w *walker) simple(v argv, start int, in dirState, wrapping int) (succ, fail dirState) {
	if w.a.unsettled {
		in = in.union(single(unknownDir))
	}
	text := ""
	if start >= 0 && start <= v.end && v.end <= len(w.src) {
		text = strings.TrimSpace(w.src[start:v.end])
	}
	w.a.commands = append(w.a.commands, SimpleCommand{
		Args: slices.Clone(v.vals), Dir: in.likely, Text: text, dirs: in.all,
	})
	w.a.commandPaths(v, in)
	switch v.vals[0] {
	case "cd", "pushd":
		target, ok := cdTarget(v.vals, v.infos)
		if !ok || w.a.unsettled || v.assigns {
			w.a.risk(KindCd, text)
			return single(unknownDir), in
		}
		return in.cd(target), in
	case "popd":
		w.a.risk(KindCd, text)
		return single(unknownDir), in
	}
	return w.special(v, in, wrapping)
}

// inner records the command that a wrapper runs, from word k on.
func (w *walker) inner(v argv, k int, in dirState, wrapping int) (succ, fail dirState) {
	if k >= len(v.vals) {
		return in, in
	}
	if wrapping >= maxNesting {
		w.a.risk(KindWrapper, "wrappers nested too deep")
		return single(unknownDir), in
	}
	return w.simple(v.tail(k), v.from[k], in, wrapping+1)
}

// commandPaths records the words of a command that may name files: the
// command itself when it is a path, every operand, the value of --opt=value,
// the rest of a short option cluster (-fFILE), and the part after a colon
// (git show HEAD:.env). It over-reports on purpose: a false positive only
// costs an ignore-rule check. Operands are also taken relative to any
// directory option (-C d, --chdir=d, --directory=d, --cwd=d, --prefix=d).
func (a *analyzer) commandPaths(v argv, in dirState) {
	var words []string
	if strings.Contains(v.vals[0], "/") {
		words = append(words, v.vals[0])
	}
	dirs := in
	operands := false
	for i, arg := range v.vals[1:] {
		name, val, hasVal := strings.Cut(arg, "=")
		switch {
		case operands || !strings.HasPrefix(arg, "-") || arg == "-":
			words = append(words, arg)
		case arg == "--":
			operands = true
		case strings.HasPrefix(arg, "--"):
			if hasVal {
				words = append(words, val)
			}
		case len(arg) > 2:
			words = append(words, arg[2:])
		}
		if dirOptions[name] {
			if !hasVal && i+2 < len(v.vals) {
				val = v.vals[i+2]
			}
			if val != "" {
				dirs = dirs.union(in.cd(val))
			}
		}
	}
	for _, w := range words {
		a.addPath(w, dirs)
		if i := strings.IndexByte(w, ':'); i >= 0 && !networkURL(w, i) {
			a.addPath(w[i+1:], dirs)
			a.addPath(w[strings.LastIndexByte(w, ':')+1:], dirs)
		}
	}
}

// networkURL reports whether w, whose first colon is at i, is a URL of a
// network scheme (http://localhost:8000/): what follows its colon is a
// host, not a path, and `curl http://localhost:8000/` must not read as a
// command naming the absolute path //localhost:8000/. A file: URL names a
// local path and is split like any other word.
func networkURL(w string, i int) bool {
	scheme := w[:i]
	if scheme == "" || !strings.HasPrefix(w[i:], "://") || strings.EqualFold(scheme, "file") {
		return false
	}
	for j, r := range scheme {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (j == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return true
}

// dirOptions are options by which common tools change their own working
// directory (env, git, make, tar, npm/pnpm/yarn).
var dirOptions = map[string]bool{
	"-C": true, "--chdir": true, "--directory": true, "--cwd": true, "--prefix": true, "--work-tree": true,
}

// addPath records p as seen from every directory the command may run in.
func (a *analyzer) addPath(p string, in dirState) {
	if p == "" || p == "-" {
		return
	}
	for _, d := range in.all {
		q := p
		if !path.IsAbs(p) && !strings.HasPrefix(p, "~") {
			q = joinDir(d, p)
			if q == "" {
				q = "."
			}
		}
		if !a.seenPath[q] {
			a.seenPath[q] = true
			a.paths = append(a.paths, q)
		}
	}
}
