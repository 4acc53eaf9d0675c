// toolgate console: the session list (GET /v1/sessions), refreshed every
// 5 seconds while the tab is visible and whenever a watched call changes. Clicking a session makes it the
// current one (posts go there, its checklist and todos show); ticking
// "events" adds its live events to the timeline beside the current
// session's. Uses api(), el(), state and watchSession from console.js.
"use strict";

// maxStreams bounds the sessions watched at once: each is an open
// request, and a browser keeps six connections to one server, which the
// page's other requests need too.
const maxStreams = 4;

const sessionsView = { timer: 0, list: [] };

async function refreshSessions() {
  clearTimeout(sessionsView.timer);
  if (!state.token) return;
  sessionsView.timer = setTimeout(refreshSessions, 5000);
  if (document.hidden) return; // a tab in the background asks nothing
  let data;
  try {
    data = await poll("/v1/sessions");
  } catch (_) {
    return;
  }
  sessionsView.list = data.sessions || [];
  // A watched session that was deleted or expired is watched no more.
  const live = new Set(sessionsView.list.map((s) => s.id));
  const gone = [...state.extra].filter((sid) => !live.has(sid));
  if (gone.length) {
    for (const sid of gone) state.extra.delete(sid);
    openStreams();
  }
  renderSessions();
}

function renderSessions() {
  const body = document.querySelector("#sessions tbody");
  body.replaceChildren(...sessionsView.list.map(sessionRow));
}

function sessionRow(s) {
  const current = s.id === state.session;
  const watched = current || state.extra.has(s.id);
  const box = el("input", { type: "checkbox", class: "watch", "aria-label": "show the events of " + s.id });
  box.checked = watched;
  box.disabled = current || (!watched && state.streams.size >= maxStreams);
  if (box.disabled && !current) box.title = "at most " + maxStreams + " sessions at once";
  box.addEventListener("change", () => {
    if (box.checked) state.extra.add(s.id);
    else state.extra.delete(s.id);
    openStreams();
    renderSessions();
  });
  const pick = el("button", { type: "button", class: "link", title: "post to " + s.id + " and show its events",
    onclick: () => watchSession(s.id) }, s.id);
  return el("tr", { "data-session": s.id, class: current ? "current" : "" },
    el("td", {}, pick),
    el("td", {}, s.dialect || "cline"),
    el("td", {}, s.mode),
    el("td", { class: "num" }, s.calls),
    el("td", { class: "num" + (s.awaiting_approval ? " waiting" : "") }, s.awaiting_approval),
    el("td", { class: "num", title: new Date(s.last_used_at).toLocaleString() }, ago(s.last_used_at)),
    el("td", {}, box));
}

// ago says how long ago a time was, roughly.
function ago(t) {
  const s = Math.max(0, (Date.now() - Date.parse(t)) / 1000);
  if (s < 60) return Math.round(s) + " s ago";
  if (s < 3600) return Math.round(s / 60) + " min ago";
  if (s < 86400) return Math.round(s / 3600) + " h ago";
  return new Date(t).toLocaleDateString();
}
