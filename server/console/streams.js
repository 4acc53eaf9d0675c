// toolgate console: the live event streams, one per watched session (the
// current one and those ticked in the session list), read with fetch so
// the token stays in a header; each event goes to console.js's timeline.
// Uses state, APIError, setStream, renderEvent and renderFilterSessions.
"use strict";

// openStreams opens an event stream for the current session and each
// other watched one, and closes (dropping their cards) those no longer
// watched. A browser holds six connections to one server: the session
// list caps the watched sessions (sessions.js).
function openStreams() {
  const want = new Set([state.session, ...state.extra]);
  for (const [sid, st] of state.streams) {
    if (want.has(sid)) continue;
    st.ctl.abort();
    state.streams.delete(sid);
    dropCards(sid);
  }
  for (const sid of want) {
    if (state.streams.has(sid)) continue;
    const st = { ctl: new AbortController(), lastEventId: 0, live: false };
    state.streams.set(sid, st);
    streamLoop(sid, st);
  }
  const cur = state.streams.get(state.session);
  if (cur && cur.live) setStream("live: " + state.session, "on");
  renderFilterSessions();
}

function closeStreams() {
  for (const st of state.streams.values()) st.ctl.abort();
  state.streams.clear();
}

// dropCards removes a session's cards from the timeline.
function dropCards(sid) {
  for (const [key, card] of state.cards) {
    if (card.dataset.session === sid) {
      card.remove();
      state.cards.delete(key);
    }
  }
  for (const li of $("timeline").querySelectorAll('li[data-session]')) if (li.dataset.session === sid) li.remove();
}

async function streamLoop(sid, st) {
  const signal = st.ctl.signal;
  const mine = (text, kind) => { if (sid === state.session) setStream(text, kind); };
  let delay = 500;
  while (!signal.aborted) {
    try {
      await readStream(sid, st, mine);
      delay = 500;
    } catch (e) {
      if (signal.aborted) return;
      st.live = false;
      mine(e.status === 404 ? "no such session" : "stream lost: " + e.message, "bad");
      if (e.status === 401 || e.status === 404) return;
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 8000);
  }
}

async function readStream(sid, st, mine) {
  const headers = { Authorization: "Bearer " + state.token, Accept: "text/event-stream" };
  if (st.lastEventId > 0) headers["Last-Event-ID"] = String(st.lastEventId);
  const res = await fetch("/v1/sessions/" + encodeURIComponent(sid) + "/events", { headers, signal: st.ctl.signal });
  if (!res.ok) throw new APIError(res.status, await res.json().catch(() => null));
  st.live = true;
  mine("live: " + sid, "on");
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      st.live = false;
      mine("stream ended");
      return;
    }
    buf += value.replace(/\r\n?/g, "\n");
    let cut;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      handleSSEBlock(block, sid, st);
    }
  }
}

function handleSSEBlock(block, sid, st) {
  let data = "";
  for (const line of block.split("\n")) {
    if (line.startsWith("data:")) data += (data ? "\n" : "") + line.slice(5).replace(/^ /, "");
  }
  if (!data) return; // a comment or keep-alive
  let ev;
  try { ev = JSON.parse(data); } catch (_) { return; }
  if (typeof ev.id === "number" && ev.id > st.lastEventId) st.lastEventId = ev.id;
  renderEvent(ev, sid);
}
