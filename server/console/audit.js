// The audit log view: every call the store recorded, newest first, with
// the same filters as GET /v1/audit and paging by next_cursor. On the
// first page it refreshes by itself (every 10 seconds and when a call
// finishes); Export downloads every matching call (GET /v1/audit/export)
// as JSON lines or CSV. It uses api(), el() and state from console.js.
"use strict";

const audit = { cursors: [""], page: 0, timer: 0 };

// auditFilters are the form's filters as query parameters.
function auditFilters() {
  const q = new URLSearchParams();
  for (const name of ["session", "tool", "status"]) {
    const v = document.getElementById("audit-" + name).value.trim();
    if (v) q.set(name, v);
  }
  const since = document.getElementById("audit-since").value;
  if (since) q.set("since", new Date(since).toISOString());
  return q;
}

function auditQuery() {
  const q = auditFilters();
  q.set("limit", "25");
  const cursor = audit.cursors[audit.page];
  if (cursor) q.set("cursor", cursor);
  return q;
}

// refreshAuditIfLive refreshes the first page while auto-refresh is on; an
// older page stays as it is, so paging is not disturbed.
function refreshAuditIfLive() {
  clearTimeout(audit.timer);
  audit.timer = setTimeout(refreshAuditIfLive, 10000);
  if (state.token && !document.hidden && audit.page === 0 && document.getElementById("audit-auto").checked) refreshAudit(true);
}

// exportAudit downloads every call the filters match. The token goes in
// a header, so the file is fetched here and handed to the browser as a
// blob rather than by a plain link.
async function exportAudit(format) {
  // A note of its own: the view's refreshes clear audit-note.
  const note = document.getElementById("audit-export-note");
  const q = auditFilters();
  q.set("format", format);
  note.textContent = "exporting…";
  try {
    const res = await fetch("/v1/audit/export?" + q.toString(), { headers: { Authorization: "Bearer " + state.token } });
    if (!res.ok) throw new APIError(res.status, await res.json().catch(() => null));
    const blob = await res.blob();
    const url = URL.createObjectURL(blob);
    const a = el("a", { href: url, download: "toolgate-audit." + format, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
    note.textContent = "exported " + blob.size + " bytes as " + format;
  } catch (e) {
    note.textContent = "export: " + e.message;
  }
}

// refreshAudit reads the page; timed marks a refresh made on the timer.
async function refreshAudit(timed) {
  const body = document.querySelector("#audit tbody");
  const note = document.getElementById("audit-note");
  let data;
  try {
    data = await api("GET", "/v1/audit?" + auditQuery().toString(), undefined, timed);
  } catch (e) {
    note.textContent = "audit log: " + e.message;
    return;
  }
  note.textContent = "";
  body.replaceChildren(...(data.calls || []).map(auditRow));
  if (!data.calls || data.calls.length === 0) {
    body.append(el("tr", {}, el("td", { colspan: "8", class: "muted" }, "no calls")));
  }
  audit.cursors.length = audit.page + 1;
  if (data.next_cursor) audit.cursors.push(data.next_cursor);
  document.getElementById("audit-newer").disabled = audit.page === 0;
  document.getElementById("audit-older").disabled = !data.next_cursor;
}

function auditRow(c) {
  const when = new Date(c.started_at);
  const result = c.result && c.result.content && c.result.content[0] ? c.result.content[0].text || "" : "";
  const input = c.input ? JSON.stringify(c.input) : "sha256 " + c.input_sha256.slice(0, 12) + "… (" + c.input_bytes + " bytes)";
  return el("tr", { class: "audit-" + (c.status || c.state), "data-tool-use-id": c.tool_use_id },
    el("td", {}, when.toLocaleString()),
    el("td", {}, c.session_id),
    el("td", {}, c.tool),
    el("td", { class: "mono" }, c.tool_use_id),
    el("td", {}, c.status || c.state, c.error_code ? " (" + c.error_code + ")" : ""),
    el("td", {}, c.decision || "", c.decided_by ? " by " + c.decided_by : ""),
    el("td", {}, (c.duration_ms || 0).toFixed(1) + " ms"),
    el("td", {}, el("details", {}, el("summary", {}, "input / result"),
      el("pre", {}, input), el("pre", {}, result, c.result_bytes ? "\n(" + c.result_bytes + " bytes)" : ""))));
}

function initAudit() {
  document.getElementById("audit-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    audit.cursors = [""];
    audit.page = 0;
    refreshAudit();
  });
  document.getElementById("audit-older").addEventListener("click", () => { audit.page++; refreshAudit(); });
  document.getElementById("audit-newer").addEventListener("click", () => { audit.page = Math.max(0, audit.page - 1); refreshAudit(); });
  document.getElementById("audit-export-jsonl").addEventListener("click", () => exportAudit("jsonl"));
  document.getElementById("audit-export-csv").addEventListener("click", () => exportAudit("csv"));
  refreshAuditIfLive();
}

document.addEventListener("DOMContentLoaded", initAudit);
