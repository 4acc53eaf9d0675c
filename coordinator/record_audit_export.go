package coordinator

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/store"
)

// AuditFormats are the formats an audit export is written in: JSON lines
// (one AuditRecord a line, as GET /v1/audit shows them) and CSV.
var AuditFormats = []string{"jsonl", "csv"}

// auditColumns are the CSV export's columns, in order.
var auditColumns = []string{"started_at", "session_id", "message_id", "tool_use_id", "tool", "state", "status",
	"error_code", "decision", "decided_by", "duration_ms", "input_bytes", "input_sha256", "input", "result_bytes",
	"result_is_error", "result_text", "discarded"}

// WriteAudit writes every call q matches, newest first, page after page
// (page reads one; a store's Audit), in format jsonl or csv. q's Limit
// sets the page size; its Before, where the export starts.
func WriteAudit(out io.Writer, format string, q store.Query, page func(store.Query) (store.Page, error)) error {
	bw := bufio.NewWriter(out)
	var write func(api.AuditRecord) error
	var flush func() error
	switch format {
	case "jsonl":
		enc := json.NewEncoder(bw)
		write, flush = func(r api.AuditRecord) error { return enc.Encode(r) }, bw.Flush
	case "csv":
		cw := csv.NewWriter(bw)
		if err := cw.Write(auditColumns); err != nil {
			return err
		}
		write = func(r api.AuditRecord) error { return cw.Write(auditRow(r)) }
		flush = func() error {
			if cw.Flush(); cw.Error() != nil {
				return cw.Error()
			}
			return bw.Flush()
		}
	default:
		return fmt.Errorf("unknown audit format %q (known: %s)", format, strings.Join(AuditFormats, ", "))
	}
	if q.Limit == 0 {
		q.Limit = store.MaxLimit
	}
	for {
		p, err := page(q)
		if err != nil {
			return err
		}
		for _, c := range p.Calls {
			if err := write(AuditRecord(c)); err != nil {
				return err
			}
		}
		if p.Next == 0 {
			return flush()
		}
		q.Before = p.Next
	}
}

// auditRow is one call as a CSV row, in auditColumns' order. The input
// stays JSON; the result is its texts.
func auditRow(r api.AuditRecord) []string {
	var isError, text string
	if r.Result != nil {
		isError = strconv.FormatBool(r.Result.IsError)
		var parts []string
		for _, c := range r.Result.Content {
			if c.Type == "text" {
				parts = append(parts, c.Text)
			}
		}
		text = strings.Join(parts, "\n")
	}
	row := []string{r.StartedAt.UTC().Format(time.RFC3339Nano), r.SessionID, r.MessageID, r.ToolUseID, r.Tool,
		string(r.State), string(r.Status), r.ErrorCode, r.Decision, r.DecidedBy,
		strconv.FormatFloat(r.DurationMS, 'f', 3, 64), strconv.Itoa(r.InputBytes), r.InputSHA256, string(r.Input),
		strconv.Itoa(r.ResultBytes), isError, text, strconv.FormatBool(r.Discarded)}
	for i, cell := range row {
		row[i] = inertCell(cell)
	}
	return row
}

// inertCell keeps a spreadsheet from reading a cell as a formula: inputs
// and results come from a model and a workspace, and "=HYPERLINK(...)"
// in a file would otherwise run when the export is opened. Such a cell
// gets a leading apostrophe, as OWASP's CSV injection advice has it.
func inertCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// ExportAudit writes the audit log's calls that q matches in format (see
// WriteAudit), with the records still queued written to the store first.
func (c *Coordinator) ExportAudit(out io.Writer, format string, q store.Query) error {
	if err := c.rec.apply(store.Committed); err != nil {
		return err
	}
	return WriteAudit(out, format, q, c.rec.st.Audit)
}
