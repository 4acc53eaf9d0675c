package patch

import (
	"fmt"
	"strings"
)

// Markers of the format.
const (
	beginMarker  = "*** Begin Patch"
	endMarker    = "*** End Patch"
	addMarker    = "*** Add File: "
	updateMarker = "*** Update File: "
	deleteMarker = "*** Delete File: "
	moveMarker   = "*** Move to: "
	eofMarker    = "*** End of File"
	anchorMarker = "@@"
)

// Kind is what a file section does.
type Kind int

// File section kinds.
const (
	Add Kind = iota
	Update
	Delete
)

func (k Kind) String() string { return [...]string{"add", "update", "delete"}[k] }

// FileOp is one file section of a patch.
type FileOp struct {
	Kind Kind
	Path string
	// MoveTo is the new path of an updated file, "" when it stays.
	MoveTo string
	// Content is the whole new file of an Add section.
	Content string
	// Hunks are the changes of an Update section, in file order.
	Hunks []Hunk
	// Line is the patch line (1-based) of the section's header.
	Line int
}

// Hunk is one change of an Update section: its context and removed lines
// are searched for after the Anchors (each of which must match a line in
// turn) and replaced by its context and added lines.
type Hunk struct {
	Anchors []string
	Lines   []Line
	// EOF marks a hunk that must match at the end of the file.
	EOF bool
	// Line is the patch line (1-based) where the hunk starts.
	Line int
}

// Line is one line of a hunk: Op is ' ' (context), '-' or '+'.
type Line struct {
	Op   byte
	Text string
}

// Old is the lines the hunk expects in the file: context and removed.
func (h Hunk) Old() []string { return h.side('+') }

// New is the lines the hunk leaves: context and added.
func (h Hunk) New() []string { return h.side('-') }

func (h Hunk) side(skip byte) []string {
	var out []string
	for _, l := range h.Lines {
		if l.Op != skip {
			out = append(out, l.Text)
		}
	}
	return out
}

// ParseError is a patch that does not follow the format.
type ParseError struct {
	Line int // 1-based line of the patch; 0 when the whole patch is at fault
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return "invalid patch: " + e.Msg
	}
	return fmt.Sprintf("invalid patch, line %d: %s", e.Line, e.Msg)
}

// wrapperPrefixes are lines a model puts around a patch when it writes it
// as a shell heredoc (Cline's BASH_WRAPPERS); they are dropped outside the
// sentinels.
var wrapperPrefixes = []string{"%%bash", "apply_patch", "applypatch", "EOF", "'EOF'", "\"EOF\"", "```"}

// numbered is a patch line with its 1-based number in the text received.
type numbered struct {
	n    int
	text string
}

// Parse reads a patch. The text may be wrapped in a heredoc (Cline's
// prompt shows one) and may use CRLF line endings. A patch with neither
// sentinel is taken whole, as Cline does; one with only one is refused.
func Parse(text string) ([]FileOp, error) {
	lines, err := body(text)
	if err != nil {
		return nil, err
	}
	p := &parser{lines: lines}
	return p.parse()
}

// body returns the lines between the sentinels.
func body(text string) ([]numbered, error) {
	raw := strings.Split(text, "\n")
	var all []numbered
	for i, l := range raw {
		all = append(all, numbered{n: i + 1, text: strings.TrimSuffix(l, "\r")})
	}
	begin, end := -1, -1
	for i, l := range all {
		t := strings.TrimSpace(l.text)
		if begin < 0 && t == beginMarker {
			begin = i
		}
		if t == endMarker {
			end = i
		}
	}
	switch {
	case begin < 0 && end < 0:
		return trimBlank(all), nil
	case begin < 0:
		return nil, &ParseError{Msg: "the patch has \"*** End Patch\" but no \"*** Begin Patch\" line before it"}
	case end < 0:
		return nil, &ParseError{Msg: "the patch has \"*** Begin Patch\" but no \"*** End Patch\" line after it; it may have been cut off"}
	case end < begin:
		return nil, &ParseError{Line: all[end].n, Msg: "\"*** End Patch\" comes before \"*** Begin Patch\""}
	}
	for _, l := range append(all[:begin:begin], all[end+1:]...) {
		if t := strings.TrimSpace(l.text); t != "" && !isWrapper(t) {
			return nil, &ParseError{Line: l.n, Msg: fmt.Sprintf("text outside the \"*** Begin Patch\" / \"*** End Patch\" lines: %q", l.text)}
		}
	}
	return all[begin+1 : end], nil
}

