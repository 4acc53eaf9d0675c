package handlers

import "strings"

// foldQuote reads a curly quote as the straight one it stands for.
var foldQuote = strings.NewReplacer("\u2018", "'", "\u2019", "'", "\u201c", `"`, "\u201d", `"`)

// findFolded finds old in content with curly quotes read as straight ones
// on both sides, and returns content's own text at that place: what
// Claude Code's Edit replaces when a model wrote "smart" quotes for the
// file's straight ones, or the other way round.
func findFolded(content, old string) (string, bool) {
	want := foldQuote.Replace(old)
	// folded is content folded; at[i] is where folded's byte i starts
	// in content, at[len(folded)] its end.
	var folded strings.Builder
	at := make([]int, 0, len(content)+1)
	for i, r := range content {
		f := string(r)
		if r == '\u2018' || r == '\u2019' || r == '\u201c' || r == '\u201d' {
			f = foldQuote.Replace(f)
		}
		for range len(f) {
			at = append(at, i)
		}
		folded.WriteString(f)
	}
	at = append(at, len(content))
	idx := strings.Index(folded.String(), want)
	if idx < 0 {
		return "", false
	}
	return content[at[idx]:at[idx+len(want)]], true
}
