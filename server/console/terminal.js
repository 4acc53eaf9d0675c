// toolgate console: the current session's background jobs
// (GET /v1/sessions/{sid}/jobs) and a terminal panel for one of them. The
// panel reads the job's output from a byte offset, on from each answer's
// next_offset, so nothing is shown twice or lost; it interprets the few
// control sequences a shell's line editor uses (carriage return,
// backspace, cursor moves, erase in line) and drops the rest (colours,
// titles, modes). Keystrokes go to the stdin route in order, one request
// at a time; the panel's size goes there as rows and cols when it opens.
// Output is shown with textContent only. Uses api(), el(), state from
// console.js.
"use strict";

const jobsView = { timer: 0, open: null };

async function refreshJobs() {
  clearTimeout(jobsView.timer);
  if (!state.token) return;
  jobsView.timer = setTimeout(refreshJobs, 5000);
  if (document.hidden) return;
  const sid = state.session;
  let data;
  try {
    data = await poll("/v1/sessions/" + encodeURIComponent(sid) + "/jobs");
  } catch (_) {
    data = { jobs: [] };
  }
  if (sid !== state.session) return;
  $("jobs").querySelector("tbody").replaceChildren(...(data.jobs || []).map(jobRow));
  $("jobs-empty").hidden = (data.jobs || []).length > 0;
  if (jobsView.open && jobsView.open.sid !== sid) closeTerminal();
}

function jobRow(j) {
  const size = j.terminal ? j.terminal.cols + "x" + j.terminal.rows : "pipes";
  const open = el("button", { type: "button", class: "small", "data-job": j.id,
    onclick: () => openTerminal(state.session, j) }, j.terminal ? "terminal" : "output");
  return el("tr", { "data-job": j.id },
    el("td", {}, j.id),
    el("td", { class: "cmd", title: j.command }, j.command),
    el("td", {}, j.state + (j.exit_code !== undefined ? " (" + j.exit_code + ")" : "")),
    el("td", {}, size),
    el("td", { class: "num" }, j.output_bytes),
    el("td", {}, open));
}

// ---- the panel ---------------------------------------------------------

function jobPath(t) {
  return "/v1/sessions/" + encodeURIComponent(t.sid) + "/jobs/" + encodeURIComponent(t.job.id);
}

function openTerminal(sid, job) {
  closeTerminal();
  const t = { sid, job, offset: 0, closed: false, screen: newScreen(!job.terminal), queue: "", sending: false };
  jobsView.open = t;
  $("term-title").textContent = job.id + "  " + job.command;
  $("term-box").hidden = false;
  const pre = $("term");
  pre.textContent = "";
  pre.classList.toggle("input", job.stdin && job.state === "running");
  pre.focus();
  if (job.terminal && job.stdin && job.state === "running") {
    const { rows, cols } = termSize(pre);
    api("POST", jobPath(t) + "/stdin", { rows, cols }).catch((e) => termNote(t, "resize: " + e.message));
  }
  readLoop(t);
}

function closeTerminal() {
  if (jobsView.open) jobsView.open.closed = true;
  jobsView.open = null;
  $("term-box").hidden = true;
}

// termSize is how many characters fit the panel.
function termSize(pre) {
  const probe = el("span", {}, "MMMMMMMMMM");
  pre.append(probe);
  const r = probe.getBoundingClientRect();
  probe.remove();
  const cw = r.width / 10 || 7, lh = r.height || 15;
  const clamp = (n) => Math.max(1, Math.min(1000, Math.floor(n)));
  return { rows: clamp(pre.clientHeight / lh), cols: clamp((pre.clientWidth - 12) / cw) };
}

async function readLoop(t) {
  let delay = 100;
  while (!t.closed) {
    let out;
    try {
      out = await api("GET", jobPath(t) + "/output?offset=" + t.offset);
    } catch (e) {
      termNote(t, "output: " + e.message);
      return;
    }
    if (t.closed) return;
    t.offset = out.next_offset;
    if (out.output) {
      feed(t.screen, out.output);
      renderScreen(t);
      delay = 50;
      continue; // more may be waiting: read again at once
    }
    if (out.job.state !== "running") {
      $("term").classList.remove("input");
      termNote(t, "[job " + out.job.state + (out.job.exit_code !== undefined ? ", exit " + out.job.exit_code : "") + "]");
      return;
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 1000);
  }
}

function termNote(t, text) {
  if (t.closed) return;
  $("term-note").textContent = text;
}

function renderScreen(t) {
  const pre = $("term");
  pre.textContent = t.screen.lines.join("\n");
  pre.scrollTop = pre.scrollHeight;
}

// ---- keys to bytes -------------------------------------------------------

const keyBytes = { Enter: "\r", Backspace: "\x7f", Tab: "\t", Escape: "\x1b", Delete: "\x1b[3~",
  ArrowUp: "\x1b[A", ArrowDown: "\x1b[B", ArrowRight: "\x1b[C", ArrowLeft: "\x1b[D", Home: "\x1b[H", End: "\x1b[F" };

function keyToBytes(e) {
  if (e.metaKey) return "";
  if (e.ctrlKey && !e.altKey && e.key.length === 1) {
    const c = e.key.toUpperCase().charCodeAt(0);
    return c >= 64 && c <= 95 ? String.fromCharCode(c - 64) : ""; // Ctrl-C is \x03
  }
  if (keyBytes[e.key]) return keyBytes[e.key];
  return e.key.length === 1 ? (e.altKey ? "\x1b" : "") + e.key : "";
}

