package editdiff

import (
	"strings"
	"testing"
)

// FuzzApply checks the all-or-nothing contract on arbitrary input: no panic,
// no content with an error, and on success every REPLACE text present and
// the file's BOM and final-newline state kept.
func FuzzApply(f *testing.F) {
	f.Add("a\nb\nc\n", blk("b", "B"))
	f.Add("a\r\nb\r\n", blk("a", "A\nAA"))
	f.Add("\uFEFFx\ny", blk("y", ""))
	f.Add("", blk("", "new"))
	f.Add("a\nb\nc\nd\n", blk("c", "C")+blk("a", "A"))
	f.Add("{\n1\n}\n", "<<<<<<< SEARCH\n{\n2\n}\n=======\n[\n>>>>>>> REPLACE")
	f.Add("  a\n\tb\n", "--- SEARCH\na\nb\n===\nc\n+++ REPLACE\n")
	f.Add("a\n", "------- SEARCH\na\n=======\n=======\n")
	f.Fuzz(func(t *testing.T, original, diff string) {
		got, err := Apply(original, diff)
		if err != nil {
			if got.Content != "" || got.Blocks != nil {
				t.Fatalf("error %v came with content %q", err, got.Content)
			}
			return
		}
		blocks, perr := parse(diff)
		if perr != nil {
			t.Fatalf("Apply succeeded but parse failed: %v", perr)
		}
		if len(got.Blocks) != len(blocks) {
			t.Fatalf("got %d block reports, want %d", len(got.Blocks), len(blocks))
		}
		for i, b := range blocks {
			if want := strings.Join(b.replace, "\n"); !strings.Contains(dropCR(got.Content), dropCR(want)) {
				t.Fatalf("block %d REPLACE text %q missing from result %q", i+1, want, got.Content)
			}
		}
		checkShape(t, original, got, blocks)
	})
}

// checkShape asserts that a BOM, a final newline and the line count
// survive an edit. A file without a final newline may come to end in one
// only when its new last line is empty, as an empty unterminated line reads
// as no line at all; the line count tells those cases apart.
func checkShape(t *testing.T, original string, got Result, blocks []block) {
	t.Helper()
	content := got.Content
	if strings.HasPrefix(original, bom) && !strings.HasPrefix(content, bom) {
		t.Fatalf("BOM lost: %q -> %q", original, content)
	}
	body := strings.TrimPrefix(original, bom)
	if strings.HasSuffix(body, "\n") && strings.TrimPrefix(content, bom) != "" && !strings.HasSuffix(content, "\n") {
		t.Fatalf("final newline lost: %q -> %q", original, content)
	}
	want := len(splitFile(original).lines)
	for i, r := range got.Blocks {
		want += len(blocks[i].replace) - (r.EndLine - r.StartLine + 1)
	}
	rest := strings.TrimPrefix(content, bom)
	if body != "" && !strings.HasSuffix(body, "\n") && (rest == "" || strings.HasSuffix(rest, "\n")) && want > 0 {
		want-- // the new last line is empty and unterminated
	}
	if n := len(splitFile(content).lines); n != want {
		t.Fatalf("got %d lines, want %d: %q -> %q", n, want, original, content)
	}
}

func dropCR(s string) string { return strings.ReplaceAll(s, "\r", "") }
