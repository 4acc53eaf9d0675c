package shellcmd

import (
	"fmt"

	"mvdan.cc/sh/v3/syntax"
)

// classify reports the risk of one syntax node. It is the fail-closed half
// of the analysis: a node type not listed here as harmless is a risk.
func (a *analyzer) classify(src string, n syntax.Node) {
	text := func() string { return nodeText(src, n) }
	switch n := n.(type) {
	case nil: // Walk's end-of-children call
	case *syntax.File, *syntax.Word, *syntax.Lit, *syntax.Comment:
	case *syntax.Stmt:
		a.classifyStmt(src, n)
	case *syntax.CallExpr:
		if len(n.Assigns) > 0 {
			a.risk(KindAssignment, text())
		}
	case *syntax.BinaryCmd:
		switch n.Op {
		case syntax.AndStmt, syntax.OrStmt, syntax.Pipe, syntax.PipeAll:
		default:
			a.risk(KindCompound, "operator "+n.Op.String())
		}
	case *syntax.SglQuoted:
		if n.Dollar {
			a.risk(KindDollarQuote, text())
		}
	case *syntax.DblQuoted:
		if n.Dollar {
			a.risk(KindDollarQuote, text())
		}
	case *syntax.CmdSubst:
		if n.Backquotes {
			a.risk(KindBackticks, text())
		} else {
			a.risk(KindCommandSubst, text())
		}
	case *syntax.ProcSubst:
		a.risk(KindProcessSubst, text())
	case *syntax.ParamExp:
		a.risk(KindParamExpansion, text())
	case *syntax.ArithmExp:
		a.risk(KindArithExpansion, text())
	case *syntax.ExtGlob:
		a.risk(KindExtGlob, text())
	case *syntax.Redirect:
		a.classifyRedirect(src, n)
	case *syntax.Assign:
		a.risk(KindAssignment, text())
	case *syntax.Subshell:
		a.risk(KindSubshell, text())
	case *syntax.Block:
		a.risk(KindBlock, text())
	case *syntax.FuncDecl:
		a.risk(KindFunction, text())
	case *syntax.DeclClause:
		a.risk(KindAssignment, text())
	case *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause,
		*syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause, *syntax.TimeClause,
		*syntax.CoprocClause, *syntax.TestDecl:
		a.risk(KindCompound, text())
	case *syntax.CaseItem, *syntax.WordIter, *syntax.CStyleLoop, *syntax.ArrayExpr,
		*syntax.ArrayElem, *syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm,
		*syntax.FlagsArithm, *syntax.BinaryTest, *syntax.UnaryTest, *syntax.ParenTest:
		// Only reachable under a node that is already a risk.
	default:
		a.risk(KindUnsupported, fmt.Sprintf("%T", n))
	}
}

func (a *analyzer) classifyStmt(src string, s *syntax.Stmt) {
	if s.Background || s.Coprocess || s.Disown {
		a.risk(KindBackground, nodeText(src, s))
	}
	if s.Negated {
		a.risk(KindCompound, "negation: "+nodeText(src, s))
	}
}

func (a *analyzer) classifyRedirect(src string, r *syntax.Redirect) {
	text := redirectText(src, r)
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		a.risk(KindHeredoc, text)
		return
	}
	if !allowedRedirect(src, r) {
		a.risk(KindRedirect, text)
	}
}

// allowedRedirect accepts only redirections that neither read nor write a
// file: duplicating stdout and stderr onto each other (2>&1, 1>&2, >&2) and
// discarding output or reading nothing (>/dev/null, 2>/dev/null,
// &>/dev/null, >>/dev/null, </dev/null). An fd of a variable ({fd}>x) or
// above 2, and every other target, is a risk.
func allowedRedirect(src string, r *syntax.Redirect) bool {
	if r.N != nil && r.N.Value != "1" && r.N.Value != "2" {
		return false
	}
	if r.Word == nil {
		return false
	}
	target := unquoteWord(src, r.Word)
	if !target.resolved || target.glob || target.brace || target.tilde {
		return false
	}
	switch r.Op {
	case syntax.DplOut:
		return target.value == "1" || target.value == "2"
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
		return target.value == "/dev/null"
	case syntax.RdrIn:
		return r.N == nil && target.value == "/dev/null"
	}
	return false
}

// redirectText is the redirection's source without a here-document body.
func redirectText(src string, r *syntax.Redirect) string {
	if r.Word == nil {
		return r.Op.String()
	}
	return span(src, r.Pos(), r.Word.End())
}
