// toolgate console: a page over the public HTTP API and nothing else.
// Everything from the server is shown with textContent, never as HTML:
// tool output is untrusted (a file can hold a <script>).
"use strict";

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "toolgate.token";
const SESSION_KEY = "toolgate.session";

const state = {
  token: sessionStorage.getItem(TOKEN_KEY) || "",
  session: sessionStorage.getItem(SESSION_KEY) || "default",
  tools: [],
  // One event stream per watched session: the current one (where posts
  // go) and those ticked in the session list.
  streams: new Map(), // session id -> {ctl: AbortController, lastEventId, live}
  extra: new Set(),   // further sessions whose events are shown
  cards: new Map(),   // session id + "\n" + tool_use_id -> timeline card
  metricsTimer: 0,
  todosSeen: 0,      // todos.updated events received
  soonTimer: 0,
};

// ---- HTTP ------------------------------------------------------------

class APIError extends Error {
  constructor(status, body) {
    super((body && body.error && body.error.message) || "HTTP " + status);
    this.status = status;
  }
}

// pollHeader marks the reads the console makes by itself on a timer: the
// server logs them at debug level when they succeed, so that an open tab
// does not fill its request log (server/mw_front.go).
const pollHeader = "X-Toolgate-Poll";

async function api(method, path, body, poll) {
  const headers = { Authorization: "Bearer " + state.token };
  if (poll) headers[pollHeader] = "1";
  const init = { method, headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = text; }
  if (!res.ok) {
    if (res.status === 401) setStatus("token refused", "bad");
    throw new APIError(res.status, data);
  }
  return data;
}

// poll is a read made on a timer (see pollHeader).
function poll(path) {
  return api("GET", path, undefined, true);
}

