// toolgate console: the approvals inbox, every call of every session that
// waits for a decision (GET /v1/approvals), refreshed every 3 seconds
// while the tab is visible and whenever a watched call changes. Each entry shows the call's preview and
// the decision buttons of approval.js; a decided entry leaves on the next
// refresh. Uses api(), el(), state and showApproval.
"use strict";

const inboxView = { timer: 0, cards: new Map() }; // session id + "\n" + tool_use_id -> entry

async function refreshInbox() {
  clearTimeout(inboxView.timer);
  if (!state.token) return;
  inboxView.timer = setTimeout(refreshInbox, 3000);
  if (document.hidden) return; // a tab in the background asks nothing
  let data;
  try {
    data = await poll("/v1/approvals");
  } catch (_) {
    return;
  }
  const waiting = new Set();
  const list = document.getElementById("inbox");
  for (const p of data.approvals || []) {
    const key = p.session_id + "\n" + p.call.tool_use_id;
    waiting.add(key);
    if (!inboxView.cards.has(key)) {
      const card = inboxCard(p);
      inboxView.cards.set(key, card);
      list.append(card);
    }
  }
  for (const [key, card] of inboxView.cards) {
    if (!waiting.has(key)) {
      card.remove();
      inboxView.cards.delete(key);
    }
  }
  document.getElementById("inbox-empty").hidden = inboxView.cards.size > 0;
}

// inboxCard is one waiting call: its tool, session, id and deadline, then
// what showApproval draws from the approval (reason, preview, buttons).
function inboxCard(p) {
  const card = el("li", { class: "ev call awaiting", "data-id": p.call.tool_use_id, "data-session": p.session_id },
    el("div", { class: "head" },
      el("span", { class: "name" }, p.call.name),
      el("button", { type: "button", class: "sess link", title: "post to " + p.session_id + " and show its events",
        onclick: () => watchSession(p.session_id) }, shortSession(p.session_id)),
      el("span", { class: "id" }, p.call.tool_use_id),
      el("span", { class: "meta" }, "decide by " + new Date(p.approval.deadline).toLocaleTimeString())));
  showApproval(card, { tool_use_id: p.call.tool_use_id, session_id: p.session_id, approval: p.approval });
  return card;
}
