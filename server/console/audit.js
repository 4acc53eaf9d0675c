// The audit log view: every call the store recorded, newest first, with
// the same filters as GET /v1/audit and paging by next_cursor. It uses
// api() and el() from console.js.
"use strict";

const audit = { cursors: [""], page: 0 };

function auditQuery() {
  const q = new URLSearchParams({ limit: "25" });
  for (const name of ["session", "tool", "status"]) {
    const v = document.getElementById("audit-" + name).value.trim();
    if (v) q.set(name, v);
  }
  const since = document.getElementById("audit-since").value;
  if (since) q.set("since", new Date(since).toISOString());
  const cursor = audit.cursors[audit.page];
  if (cursor) q.set("cursor", cursor);
  return q;
}

async function refreshAudit() {
  const body = document.querySelector("#audit tbody");
  const note = document.getElementById("audit-note");
  let data;
  try {
    data = await api("GET", "/v1/audit?" + auditQuery().toString());
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
}

document.addEventListener("DOMContentLoaded", initAudit);
