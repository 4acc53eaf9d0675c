// toolgate console: calls awaiting approval. The preview and the decision
// buttons are drawn here; console.js calls showApproval and closeApproval
// from its timeline, inbox.js from the approvals inbox. Everything is
// shown with textContent, never as HTML.
"use strict";

// previewOf renders what a call would do: the approval's preview on
// tool.awaiting_approval (ev.approval.preview), the block's so far on
// tool.partial (ev.preview). It keeps every field the server sent, since
// the person deciding should see the risks and paths, not just the diff.
function previewOf(ev) {
  const p = (ev.approval && ev.approval.preview) || ev.preview;
  if (!p || typeof p !== "object") return "";
  const lines = [];
  if (p.command) lines.push("$ " + p.command);
  for (const part of p.parts || []) {
    lines.push("  " + (part.dir ? "[" + part.dir + "] " : "") + (part.args || []).join(" "));
  }
  if (p.risks && p.risks.length) lines.push("risks: " + p.risks.join(", "));
  if (p.paths && p.paths.length) lines.push("paths: " + [...new Set(p.paths)].join(", "));
  if (p.error) lines.push("no preview: " + p.error);
  if (p.diff) lines.push(p.diff.replace(/\n$/, ""));
  if (!lines.length && p.input !== undefined && p.input !== null) lines.push(JSON.stringify(p.input, null, 2));
  return lines.join("\n");
}

function diffPre(text) {
  const pre = el("pre", { class: "diff" });
  for (const line of text.split("\n")) {
    const cls = line.startsWith("@@") ? "hunk" : line.startsWith("+") && !line.startsWith("+++") ? "add"
      : line.startsWith("-") && !line.startsWith("---") ? "del" : "";
    pre.append(el("span", { class: cls }, line), "\n");
  }
  return pre;
}

function showApproval(card, ev) {
  if (card.querySelector(".approval")) return;
  const a = ev.approval || {};
  if (a.reason) card.append(el("div", { class: "reason" }, a.reason + (a.rule ? " (" + a.rule + ")" : "")));
  const preview = previewOf(ev);
  if (preview) card.append(diffPre(preview));
  const note = el("span", { class: "muted" }, "waiting for a decision");
  const feedback = el("input", { type: "text", class: "feedback", placeholder: "feedback for the model (optional)",
    "aria-label": "feedback", spellcheck: "false" });
  // Remember adds session rules of exactly this call's shape, so the
  // same call is not asked about again.
  const remember = el("input", { type: "checkbox", class: "remember", "aria-label": "remember" });
  const decide = (decision) => async () => {
    for (const c of box.querySelectorAll("button, input")) c.disabled = true;
    note.textContent = decision === "approve" ? "approving…" : "rejecting…";
    const body = { decision };
    if (feedback.value.trim()) body.feedback = feedback.value.trim();
    if (decision === "approve" && remember.checked) body.remember = true;
    try {
      await api("POST", "/v1/sessions/" + encodeURIComponent(card.dataset.session || ev.session_id || state.session) + "/calls/" +
        encodeURIComponent(ev.tool_use_id) + "/decision", body);
      note.textContent = decision === "approve" ? "approved" : "rejected";
      refreshSoon();
    } catch (e) {
      note.textContent = "decision failed: " + e.message;
      for (const c of box.querySelectorAll("button, input")) c.disabled = false;
    }
  };
  const box = el("div", { class: "approval" },
    el("button", { type: "button", class: "approve", onclick: decide("approve") }, "Approve"),
    el("button", { type: "button", class: "reject", onclick: decide("reject") }, "Reject"),
    el("label", { class: "remember-label", title: "approve calls of this exact shape in this session from now on" }, remember, " remember"),
    feedback,
    note);
  card.append(box);
}

function closeApproval(card, text) {
  const box = card.querySelector(".approval");
  if (!box) return;
  for (const c of box.querySelectorAll("button, input")) c.disabled = true;
  if (text && box.lastChild.textContent === "waiting for a decision") box.lastChild.textContent = text;
}
