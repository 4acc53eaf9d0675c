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
}

func (v argv) tail(k int) argv {
	return argv{vals: v.vals[k:], infos: v.infos[k:], from: v.from[k:], end: v.end}
}

func (w *walker) call(c *syntax.CallExpr, st *syntax.Stmt, in dirState) (succ, fail dirState) {
	// Commands substituted into the words are listed after this one,
	// in source order, although bash runs them first.
	defer w.substitutions(c, in)
	w.redirectPaths(st, in)
	if len(c.Args) == 0 {
		return in, in
	}
	v := argv{end: int(c.End().Offset())}
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
		if !ok {
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
// and the rest of a short option cluster (-fFILE), which over-reports on
// purpose since a false positive only costs an ignore-rule check.
func (a *analyzer) commandPaths(v argv, in dirState) {
	if strings.Contains(v.vals[0], "/") {
		a.addPath(v.vals[0], in)
	}
	operands := false
	for _, arg := range v.vals[1:] {
		switch {
		case operands || !strings.HasPrefix(arg, "-") || arg == "-":
			a.addPath(arg, in)
		case arg == "--":
			operands = true
		case strings.HasPrefix(arg, "--"):
			if _, val, ok := strings.Cut(arg, "="); ok {
				a.addPath(val, in)
			}
		case len(arg) > 2:
			a.addPath(arg[2:], in)
		}
	}
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
