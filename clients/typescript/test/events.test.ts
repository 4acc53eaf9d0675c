// The event iterator across a dropped connection: the proxy in front of
// toolgate cuts the stream and refuses connections while a message runs
// (posted straight to toolgate), then lets them through again. Every event
// must arrive once, in order, those published while cut included.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Event, Session } from '@toolgate/client';
import { client, cut, deadline, direct, restore } from './env.js';

const readA = (id: string) => ({ role: 'assistant' as const, content: [{ type: 'tool_use' as const, id, name: 'read_file', input: { path: 'a.txt' } }] });

// next reads events off it until one matches, keeping them all.
async function until(it: AsyncIterator<Event>, got: Event[], match: (ev: Event) => boolean): Promise<void> {
  for (;;) {
    const r = await it.next();
    if (r.done) throw new Error(`the stream ended; got ${got.map((e) => e.type)}`);
    got.push(r.value);
    if (match(r.value)) return;
  }
}

const finishes = (mid: string) => (ev: Event) => ev.type === 'message.finished' && ev.message_id === mid;

function assertOnceInOrder(got: Event[]) {
  const ids = got.map((e) => e.id);
  for (let i = 1; i < ids.length; i++) {
    assert.equal(ids[i], ids[i - 1] + 1, `event ids ${ids}: each once, in order, none missing`);
  }
}

test('events resume after the connection drops, losing and repeating nothing', async () => {
  const s: Session = await client().sessions.create({ dialect: 'cline' });
  const signal = deadline();
  const it = s.events({ signal, transport: 'fetch', retryMs: 50, maxRetryMs: 200 })[Symbol.asyncIterator]();
  const got: Event[] = [];
  const first = await direct().postMessage(s.id, readA('toolu_e1'));
  await until(it, got, finishes(first.message_id));

  await cut(); // the stream drops; reconnects are refused
  const missed = await direct().postMessage(s.id, readA('toolu_e2')); // published while the client is away
  await restore();
  await until(it, got, finishes(missed.message_id));

  const last = await direct().postMessage(s.id, readA('toolu_e3'));
  await until(it, got, finishes(last.message_id));
  await it.return?.();

  assert.equal(got[0].id, 1);
  assertOnceInOrder(got);
  assert.deepEqual(
    got.filter((e) => e.type === 'tool.finished').map((e) => e.tool_use_id),
    ['toolu_e1', 'toolu_e2', 'toolu_e3'],
  );
  await direct().sessions.end(s.id);
});

test('events after an id start after it', async () => {
  const s = await client().sessions.create({ dialect: 'cline' });
  await s.runMessage(readA('toolu_a1'));
  const got: Event[] = [];
  const it = s.events({ after: 2, signal: deadline(), transport: 'fetch' })[Symbol.asyncIterator]();
  const m = await s.postMessage(readA('toolu_a2'));
  await until(it, got, finishes(m.message_id));
  await it.return?.();
  assert.equal(got[0].id, 3);
  assertOnceInOrder(got);
  await s.end();
});

test('the iteration ends when the session ends', async () => {
  const s = await client().sessions.create({ dialect: 'cline' });
  await s.runMessage(readA('toolu_end'));
  const types: string[] = [];
  const signal = deadline();
  const reading = (async () => {
    for await (const ev of s.events({ signal, transport: 'fetch', retryMs: 50 })) {
      types.push(ev.type);
      if (ev.type === 'message.finished') await s.end();
    }
  })();
  await reading;
  assert.ok(!signal.aborted, 'the iteration ran until the deadline instead of ending with the session');
  assert.equal(types.at(-1), 'message.finished');
});