// ---- helpers ----------------------------------------------------------

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) {
    if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

function setStatus(text, kind) {
  const s = $("status");
  s.textContent = text;
  s.className = "status " + (kind || "off");
}

function setStream(text, kind) {
  const s = $("stream");
  s.textContent = text;
  s.className = "status " + (kind || "off");
}

function showResult(value) {
  const r = $("result");
  r.classList.remove("muted");
  r.textContent = typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

function newToolUseID() {
  const b = new Uint8Array(9);
  crypto.getRandomValues(b);
  return "toolu_console_" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function resultText(result) {
  if (!result || !Array.isArray(result.content)) return "";
  return result.content.map((c) => {
    if (c.type === "text") return c.text;
    if (c.type === "image" && c.source) return "[image " + c.source.media_type + "]";
    return JSON.stringify(c);
  }).join("\n");
}

// resultImages renders a result's image blocks (browser_action's
// screenshots, read_file's images) as <img> elements.
function resultImages(result) {
  if (!result || !Array.isArray(result.content)) return [];
  return result.content
    .filter((c) => c.type === "image" && c.source && c.source.type === "base64" && /^image\/(png|jpeg|gif|webp)$/.test(c.source.media_type))
    .map((c) => el("img", { class: "shot", alt: "screenshot", src: "data:" + c.source.media_type + ";base64," + c.source.data }));
}

// ---- connecting --------------------------------------------------------

async function connect() {
  if (!state.token) {
    setStatus("not connected");
    return;
  }
  setStatus("connecting…");
  try {
    const data = await api("GET", "/v1/tools");
    state.tools = data.tools || [];
    setStatus("connected", "on");
    renderTools();
    openStreams();
    loadProgress(state.session);
    refreshMetrics();
    refreshAudit();
    refreshSessions();
    refreshInbox();
    refreshCharts();
    refreshJobs();
    refreshPorts();
  } catch (e) {
    if (e.status !== 401) setStatus(e.message, "bad");
  }
}

function renderTools() {
  const ul = $("tools");
  ul.replaceChildren();
  for (const t of state.tools) {
    ul.append(el("li", {}, el("button", { type: "button", "data-tool": t.name, title: t.description, onclick: () => pickTool(t.name) }, t.name)));
  }
}

// ---- tool form from JSON Schema ---------------------------------------

function pickTool(name) {
  const tool = state.tools.find((t) => t.name === name);
  if (!tool) return;
  for (const b of $("tools").querySelectorAll("button")) b.classList.toggle("selected", b.dataset.tool === name);
  $("tool-title").textContent = tool.name;
  $("tool-desc").textContent = tool.description || "";
  const schema = tool.input_schema || {};
  $("schema").textContent = JSON.stringify(schema, null, 2);
  $("schema-box").hidden = false;
  const fields = $("fields");
  fields.replaceChildren();
  const required = new Set(schema.required || []);
  for (const [prop, spec] of Object.entries(schema.properties || {})) {
    fields.append(fieldFor(prop, spec || {}, required.has(prop)));
  }
  const form = $("tool-form");
  form.dataset.tool = name;
  form.hidden = false;
  $("message").value = JSON.stringify({ role: "assistant", content: [{ type: "tool_use", id: newToolUseID(), name, input: {} }] }, null, 2);
}

function schemaType(spec) {
  const t = Array.isArray(spec.type) ? spec.type.find((x) => x !== "null") : spec.type;
  return t || "string";
}

function fieldFor(prop, spec, required) {
  const id = "f-" + prop;
  const type = schemaType(spec);
  let input;
  if (Array.isArray(spec.enum)) {
    input = el("select", { id }, el("option", { value: "" }, ""), ...spec.enum.filter((v) => v !== null).map((v) => el("option", { value: String(v) }, String(v))));
  } else if (type === "boolean") {
    input = el("input", { id, type: "checkbox" });
  } else if (type === "integer" || type === "number") {
    input = el("input", { id, type: "number", step: type === "integer" ? "1" : "any" });
  } else if (type === "string" && !/^(content|diff|text|body)$/.test(prop)) {
    input = el("input", { id, type: "text", spellcheck: "false" });
  } else {
    input = el("textarea", { id, rows: type === "string" ? "6" : "3", spellcheck: "false",
      placeholder: type === "string" ? "" : "JSON " + type });
  }
  input.dataset.prop = prop;
  input.dataset.type = type;
  if (required) input.required = true;
  return el("div", { class: "field" },
    el("label", { for: id }, prop, required ? el("span", { class: "req" }, " *") : null, el("span", { class: "muted" }, "  " + type)),
    spec.description ? el("span", { class: "hint" }, spec.description) : null,
    input);
}

function formInput() {
  const input = {};
  for (const f of $("fields").querySelectorAll("[data-prop]")) {
    const { prop, type } = f.dataset;
    if (type === "boolean") {
      if (f.checked) input[prop] = true;
      continue;
    }
    const v = f.value;
    if (v === "" && !f.required) continue;
    if (type === "integer" || type === "number") input[prop] = Number(v);
    else if (type === "string") input[prop] = v;
    else input[prop] = JSON.parse(v);
  }
  return input;
}

async function runTool(ev) {
  ev.preventDefault();
  const name = $("tool-form").dataset.tool;
  let input;
  try {
    input = formInput();
  } catch (e) {
    showResult("input is not valid JSON: " + e.message);
    return;
  }
  await postMessage({ role: "assistant", content: [{ type: "tool_use", id: newToolUseID(), name, input }] });
}

async function postWholeMessage(ev) {
  ev.preventDefault();
  let msg;
  try {
    msg = JSON.parse($("message").value);
  } catch (e) {
    showResult("the message is not valid JSON: " + e.message);
    return;
  }
  await postMessage(msg);
  // A fresh id, so posting again is a new call rather than a duplicate.
  for (const b of (msg.content || [])) if (b.type === "tool_use") b.id = newToolUseID();
  $("message").value = JSON.stringify(msg, null, 2);
}

async function postMessage(msg) {
  showResult("running…");
  try {
    const res = await api("POST", "/v1/sessions/" + encodeURIComponent(state.session) + "/messages", msg);
    const results = (res.message && res.message.content) || [];
    const texts = results.map((r) => (r.is_error ? "[error] " : "") + resultText(r));
    showResult(texts.join("\n---\n") || res);
    for (const r of results) $("result").append(...resultImages(r));
  } catch (e) {
    showResult("request failed: " + e.message);
  }
  refreshMetrics();
}

// ---- the timeline --------------------------------------------------------

function renderEvent(ev, sid) {
  if (ev.type === "port.listening" || ev.type === "port.closed") {
    if (sid === state.session) refreshPorts();
    return;
  }
  if (ev.type === "task.progress") {
    if (sid === state.session) showProgress(ev.task_progress || "");
    return;
  }
  if (ev.type === "todos.updated") {
    if (sid !== state.session) return;
    state.todosSeen++;
    showTodos(ev.todos || []);
    return;
  }
  if (!ev.tool_use_id) {
    if (ev.type === "message.finished") {
      const n = ev.response && ev.response.calls ? ev.response.calls.length : 0;
      const li = el("li", { class: "ev message", "data-session": sid, "data-kind": "message" }, el("div", { class: "head" },
        el("span", { class: "name" }, "message finished"),
        el("span", { class: "sess", title: sid }, shortSession(sid)),
        el("span", { class: "meta" }, n + " call" + (n === 1 ? "" : "s") + " · " + (ev.message_id || ""))));
      addToTimeline(li);
      applyFilter(li);
    }
    return;
  }
  const card = cardFor(ev, sid);
  if (ev.call) updateHead(card, ev.call);
  switch (ev.type) {
    case "tool.output":
      outputPre(card).textContent += ev.chunk || "";
      break;
    case "tool.awaiting_approval":
      showApproval(card, ev);
      refreshSoon();
      break;
    case "tool.started":
      closeApproval(card, "approved or allowed");
      break;
    case "tool.finished":
      closeApproval(card, null);
      showFinished(card, ev);
      refreshMetrics();
      refreshSoon();
      break;
  }
  applyFilter(card);
  const tl = $("timeline");
  tl.scrollTop = tl.scrollHeight;
}

function addToTimeline(node) {
  $("timeline").append(node);
}

// shortSession is a session id short enough for a badge.
function shortSession(sid) {
  return sid.length > 12 ? sid.slice(0, 12) + "…" : sid;
}

function cardFor(ev, sid) {
  const key = sid + "\n" + ev.tool_use_id;
  let card = state.cards.get(key);
  if (card) return card;
  const name = (ev.call && ev.call.name) || "call";
  card = el("li", { class: "ev call", "data-id": ev.tool_use_id, "data-session": sid },
    el("div", { class: "head" },
      el("span", { class: "name" }, name),
      el("span", { class: "state" }, ""),
      el("span", { class: "sess", title: sid }, shortSession(sid)),
      el("span", { class: "id" }, ev.tool_use_id),
      el("span", { class: "meta" }, "")));
  state.cards.set(key, card);
  addToTimeline(card);
  return card;
}

function updateHead(card, call) {
  card.querySelector(".name").textContent = call.name || "call";
  const label = call.status || call.state || "";
  card.querySelector(".state").textContent = label;
  card.classList.toggle("awaiting", call.state === "awaiting_approval");
  if (call.status) card.classList.add(call.status);
  if (call.state === "done") card.querySelector(".meta").textContent = (call.duration_ms || 0).toFixed(1) + " ms";
}

function outputPre(card) {
  let pre = card.querySelector("pre.output");
  if (!pre) {
    pre = el("pre", { class: "output" });
    card.append(pre);
  }
  return pre;
}

function showFinished(card, ev) {
  if (ev.call && ev.call.error) {
    card.append(el("div", { class: "error" }, ev.call.error.code + ": " + ev.call.error.message));
  }
  const text = resultText(ev.result);
  if (text && !card.querySelector("pre.output")) {
    card.append(el("pre", { class: "result" }, text.length > 4000 ? text.slice(0, 4000) + "\n…" : text));
  }
  card.append(...resultImages(ev.result));
}

// refreshSoon refreshes, once shortly after a burst of events, the views a
// call's progress changes: the session list, the inbox, the charts and
// the audit log (each also refreshes on its own timer).
function refreshSoon() {
  clearTimeout(state.soonTimer);
  state.soonTimer = setTimeout(() => {
    refreshSessions();
    refreshInbox();
    refreshCharts();
    refreshAuditIfLive();
    refreshJobs();
  }, 300);
}

// ---- the task checklist ----------------------------------------------------

// showProgress renders the model's markdown checklist ("- [x] done",
// "- [ ] to do"; other lines as notes), as text only.
function showProgress(text) {
  const items = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const m = /^\s*[-*]\s+\[([ xX])\]\s*(.*)$/.exec(line);
    if (m) {
      const done = m[1] !== " ";
      const box = el("input", { type: "checkbox", disabled: "" });
      box.checked = done;
      items.push(el("li", { class: done ? "done" : "todo" }, box, " ", m[2]));
    } else {
      items.push(el("li", { class: "note" }, line.trim()));
    }
  }
  $("progress").replaceChildren(...items);
  $("progress-box").hidden = items.length === 0;
}

// showTodos renders the list the model keeps with Claude Code's TodoWrite
// ({content, status: pending | in_progress | completed, activeForm}), as
// Claude Code shows it: completed items struck through, the item in
// progress marked with what is being done. Text only.
function showTodos(todos) {
  const items = todos.map((t) => {
    const box = el("input", { type: "checkbox", disabled: "" });
    box.checked = t.status === "completed";
    const li = el("li", { class: t.status || "pending" }, box, " ", t.content || "");
    if (t.status === "in_progress" && t.activeForm) li.append(" ", el("span", { class: "active" }, "(" + t.activeForm + ")"));
    return li;
  });
  $("todos").replaceChildren(...items);
  $("todos-box").hidden = items.length === 0;
}

async function loadProgress(id) {
  // A todos.updated event that arrives while the session is being read
  // is newer than what the read returns.
  const seen = state.todosSeen;
  try {
    const s = await api("GET", "/v1/sessions/" + encodeURIComponent(id));
    if (id !== state.session) return;
    showProgress(s.task_progress || "");
    if (seen === state.todosSeen) showTodos(s.todos || []);
  } catch (_) { showProgress(""); }
}

// ---- wiring -----------------------------------------------------------------

function watchSession(id) {
  state.session = id || "default";
  sessionStorage.setItem(SESSION_KEY, state.session);
  $("session").value = state.session;
  showProgress("");
  showTodos([]);
  if (state.token) { openStreams(); loadProgress(state.session); refreshSessions(); refreshJobs(); refreshPorts(); }
}

async function createSession() {
  try {
    const s = await api("POST", "/v1/sessions", { mode: "act" });
    watchSession(s.id);
  } catch (e) {
    showResult("could not create a session: " + e.message);
  }
}

function init() {
  $("session").value = state.session;
  $("login").addEventListener("submit", (ev) => {
    ev.preventDefault();
    state.token = $("token").value.trim();
    $("token").value = "";
    sessionStorage.setItem(TOKEN_KEY, state.token);
    connect();
  });
  $("logout").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    state.token = "";
    closeStreams();
    setStatus("not connected");
    setStream("stream closed");
    $("tools").replaceChildren();
  });
  $("session-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    watchSession($("session").value.trim());
  });
  $("new-session").addEventListener("click", createSession);
  $("tool-form").addEventListener("submit", runTool);
  $("message-form").addEventListener("submit", postWholeMessage);
  $("clear").addEventListener("click", () => { state.cards.clear(); $("timeline").replaceChildren(); });
  // Polling stops while the tab is in the background; back in front, the
  // views catch up at once.
  document.addEventListener("visibilitychange", () => { if (!document.hidden && state.token) refreshSoon(); });
  connect();
  refreshMetrics();
}

document.addEventListener("DOMContentLoaded", init);
