// Package editdiff applies Cline's replace_in_file SEARCH/REPLACE diffs to
// file text, all or nothing.
//
// A diff is one or more blocks:
//
//	------- SEARCH
//	[lines copied from the file]
//	=======
//	[lines to put in their place]
//	+++++++ REPLACE
//
// Markers of three or more characters and the legacy <<<<<<< SEARCH /
// >>>>>>> REPLACE forms are accepted. Matching is by whole lines; each block
// is located by the strategies listed under [Strategy], in order. If any
// block cannot be located, overlaps another, or the diff is malformed, Apply
// returns an error and no content, so a failed edit can never empty or
// half-change a file. Line endings, a UTF-8 byte order mark and the presence
// or absence of a final newline are kept as the file had them.
package editdiff

import (
	"fmt"
	"slices"
	"strings"
)

// Result is the outcome of a successful Apply.
type Result struct {
	Content string        // the whole new file text, ready to write
	Blocks  []BlockReport // one per block, in diff order
}

// BlockReport tells where and how one block applied.
type BlockReport struct {
	Block     int      // 1-based position of the block in the diff
	Strategy  Strategy // how its SEARCH text was located
	StartLine int      // first replaced line of the original file, 1-based (1 for NewFile)
	EndLine   int      // last replaced line, inclusive; StartLine-1 when nothing was replaced
}

// Apply applies every block of diff to original. It returns either the full
// new content or an error (*ParseError or *ApplyError) and an empty Result.
func Apply(original, diff string) (Result, error) {
	blocks, err := parse(diff)
	if err != nil {
		return Result{}, err
	}
	ft := splitFile(original)
	if i := slices.IndexFunc(blocks, func(b block) bool { return len(b.search) == 0 }); i >= 0 {
		return newFile(ft, blocks, i)
	}
	spans := make([]span, len(blocks))
	from := 0
	for i, b := range blocks {
		sp, ok := locate(ft.lines, b.search, from)
		if !ok {
			return Result{}, notFound(ft, blocks, i)
		}
		spans[i], from = sp, sp.end
	}
	order, err := fileOrder(blocks, spans)
	if err != nil {
		return Result{}, err
	}
	res := Result{Content: rebuild(ft, blocks, spans, order)}
	for i, sp := range spans {
		res.Blocks = append(res.Blocks, BlockReport{Block: i + 1, Strategy: sp.how, StartLine: sp.start + 1, EndLine: sp.end})
	}
	return res, nil
}

// EmptySearchOnFile is in the reason of a refused empty SEARCH block on a
// file that is not empty, so that a dialect can word that case its own way.
const EmptySearchOnFile = "its SEARCH section is empty but the file is not empty"

// newFile handles an empty SEARCH, which means "this is the whole content".
// It is refused on a non-empty file: there it would silently drop the text.
func newFile(ft fileText, blocks []block, i int) (Result, error) {
	fail := func(reason string) (Result, error) {
		return Result{}, &ApplyError{Block: i + 1, Total: len(blocks), Reason: reason}
	}
	if len(blocks) > 1 {
		return fail("its SEARCH section is empty, which is only allowed when it is the only block and the file is empty")
	}
	if len(ft.lines) > 0 {
		return fail(fmt.Sprintf(EmptySearchOnFile+" (%d lines); "+
			"an empty SEARCH only writes a new or empty file. Put the exact lines to replace in SEARCH", len(ft.lines)))
	}
	eols := make([]string, len(blocks[0].replace))
	for k := range eols {
		eols[k] = "\n"
	}
	content := join(ft.bom, blocks[0].replace, eols)
	return Result{Content: content, Blocks: []BlockReport{{Block: 1, Strategy: NewFile, StartLine: 1, EndLine: 0}}}, nil
}

// fileOrder sorts block indexes by match position and refuses overlaps,
// since two edits to the same lines have no single meaning.
func fileOrder(blocks []block, spans []span) ([]int, error) {
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return spans[a].start - spans[b].start })
	for k := 1; k < len(order); k++ {
		prev, cur := order[k-1], order[k]
		if spans[cur].start < spans[prev].end {
			return nil, &ApplyError{
				Block: max(prev, cur) + 1, Total: len(blocks), Search: strings.Join(blocks[max(prev, cur)].search, "\n"),
				Reason: fmt.Sprintf("its SEARCH text (lines %d-%d) overlaps block %d (lines %d-%d); merge the two blocks into one",
					spans[max(prev, cur)].start+1, spans[max(prev, cur)].end, min(prev, cur)+1,
					spans[min(prev, cur)].start+1, spans[min(prev, cur)].end),
			}
		}
	}
	return order, nil
}

// rebuild writes the file with each located span replaced. Untouched lines
// keep their own terminators; new lines take the terminator of the first
// line they replace, so CRLF regions stay CRLF even in mixed files.
func rebuild(ft fileText, blocks []block, spans []span, order []int) string {
	lines := make([]string, 0, len(ft.lines))
	eols := make([]string, 0, len(ft.lines))
	pos := 0
	for _, i := range order {
		sp := spans[i]
		lines, eols = append(lines, ft.lines[pos:sp.start]...), append(eols, ft.eols[pos:sp.start]...)
		eol := ft.eols[sp.start]
		if eol == "" {
			eol = ft.eol
		}
		for _, r := range blocks[i].replace {
			lines, eols = append(lines, r), append(eols, eol)
		}
		pos = sp.end
	}
	lines, eols = append(lines, ft.lines[pos:]...), append(eols, ft.eols[pos:]...)
	if ft.endsWithoutNewline() && len(eols) > 0 {
		eols[len(eols)-1] = ""
	}
	return join(ft.bom, lines, eols)
}
