// The steps browser_test.go drives, on window. The page counts the
// EventSources it makes, to show the client used the browser's own.
import { Client, ConflictError } from '/toolgate.browser.js';

const NativeEventSource = window.EventSource;
window.eventSources = 0;
window.sources = [];
window.EventSource = class extends NativeEventSource {
  constructor(...args) {
    super(...args);
    window.eventSources++;
    window.sources.push(this);
  }
};

const readA = (id) => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'read_file', input: { path: 'a.txt' } }] });

window.setup = (baseUrl, token) => {
  window.tg = new Client({ baseUrl, token });
  return true;
};

// call runs one read_file call and returns the tool_result.
window.call = async () => {
  const s = await window.tg.sessions.create({ dialect: 'cline' });
  const next = await s.runMessage(readA('toolu_page_1'));
  await s.end();
  return next.content[0];
};

// approval approves a read the session asks about, from onApproval.
window.approval = async () => {
  const s = await window.tg.sessions.create({ dialect: 'cline', permissions: { ask: ['read_file'] } });
  const asked = [];
  const sub = s.onApproval((req) => {
    asked.push({ name: req.name, paths: req.approval.preview.paths ?? [] });
    return 'approve';
  });
  const next = await s.runMessage(readA('toolu_page_2'));
  sub.stop();
  await sub.closed;
  let conflict = '';
  try {
    await s.decide('toolu_page_2', 'approve');
  } catch (e) {
    conflict = e instanceof ConflictError ? e.code : String(e);
  }
  await s.end();
  return { result: next.content[0], asked, conflict };
};

// watch starts reading a new session's events into window.got.
window.watch = async () => {
  const s = await window.tg.sessions.create({ dialect: 'cline' });
  window.got = [];
  window.ctrl = new AbortController();
  (async () => {
    for await (const ev of s.events({ signal: window.ctrl.signal })) {
      window.got.push({ id: ev.id, type: ev.type, message_id: ev.message_id ?? '' });
    }
  })().catch((e) => (window.streamError = String(e)));
  return s.id;
};

document.getElementById('status').textContent = 'ready';
