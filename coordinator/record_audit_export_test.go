package coordinator

import (
	"bytes"
	"encoding/csv"
	"errors"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/store"
)

func TestAuditRowInertCells(t *testing.T) {
	r := api.AuditRecord{SessionID: "-s", ToolUseID: "toolu_1", Tool: "+cmd", DecidedBy: "@rule", Input: []byte(`{"a":1}`),
		Result: &api.ToolResult{Content: []api.Content{api.TextContent(`=HYPERLINK("http://x.test","y")`), api.TextContent("second")}}}
	row := auditRow(r)
	cell := func(name string) string { return row[slices.Index(auditColumns, name)] }
	for name, want := range map[string]string{
		"session_id":  "'-s",
		"tool":        "'+cmd",
		"decided_by":  "'@rule",
		"result_text": "'=HYPERLINK(\"http://x.test\",\"y\")\nsecond",
		"input":       `{"a":1}`,
		"tool_use_id": "toolu_1",
	} {
		if got := cell(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func TestWriteAuditPages(t *testing.T) {
	calls := []store.Call{{ToolUseID: "c3", Tool: "read_file"}, {ToolUseID: "c2", Tool: "read_file"}, {ToolUseID: "c1", Tool: "list_files"}}
	// A store answering two calls a page, by the cursor.
	page := func(q store.Query) (store.Page, error) {
		from := 0
		if q.Before > 0 {
			from = int(q.Before)
		}
		to := min(from+2, len(calls))
		p := store.Page{Calls: calls[from:to]}
		if to < len(calls) {
			p.Next = int64(to)
		}
		return p, nil
	}
	var out bytes.Buffer
	if err := WriteAudit(&out, "csv", store.Query{Limit: 2}, page); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil || len(rows) != 4 {
		t.Fatalf("rows = %q, %v; want a header and 3 calls", rows, err)
	}
	var ids []string
	for _, r := range rows[1:] {
		ids = append(ids, r[3])
	}
	if !slices.Equal(ids, []string{"c3", "c2", "c1"}) {
		t.Errorf("ids = %v, want every page in order", ids)
	}
	if err := WriteAudit(&out, "xml", store.Query{}, page); err == nil {
		t.Error("format xml: no error")
	}
	boom := errors.New("disk gone")
	if err := WriteAudit(&out, "jsonl", store.Query{}, func(store.Query) (store.Page, error) { return store.Page{}, boom }); !errors.Is(err, boom) {
		t.Errorf("a failing page: err = %v, want it passed on", err)
	}
}
