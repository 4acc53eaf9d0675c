package editdiff

import "strings"

const bom = "\uFEFF"

// fileText is a file split into lines with each line's own terminator kept,
// so that lines no block touches come back byte for byte, whatever mix of
// line endings the file has.
type fileText struct {
	bom   bool
	lines []string // line contents without terminator
	eols  []string // "\n", "\r\n", or "" for a last line with no newline
	eol   string   // the file's dominant terminator, for lines that are new
}

// splitFile splits s into lines. A trailing "\r" before "\n" belongs to the
// terminator so that an LF diff matches a CRLF file.
func splitFile(s string) fileText {
	var ft fileText
	if rest, ok := strings.CutPrefix(s, bom); ok {
		ft.bom, s = true, rest
	}
	n := strings.Count(s, "\n") + 1
	ft.lines, ft.eols = make([]string, 0, n), make([]string, 0, n)
	crlf, lf := 0, 0
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			ft.lines, ft.eols = append(ft.lines, s), append(ft.eols, "")
			break
		}
		line, eol := s[:i], "\n"
		if strings.HasSuffix(line, "\r") {
			line, eol = line[:len(line)-1], "\r\n"
			crlf++
		} else {
			lf++
		}
		ft.lines, ft.eols = append(ft.lines, line), append(ft.eols, eol)
		s = s[i+1:]
	}
	ft.eol = "\n"
	if crlf > lf {
		ft.eol = "\r\n"
	}
	return ft
}

// endsWithoutNewline reports whether the file's last line has no terminator.
func (ft fileText) endsWithoutNewline() bool {
	return len(ft.eols) > 0 && ft.eols[len(ft.eols)-1] == ""
}

// join renders lines and terminators back into file text.
func join(hasBOM bool, lines, eols []string) string {
	var b strings.Builder
	size := len(bom)
	for i, l := range lines {
		size += len(l) + len(eols[i])
	}
	b.Grow(size)
	if hasBOM {
		b.WriteString(bom)
	}
	for i, l := range lines {
		b.WriteString(l)
		b.WriteString(eols[i])
	}
	return b.String()
}
