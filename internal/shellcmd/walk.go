package shellcmd

import (
	"mvdan.cc/sh/v3/syntax"
)

// walker collects simple commands in source order, tracking the working
// directory through cd. Risks are found separately by classify, so the
// walker only has to follow control flow.
type walker struct {
	a       *analyzer
	src     string
	nesting int
}

// stmts runs a sequential list: after each statement the directory is
// whatever it left, success or not.
func (w *walker) stmts(list []*syntax.Stmt, in dirState) dirState {
	for _, st := range list {
		succ, fail := w.stmt(st, in)
		in = w.bound(succ.union(fail))
	}
	return in
}

// stmt returns the directories after the statement succeeded and failed.
func (w *walker) stmt(st *syntax.Stmt, in dirState) (succ, fail dirState) {
	for _, r := range st.Redirs {
		w.nested(r.Word, in)
		w.nested(r.Hdoc, in)
	}
	succ, fail = w.command(st, in)
	if st.Background || st.Coprocess || st.Disown {
		// An asynchronous command runs in a subshell: the caller's
		// directory does not change.
		return in, in
	}
	if st.Negated {
		succ, fail = fail, succ
	}
	return succ, fail
}

func (w *walker) command(st *syntax.Stmt, in dirState) (succ, fail dirState) {
	switch c := st.Cmd.(type) {
	case nil:
		w.redirectPaths(st, in)
		return in, in
	case *syntax.CallExpr:
		return w.call(c, st, in)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt:
			sx, fx := w.stmt(c.X, in)
			sy, fy := w.stmt(c.Y, sx)
			return sy, fx.union(fy)
		case syntax.OrStmt:
			sx, fx := w.stmt(c.X, in)
			sy, fy := w.stmt(c.Y, fx)
			return sx.union(sy), fy
		default:
			// Each side of a pipeline runs in its own subshell.
			w.stmt(c.X, in)
			w.stmt(c.Y, in)
			return in, in
		}
	case *syntax.Block:
		out := w.stmts(c.Stmts, in)
		return out, out
	case *syntax.Subshell:
		w.stmts(c.Stmts, in)
		return in, in
	case *syntax.FuncDecl, *syntax.DeclClause:
		w.a.unsettled = true
		out := w.generic(c, in)
		return out, out
	default:
		out := w.generic(c, in)
		return out, out
	}
}

// bound keeps the set of possible directories small. Dropping some would
// leave paths unchecked, so the overflow collapses into unknownDir, which
// callers refuse.
func (w *walker) bound(s dirState) dirState {
	if len(s.all) <= maxDirs {
		return s
	}
	w.a.risk(KindCd, "too many possible working directories")
	s.all = append(s.all[:maxDirs-1:maxDirs-1], unknownDir)
	return s
}

// generic handles compound commands (already risks): every statement inside
// is visited in source order, and any directory one of them may leave is
// kept as possible for the rest, since loops and branches may run or not.
func (w *walker) generic(n syntax.Node, in dirState) dirState {
	out := in
	syntax.Walk(n, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		succ, fail := w.stmt(st, out)
		out = w.bound(out.union(succ).union(fail))
		return false
	})
	return out
}

// nested visits the statements of substitutions inside a word. They run in
// subshells, so their cds do not leak out.
func (w *walker) nested(word *syntax.Word, in dirState) {
	if word != nil {
		w.generic(word, in)
	}
}

// redirectPaths records the files named by a statement's redirections.
func (w *walker) redirectPaths(st *syntax.Stmt, in dirState) {
	for _, r := range st.Redirs {
		if r.Word == nil || allowedRedirect(w.src, r) {
			continue
		}
		target := unquoteWord(w.src, r.Word).value
		switch {
		case r.Op == syntax.Hdoc, r.Op == syntax.DashHdoc, r.Op == syntax.WordHdoc, r.Op == syntax.DplIn:
			continue // a here-document or <&N names no file
		case r.Op == syntax.DplOut && isFd(target):
			continue // >&N duplicates a descriptor; >&file writes file
		}
		w.a.addPath(target, in)
		if writesFile(r.Op) {
			for _, d := range in.all {
				w.a.writes = append(w.a.writes, joinDir(d, target))
			}
		}
	}
}

// writesFile reports whether a redirection operator opens its target for
// writing (>, >>, &>, &>>, >|, <>, >&file).
func writesFile(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.RdrInOut, syntax.DplOut:
		return true
	}
	return false
}

func isFd(s string) bool {
	if s == "-" {
		return true
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