function sendInput(text) {
  const t = jobsView.open;
  if (!t || !text || !$("term").classList.contains("input")) return;
  t.queue += text;
  flushInput(t);
}

// flushInput sends what was typed, one request at a time so the bytes
// arrive in the order typed.
async function flushInput(t) {
  if (t.sending || !t.queue || t.closed) return;
  t.sending = true;
  const text = t.queue;
  t.queue = "";
  try {
    await api("POST", jobPath(t) + "/stdin", { text });
  } catch (e) {
    termNote(t, "stdin: " + e.message);
  }
  t.sending = false;
  flushInput(t);
}

// ---- a minimal screen ------------------------------------------------------

// newScreen is lines of text and a cursor. Output on pipes has no
// terminal turning "\n" into "\r\n", so there a newline also returns.
function newScreen(pipes) {
  return { lines: [""], row: 0, col: 0, rest: "", pipes };
}

const maxLines = 2000;

function feed(s, text) {
  text = s.rest + text;
  s.rest = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === "\x1b") {
      const n = escapeLength(text, i);
      if (n === 0) { s.rest = text.slice(i); return; } // split across reads
      applyEscape(s, text.slice(i, i + n));
      i += n;
      continue;
    }
    i++;
    if (ch === "\r") s.col = 0;
    else if (ch === "\n") newline(s);
    else if (ch === "\b") s.col = Math.max(0, s.col - 1);
    else if (ch === "\t") put(s, " ".repeat(8 - (s.col % 8)));
    else if (ch >= " " && ch !== "\x7f") put(s, ch);
  }
}

function newline(s) {
  s.row++;
  if (s.row >= s.lines.length) s.lines.push("");
  if (s.pipes) s.col = 0;
  if (s.lines.length > maxLines) {
    const drop = s.lines.length - maxLines;
    s.lines.splice(0, drop);
    s.row -= drop;
  }
}

// put writes over the line from the cursor, as a terminal does.
function put(s, text) {
  let line = s.lines[s.row];
  if (line.length < s.col) line += " ".repeat(s.col - line.length);
  s.lines[s.row] = line.slice(0, s.col) + text + line.slice(s.col + text.length);
  s.col += text.length;
}

// escapeLength is the length of the escape sequence at i, 0 when it is
// not complete yet.
function escapeLength(text, i) {
  if (i + 1 >= text.length) return 0;
  const c = text[i + 1];
  if (c === "[") {
    for (let j = i + 2; j < text.length; j++) {
      const code = text.charCodeAt(j);
      if (code >= 0x40 && code <= 0x7e) return j - i + 1;
    }
    return 0;
  }
  if (c === "]") { // OSC: ends with BEL or ESC \
    for (let j = i + 2; j < text.length; j++) {
      if (text[j] === "\x07") return j - i + 1;
      if (text[j] === "\x1b" && j + 1 < text.length && text[j + 1] === "\\") return j - i + 2;
    }
    return 0;
  }
  if ("()*+".includes(c)) return i + 2 < text.length ? 3 : 0; // character set
  return 2;
}

function applyEscape(s, seq) {
  if (seq[1] !== "[") return;
  const final = seq[seq.length - 1];
  const body = seq.slice(2, -1);
  if (/^[?>=<]/.test(body)) return; // private modes: nothing to show
  const args = body.split(";").map((x) => parseInt(x, 10));
  const n = args[0] > 0 ? args[0] : 1;
  const line = s.lines[s.row];
  switch (final) {
    case "C": s.col += n; break;
    case "D": s.col = Math.max(0, s.col - n); break;
    case "A": s.row = Math.max(0, s.row - n); break;
    case "B": for (let k = 0; k < n; k++) newline(s); break;
    case "G": s.col = n - 1; break;
    case "K":
      if (!args[0]) s.lines[s.row] = line.slice(0, s.col);
      else if (args[0] === 1) s.lines[s.row] = " ".repeat(Math.min(s.col, line.length)) + line.slice(s.col);
      else s.lines[s.row] = "";
      break;
    case "P": s.lines[s.row] = line.slice(0, s.col) + line.slice(s.col + n); break;
    case "@": s.lines[s.row] = line.slice(0, s.col) + " ".repeat(n) + line.slice(s.col); break;
    case "J":
      if (args[0] === 2 || args[0] === 3) { s.lines = [""]; s.row = 0; s.col = 0; }
      else if (!args[0]) { s.lines[s.row] = line.slice(0, s.col); s.lines.length = s.row + 1; }
      break;
  }
}

function initTerminal() {
  const pre = $("term");
  pre.addEventListener("keydown", (e) => {
    const b = keyToBytes(e);
    if (!b) return;
    e.preventDefault();
    sendInput(b);
  });
  pre.addEventListener("paste", (e) => {
    e.preventDefault();
    sendInput((e.clipboardData.getData("text") || "").replace(/\r?\n/g, "\r"));
  });
  $("term-close").addEventListener("click", closeTerminal);
  $("jobs-refresh").addEventListener("click", refreshJobs);
}

document.addEventListener("DOMContentLoaded", initTerminal);
