package conformance

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Normalizer makes the results of two sides comparable. Its rules are
// the only differences the comparison forgives; each is stated here:
//
//  1. Shape: a tool_result's content given as a string is the one text
//     block it stands for (the Messages API treats the two alike), and
//     blocks are compared as canonical JSON (keys sorted, no spacing) of
//     {is_error, content}.
//  2. Paths: each side's workspace path (as given and as resolved through
//     symlinks) is replaced by the placeholder {WS} in every text.
//  3. Ids: text a side invents (a background job's id) is found by the
//     patterns of IDs, and its every appearance in the text replaced by
//     a numbered placeholder, {ID1}, {ID2}, ... in order of first
//     appearance.
//  4. Output files: each side's per-session directory of output files
//     (Claude Code's tool-results and tasks directories of its session,
//     toolgate's session directory of its output files, matched by
//     Outputs) becomes the placeholder {OUT}; what follows it (the
//     subdirectory, the file's name) is compared as it is, the ids in
//     it by rule 3.
//  5. The client's own prompt text: a <system-reminder>…</system-reminder>
//     element (Claude Code appends them to results as notes to the model),
//     with the blank lines that set it apart, is removed. Nothing is copied
//     from it to the other side.
type Normalizer struct {
	// Paths are the side's workspace paths, replaced by {WS}.
	Paths []string
	// Outputs match the side's per-session directories of output
	// files, replaced by {OUT}.
	Outputs []*regexp.Regexp
	// IDs match invented ids; the first capture group (or the whole
	// match) is what is replaced.
	IDs []*regexp.Regexp
}

// systemReminder is rule 5's element, with the newlines around it.
var systemReminder = regexp.MustCompile(`\n*<system-reminder>[\s\S]*?</system-reminder>\n*`)

// Text applies rules 2 to 5 to one text.
func (n Normalizer) Text(s string) string {
	s = systemReminder.ReplaceAllString(s, "")
	for _, re := range n.Outputs {
		s = re.ReplaceAllLiteralString(s, "{OUT}")
	}
	paths := append([]string(nil), n.Paths...)
	// Longest first, so a path never leaves a tail of a longer one.
	sort.Slice(paths, func(i, j int) bool { return len(paths[i]) > len(paths[j]) })
	for _, p := range paths {
		if p != "" {
			s = strings.ReplaceAll(s, p, "{WS}")
		}
	}
	// Every appearance of an id found by a pattern, numbered by where
	// it first appears.
	type found struct {
		at int
		id string
	}
	var ids []found
	for _, re := range n.IDs {
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			if len(m) >= 4 && m[2] >= 0 {
				ids = append(ids, found{m[2], s[m[2]:m[3]]})
			} else {
				ids = append(ids, found{m[0], s[m[0]:m[1]]})
			}
		}
	}
	sort.SliceStable(ids, func(i, j int) bool { return ids[i].at < ids[j].at })
	seen := map[string]bool{}
	var pairs []string
	for _, f := range ids {
		if !seen[f.id] && f.id != "" {
			seen[f.id] = true
			pairs = append(pairs, f.id, "{ID"+strconv.Itoa(len(seen))+"}")
		}
	}
	if len(pairs) > 0 {
		s = strings.NewReplacer(pairs...).Replace(s)
	}
	return s
}

// Result applies every rule to a tool_result and returns its canonical
// JSON: the bytes the comparison looks at.
func (n Normalizer) Result(r Result) string {
	var blocks []map[string]any
	var s string
	switch {
	case len(r.Content) == 0 || string(r.Content) == "null":
	case json.Unmarshal(r.Content, &s) == nil:
		blocks = []map[string]any{{"type": "text", "text": s}}
	default:
		if err := json.Unmarshal(r.Content, &blocks); err != nil {
			return "unreadable content: " + string(r.Content)
		}
	}
	out := make([]map[string]any, 0, len(blocks))
	for _, b := range blocks {
		delete(b, "cache_control") // a request's caching hint, not the result
		if t, ok := b["text"].(string); ok {
			b["text"] = n.Text(t)
			if b["type"] == "text" && b["text"] == "" && len(blocks) > 1 {
				continue // a block that only held a reminder
			}
		}
		out = append(out, b)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]any{"is_error": r.IsError, "content": out})
	return strings.TrimSuffix(buf.String(), "\n")
}
