package shellcmd

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// wordInfo is what bash would pass as one argument, when that can be known.
type wordInfo struct {
	value    string // unquoted value; the raw source of any part that is not literal
	resolved bool   // every part is literal or quoted literal
	glob     bool   // an unquoted *, ? or [ makes the word a pattern
	tilde    bool   // an unquoted ~ at the start or after = or :
	brace    bool   // an unquoted brace expansion
}

// shapeQuoted stands in the shape of a word for any character that bash will
// not interpret (quoted, escaped or produced by an expansion).
const shapeQuoted = 'x'

// unquoteWord performs quote removal the way bash does for an argument,
// without expanding anything. The shape string records which characters stay
// unquoted, so that glob, tilde and brace syntax can be recognised on it
// without being fooled by quoted or escaped look-alikes.
func unquoteWord(src string, w *syntax.Word) wordInfo {
	var val, shape strings.Builder
	resolved := true
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			unescapeLit(p.Value, &val, &shape)
		case *syntax.SglQuoted:
			s := p.Value
			if p.Dollar {
				s = ansiC(p)
			}
			val.WriteString(s)
			shape.WriteString(strings.Repeat(string(rune(shapeQuoted)), len(s)))
		case *syntax.DblQuoted:
			if !unquoteDouble(src, p, &val) {
				resolved = false
			}
			shape.WriteByte(shapeQuoted)
		default:
			resolved = false
			val.WriteString(nodeText(src, part))
			shape.WriteByte(shapeQuoted)
		}
	}
	sh := shape.String()
	return wordInfo{
		value:    val.String(),
		resolved: resolved,
		glob:     strings.ContainsAny(sh, "*?["),
		tilde:    strings.HasPrefix(sh, "~") || strings.Contains(sh, "=~") || strings.Contains(sh, ":~"),
		brace:    hasBraceExpansion(sh),
	}
}

// unescapeLit removes the backslashes of an unquoted literal: outside quotes a
// backslash keeps the next character literal (r\m is rm). mvdan keeps them in
// Lit.Value and has already dropped backslash-newline pairs.
func unescapeLit(s string, val, shape *strings.Builder) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			val.WriteByte(s[i])
			shape.WriteByte(shapeQuoted)
			continue
		}
		val.WriteByte(s[i])
		shape.WriteByte(s[i])
	}
}

// unquoteDouble writes the value of a double-quoted string, where a backslash
// escapes only $ ` " \ (and newline). It reports false if the string holds an
// expansion, whose raw source is written instead.
func unquoteDouble(src string, q *syntax.DblQuoted, val *strings.Builder) bool {
	ok := true
	for _, part := range q.Parts {
		lit, isLit := part.(*syntax.Lit)
		if !isLit {
			ok = false
			val.WriteString(nodeText(src, part))
			continue
		}
		s := lit.Value
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
				i++
			}
			val.WriteByte(s[i])
		}
	}
	return ok
}

// ansiC decodes $'...' with the expand package, which implements bash's
// escape table; KindDollarQuote is reported for it regardless.
func ansiC(q *syntax.SglQuoted) string {
	s, err := expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{q}})
	if err != nil {
		return q.Value
	}
	return s
}

// hasBraceExpansion reports whether an unquoted {...} holds a top-level comma
// or "..": bash then turns one word into several ({ls,-la} runs ls -la),
// whereas HEAD@{1} or a lone {} stay literal.
func hasBraceExpansion(shape string) bool {
	for i := 0; i < len(shape); i++ {
		if shape[i] != '{' {
			continue
		}
		depth := 0
		for j := i; j < len(shape); j++ {
			switch shape[j] {
			case '{':
				depth++
			case '}':
				depth--
			case ',':
				if depth == 1 {
					return true
				}
			case '.':
				if depth == 1 && j+1 < len(shape) && shape[j+1] == '.' {
					return true
				}
			}
			if depth == 0 {
				break
			}
		}
	}
	return false
}

// nodeText returns the source text of a node, or "" if its positions do not
// fit the source (which would be a parser bug, not a reason to panic).
func nodeText(src string, n syntax.Node) string {
	return span(src, n.Pos(), n.End())
}

func span(src string, from, to syntax.Pos) string {
	a, b := int(from.Offset()), int(to.Offset())
	if !from.IsValid() || !to.IsValid() || a < 0 || b > len(src) || a > b {
		return ""
	}
	return src[a:b]
}
