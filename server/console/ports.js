// toolgate console: the current session's listening ports
// (GET /v1/sessions/{sid}/ports), each a link to its preview. The list is
// read again when the session changes and on each port.listening or
// port.closed event. A click gets a fresh one-use ticket (a new tab cannot
// send the bearer token) and opens the preview URL with it in a new tab,
// without an opener: the preview is served from toolgate's own origin.
// Where the sandbox gives sessions no network of their own, the route's
// message is shown instead. Uses api(), el(), state from console.js.
"use strict";

const portsView = { seq: 0 };

async function refreshPorts() {
  if (!state.token) return;
  const sid = state.session, seq = ++portsView.seq;
  let data, note = "";
  try {
    data = await poll("/v1/sessions/" + encodeURIComponent(sid) + "/ports");
  } catch (e) {
    data = { ports: [] };
    note = e.message;
  }
  if (seq !== portsView.seq) return; // a later read answers instead
  const ports = data.ports || [];
  $("ports").replaceChildren(...ports.map((p) => portItem(sid, p)));
  $("ports-note").textContent = note || (ports.length ? "" : "no listening ports in this session");
}

function portItem(sid, p) {
  const a = el("a", { href: p.url, target: "_blank", rel: "noopener", "data-port": p.port,
    onclick: (ev) => { ev.preventDefault(); openPreview(sid, p.url, ev.currentTarget); } }, String(p.port));
  return el("li", { "data-port": p.port }, a,
    p.address ? el("span", { class: "muted small-text" }, " " + p.address) : null);
}

// previewURL is the port's preview URL with a fresh ticket for sid.
async function previewURL(sid, url) {
  const t = await api("POST", "/v1/sse-tickets", { session: sid });
  return url + (url.includes("?") ? "&" : "?") + "ticket=" + encodeURIComponent(t.ticket);
}

async function openPreview(sid, url, link) {
  try {
    window.open(await previewURL(sid, url), "_blank", "noopener");
  } catch (e) {
    link.title = "could not open the preview: " + e.message;
    $("ports-note").textContent = link.title;
  }
}

function initPorts() {
  $("ports-refresh").addEventListener("click", refreshPorts);
}

document.addEventListener("DOMContentLoaded", initPorts);
