package coordinator

import (
	"encoding/json"
	"strconv"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/store"
)

// Audit pages through the calls the store recorded, newest first, as
// the audit log shows them. Records still in the store's write queue (a
// read's record is batched) are written first: a call that was answered
// is in the audit at once.
func (c *Coordinator) Audit(q store.Query) (api.AuditResponse, error) {
	if err := c.rec.apply(store.Committed); err != nil {
		return api.AuditResponse{}, err
	}
	page, err := c.rec.st.Audit(q)
	if err != nil {
		return api.AuditResponse{}, err
	}
	resp := api.AuditResponse{Calls: make([]api.AuditRecord, 0, len(page.Calls))}
	for _, row := range page.Calls {
		resp.Calls = append(resp.Calls, AuditRecord(row))
	}
	if page.Next > 0 {
		resp.NextCursor = strconv.FormatInt(page.Next, 10)
	}
	return resp, nil
}

// AuditRecord is a stored call as the audit log shows it.
func AuditRecord(row store.Call) api.AuditRecord {
	r := api.AuditRecord{SessionID: row.SessionID, ToolUseID: row.ToolUseID, MessageID: row.MessageID, Tool: row.Tool,
		Input: row.Input, InputSHA256: row.InputSHA256, InputBytes: row.InputBytes, State: api.CallState(row.State),
		Status: api.CallStatus(row.Status), ErrorCode: row.ErrorCode, Decision: row.Decision, DecidedBy: row.DecidedBy,
		StartedAt: row.StartedAt, DurationMS: row.DurationMS, ResultBytes: row.ResultBytes, Discarded: row.Discarded}
	if len(row.Input) > storeMaxInputBytes {
		r.Input = nil // a call awaiting approval keeps its whole input for itself, not for the log
	}
	if len(row.Result) > 0 {
		var res api.ToolResult
		if json.Unmarshal(row.Result, &res) == nil {
			r.Result = &res
		}
	}
	return r
}
