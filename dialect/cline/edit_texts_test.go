package cline

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/handlers/editdiff"
)

// TestEditFailedEmptySearch: an empty SEARCH block on a file that is not
// empty is refused in Cline's words (measured with cline 2.18.0), then
// Cline's diff error with the file as it is; another failure keeps the
// refusal's own text.
func TestEditFailedEmptySearch(t *testing.T) {
	_, err := editdiff.Apply("one\ntwo\n", "------- SEARCH\n=======\nreplaced whole\n+++++++ REPLACE")
	if err == nil {
		t.Fatal("an empty SEARCH on a non-empty file applied")
	}
	got := Texts{}.EditFailed(err.Error(), "", "notes/whole.txt", "one\ntwo\n")
	want := toolErrorHead + "<error>\nEmpty SEARCH block detected with non-empty file. This usually indicates a malformed SEARCH marker.\n" +
		"Please ensure your SEARCH marker follows the correct format:\n- Use '------- SEARCH' (7+ dashes + space + SEARCH)\n\n\n" +
		"This is likely because the SEARCH block content"
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "<file_content path=\"notes/whole.txt\">\none\ntwo\n") {
		t.Errorf("EditFailed = %q, want it to start with %q", got, want)
	}
	other := Texts{}.EditFailed("SEARCH/REPLACE block 2 of 2 failed: something else.", "", "f.txt", "x\n")
	if !strings.Contains(other, "<error>\nSEARCH/REPLACE block 2 of 2 failed: something else.\n\n") {
		t.Errorf("another failure became %q", other)
	}
}