func isWrapper(line string) bool {
	for _, p := range wrapperPrefixes {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// trimBlank drops blank lines at both ends.
func trimBlank(ls []numbered) []numbered {
	for len(ls) > 0 && strings.TrimSpace(ls[0].text) == "" {
		ls = ls[1:]
	}
	for len(ls) > 0 && strings.TrimSpace(ls[len(ls)-1].text) == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

type parser struct {
	lines []numbered
	i     int
}

func (p *parser) more() bool    { return p.i < len(p.lines) }
func (p *parser) cur() numbered { return p.lines[p.i] }
func (p *parser) errf(format string, args ...any) error {
	n := 0
	if p.more() {
		n = p.cur().n
	} else if len(p.lines) > 0 {
		n = p.lines[len(p.lines)-1].n
	}
	return &ParseError{Line: n, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) parse() ([]FileOp, error) {
	var ops []FileOp
	seen := map[string]int{}
	for p.more() {
		l := p.cur()
		if strings.TrimSpace(l.text) == "" {
			p.i++
			continue
		}
		op, err := p.section()
		if err != nil {
			return nil, err
		}
		for _, path := range []string{op.Path, op.MoveTo} {
			if path == "" {
				continue
			}
			if first, dup := seen[path]; dup {
				return nil, &ParseError{Line: op.Line, Msg: fmt.Sprintf("%s is named again (first on line %d); put every change of one file in one section", path, first)}
			}
			seen[path] = op.Line
		}
		ops = append(ops, op)
	}
	if len(ops) == 0 {
		return nil, &ParseError{Msg: "the patch changes no file: expected \"*** Add File: \", \"*** Update File: \" or \"*** Delete File: \" sections"}
	}
	return ops, nil
}

// header returns the path after a marker, if the line starts with it.
func header(line, marker string) (string, bool) {
	t := strings.TrimSpace(line)
	rest, ok := strings.CutPrefix(t, strings.TrimSpace(marker))
	if !ok || (rest != "" && rest[0] != ' ') {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// isHeader reports whether a line opens a new file section.
func isHeader(line string) bool {
	for _, m := range []string{addMarker, updateMarker, deleteMarker} {
		if _, ok := header(line, m); ok {
			return true
		}
	}
	return false
}

func (p *parser) section() (FileOp, error) {
	l := p.cur()
	if path, ok := header(l.text, addMarker); ok {
		return p.add(path, l.n)
	}
	if path, ok := header(l.text, deleteMarker); ok {
		return p.delete(path, l.n)
	}
	if path, ok := header(l.text, updateMarker); ok {
		return p.update(path, l.n)
	}
	return FileOp{}, p.errf("expected a file section (\"*** Add File: <path>\", \"*** Update File: <path>\" or \"*** Delete File: <path>\"), got %q", l.text)
}

func needPath(path string, line int, what string) error {
	if path == "" {
		return &ParseError{Line: line, Msg: what + " names no file"}
	}
	return nil
}

func (p *parser) add(path string, line int) (FileOp, error) {
	if err := needPath(path, line, "\"*** Add File:\""); err != nil {
		return FileOp{}, err
	}
	p.i++
	var b strings.Builder
	for p.more() && !isHeader(p.cur().text) {
		t := p.cur().text
		rest, ok := strings.CutPrefix(t, "+")
		if !ok {
			if strings.TrimSpace(t) == "" && p.onlyBlankUntilHeader() {
				break
			}
			return FileOp{}, p.errf("every line of an added file starts with \"+\" (an empty line is \"+\" alone); got %q", t)
		}
		b.WriteString(rest)
		b.WriteByte('\n')
		p.i++
	}
	return FileOp{Kind: Add, Path: path, Content: b.String(), Line: line}, nil
}

// onlyBlankUntilHeader reports whether only blank lines remain before the
// next section or the end: models often leave one between sections.
func (p *parser) onlyBlankUntilHeader() bool {
	for j := p.i; j < len(p.lines); j++ {
		if isHeader(p.lines[j].text) {
			return true
		}
		if strings.TrimSpace(p.lines[j].text) != "" {
			return false
		}
	}
	return true
}

func (p *parser) delete(path string, line int) (FileOp, error) {
	if err := needPath(path, line, "\"*** Delete File:\""); err != nil {
		return FileOp{}, err
	}
	p.i++
	for p.more() && !isHeader(p.cur().text) {
		if strings.TrimSpace(p.cur().text) != "" {
			return FileOp{}, p.errf("a deleted file's section holds no lines; got %q", p.cur().text)
		}
		p.i++
	}
	return FileOp{Kind: Delete, Path: path, Line: line}, nil
}

func (p *parser) update(path string, line int) (FileOp, error) {
	if err := needPath(path, line, "\"*** Update File:\""); err != nil {
		return FileOp{}, err
	}
	op := FileOp{Kind: Update, Path: path, Line: line}
	p.i++
	if p.more() {
		if to, ok := header(p.cur().text, moveMarker); ok {
			if err := needPath(to, p.cur().n, "\"*** Move to:\""); err != nil {
				return FileOp{}, err
			}
			op.MoveTo = to
			p.i++
		}
	}
	for p.more() && !isHeader(p.cur().text) {
		if strings.TrimSpace(p.cur().text) == "" && p.onlyBlankUntilHeader() {
			p.i = p.skipBlank()
			break
		}
		h, err := p.hunk(len(op.Hunks) == 0)
		if err != nil {
			return FileOp{}, err
		}
		op.Hunks = append(op.Hunks, h)
	}
	if len(op.Hunks) == 0 && op.MoveTo == "" {
		return FileOp{}, &ParseError{Line: line, Msg: fmt.Sprintf("the update of %s has no hunks: add \"@@\" sections with \"-\" and \"+\" lines, or a \"*** Move to:\" line", path)}
	}
	return op, nil
}

func (p *parser) skipBlank() int {
	j := p.i
	for j < len(p.lines) && strings.TrimSpace(p.lines[j].text) == "" {
		j++
	}
	return j
}

// hunk reads @@ anchors and the lines of one change. Only the first hunk
// of a file may leave out the "@@" line.
func (p *parser) hunk(first bool) (Hunk, error) {
	h := Hunk{Line: p.cur().n}
	for p.more() {
		t := p.cur().text
		if t != anchorMarker && !strings.HasPrefix(t, anchorMarker+" ") {
			break
		}
		if a := strings.TrimSpace(strings.TrimPrefix(t, anchorMarker)); a != "" {
			h.Anchors = append(h.Anchors, a)
		}
		p.i++
	}
	if h.Line == p.curLine() && !first {
		return h, p.errf("expected \"@@\" to start the next hunk, got %q", p.cur().text)
	}
	changes := 0
	for p.more() {
		t := p.cur().text
		if t == anchorMarker || strings.HasPrefix(t, anchorMarker+" ") || isHeader(t) {
			break
		}
		if strings.TrimSpace(t) == eofMarker {
			h.EOF = true
			p.i++
			break
		}
		if strings.HasPrefix(t, "***") {
			return h, p.errf("unknown marker line %q", t)
		}
		switch {
		case t == "":
			// An empty line is an empty context line whose leading
			// space was trimmed, unless only blank lines are left.
			if p.onlyBlankUntilHeader() {
				p.i = p.skipBlank()
				return p.finish(h, changes)
			}
			h.Lines = append(h.Lines, Line{' ', ""})
		case t[0] == '-' || t[0] == '+':
			h.Lines = append(h.Lines, Line{t[0], t[1:]})
			changes++
		case t[0] == ' ':
			h.Lines = append(h.Lines, Line{' ', t[1:]})
		default:
			// Cline tolerates a context line that lost its leading space.
			h.Lines = append(h.Lines, Line{' ', t})
		}
		p.i++
	}
	return p.finish(h, changes)
}

func (p *parser) finish(h Hunk, changes int) (Hunk, error) {
	if changes == 0 {
		return h, &ParseError{Line: h.Line, Msg: "the hunk has no \"-\" or \"+\" line, so it changes nothing"}
	}
	return h, nil
}

func (p *parser) curLine() int {
	if p.more() {
		return p.cur().n
	}
	return -1
}

// Paths lists every path a patch names in its section headers and move
// lines, read line by line without parsing the rest, so that rules can be
// checked on a patch that does not parse.
func Paths(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSuffix(l, "\r")
		for _, m := range []string{addMarker, updateMarker, deleteMarker, moveMarker} {
			if path, ok := header(l, m); ok && path != "" {
				out = append(out, path)
			}
		}
	}
	return out
}
