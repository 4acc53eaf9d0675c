// The client against a real toolgate (started by client_test.go): tools in
// each format, a message in each SDK shape, typed errors, approvals,
// questions, cancel and interrupt. Every wait is bounded by a deadline.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  AuthenticationError,
  BadRequestError,
  Client,
  ConflictError,
  APIConnectionError,
  NotFoundError,
  ValidationError,
  ToolgateError,
  type ApprovalRequest,
  type Event,
  type Session,
} from '@toolgate/client';
import { client, deadline, fileText, text, token, url } from './env.js';

const readA = (id: string) => ({ type: 'tool_use' as const, id, name: 'read_file', input: { path: 'a.txt' } });

// waitFor reads the session's events until one matches.
async function waitFor(s: Session, match: (ev: Event) => boolean, signal = deadline()): Promise<Event> {
  for await (const ev of s.events({ signal, transport: 'fetch' })) {
    if (match(ev)) return ev;
  }
  throw new Error('the event stream ended first');
}

describe('tools', () => {
  test('anthropic format: Messages API tools entries', async () => {
    const tools = await client().tools({ dialect: 'cline', format: 'anthropic', signal: deadline() });
    const read = tools.find((t) => t.name === 'read_file');
    assert.ok(read !== undefined && 'input_schema' in read, 'read_file is listed with its schema');
    assert.equal(read.input_schema.type, 'object');
  });
  test('openai format: Chat Completions function tools', async () => {
    const tools = await client().tools({ dialect: 'cline', format: 'openai', signal: deadline() });
    const read = tools.find((t) => t.function.name === 'read_file');
    assert.equal(read?.type, 'function');
    assert.ok(read?.function.parameters);
  });
  test('openai-responses format: Responses function tools', async () => {
    const tools = await client().tools({ dialect: 'cline', format: 'openai-responses', signal: deadline() });
    const read = tools.find((t) => t.name === 'read_file');
    assert.equal(read?.type, 'function');
    assert.equal(typeof read?.strict, 'boolean');
  });
  test("a session's pool follows its rules", async () => {
    const s = await client().sessions.create({ dialect: 'cline', permissions: { deny: ['read_file'] } });
    try {
      const names = (await s.tools({ format: 'anthropic' })).map((t) => t.name);
      assert.ok(!names.includes('read_file'), `a bare deny hides read_file: ${names}`);
      assert.ok(names.includes('list_files'));
    } finally {
      await s.end();
    }
  });
});

describe('runMessage', () => {
  test('an Anthropic Message gets the user message of tool_results', async () => {
    const s = await client().sessions.create({ dialect: 'cline' });
    const next = await s.runMessage({ id: 'msg_a', role: 'assistant', content: [{ type: 'text', text: 'reading' }, readA('toolu_a1')] });
    assert.equal(next.role, 'user');
    assert.equal(next.content.length, 1);
    assert.equal(next.content[0].tool_use_id, 'toolu_a1');
    assert.equal(next.content[0].is_error, false);
    assert.match(text(next.content[0].content), new RegExp(fileText));
    await s.end();
  });
  test('a Chat Completions message gets role tool messages', async () => {
    const s = await client().sessions.create({ dialect: 'cline' });
    const msgs = await s.runMessage({
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }],
    });
    assert.equal(msgs.length, 1);
    assert.equal(msgs[0].role, 'tool');
    assert.equal(msgs[0].tool_call_id, 'call_1');
    assert.match(msgs[0].content, new RegExp(fileText));
    await s.end();
  });
  test('Responses output items get function_call_output items', async () => {
    const s = await client().sessions.create({ dialect: 'cline' });
    const out = await s.runMessage([
      { type: 'reasoning', id: 'rs_1', summary: [] },
      { type: 'function_call', id: 'fc_1', call_id: 'call_r1', name: 'read_file', arguments: '{"path":"a.txt"}', status: 'completed' },
    ]);
    assert.equal(out.length, 1);
    const item = out[0] as { type: string; call_id: string; output: string };
    assert.equal(item.type, 'function_call_output');
    assert.equal(item.call_id, 'call_r1');
    assert.match(item.output, new RegExp(fileText));
    await s.end();
  });
  test("an image result's input_image parts carry the detail the openai SDK's type requires", async () => {
    const s = await client().sessions.create({ dialect: 'cline' });
    const out = await s.runMessage([{ type: 'function_call', call_id: 'call_img', name: 'read_file', arguments: '{"path":"pixel.png"}' }]);
    const item = out[0] as { output: string | Array<{ type: string; image_url?: string; detail?: string }> };
    assert.ok(Array.isArray(item.output), `an image comes as parts: ${JSON.stringify(item.output)}`);
    const image = item.output.find((p) => p.type === 'input_image');
    assert.match(image?.image_url ?? '', /^data:image\/png;base64,/);
    assert.equal(image?.detail, 'auto');
    await s.end();
  });
  test('runTool runs one call by name, in the default session or in a session', async () => {
    const c = client();
    const inDefault = await c.runTool('read_file', { path: 'a.txt' }, { signal: deadline() });
    assert.match(inDefault.call.tool_use_id, /^toolu_[0-9a-f]{24}$/);
    assert.equal(inDefault.call.status, 'succeeded');
    assert.match(text(inDefault.result.content), new RegExp(fileText));
    const s = await c.sessions.create({ dialect: 'cline' });
    const inSession = await s.runTool('read_file', { path: 'a.txt' }, { id: 'toolu_named', signal: deadline() });
    assert.equal(inSession.call.tool_use_id, 'toolu_named');
    assert.match(text(inSession.result.content), new RegExp(fileText));
    await s.end();
  });
  test('onEvent sees the message run, then the same answer', async () => {
    const s = await client().sessions.create({ dialect: 'cline' });
    const seen: string[] = [];
    const res = await s.postMessage({ role: 'assistant', content: [readA('toolu_ev')] }, { onEvent: (ev) => seen.push(ev.type), signal: deadline() });
    assert.deepEqual(seen, ['tool.queued', 'tool.started', 'tool.finished', 'message.finished']);
    assert.ok('message' in res && res.calls[0].status === 'succeeded');
    await s.end();
  });
  test('a failing tool is a result with its code, not an exception', async () => {
    const s = await client().sessions.create({ dialect: 'cline' });
    const res = await s.postMessage({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_nf', name: 'read_file', input: { path: 'missing.txt' } }] });
    assert.ok('message' in res);
    assert.equal(res.message.content[0].is_error, true);
    assert.equal(res.calls[0].error?.code, 'not_found');
    await s.end();
  });
});

describe('errors', () => {
  test('a wrong token is an AuthenticationError with code unauthorized', async () => {
    const bad = new Client({ baseUrl: url, token: token + 'x' });
    const err = await bad.sessions.create().catch((e: unknown) => e);
    assert.ok(err instanceof AuthenticationError, String(err));
    assert.equal(err.code, 'unauthorized');
    assert.equal(err.status, 401);
  });
  test('a missing session is a NotFoundError', async () => {
    const err = await client().session('ses_nope').get().catch((e: unknown) => e);
    assert.ok(err instanceof NotFoundError, String(err));
    assert.equal(err.code, 'not_found');
  });
  test('an invalid session request is a ValidationError naming the field', async () => {
    const err = await client()
      .sessions.create({ mode: 'sideways' as 'act' })
      .catch((e: unknown) => e);
    assert.ok(err instanceof ValidationError, String(err));
    assert.ok(err instanceof BadRequestError && err instanceof ToolgateError);
    assert.equal(err.code, 'validation_failed');
    assert.equal(err.status, 400);
    assert.match(err.fields.mode ?? '', /must be one of/);
  });
  test("a missing session's events are a NotFoundError, not endless reconnects", async () => {
    const err = await (async () => {
      for await (const ev of client().session('ses_nope').events({ signal: deadline(), transport: 'fetch' })) void ev;
    })().catch((e: unknown) => e);
    assert.ok(err instanceof NotFoundError, String(err));
  });
  test('deciding a call that waits for nothing is a ConflictError', async () => {
    const s = await client().sessions.create({ dialect: 'cline' });
    await s.runMessage({ role: 'assistant', content: [readA('toolu_done')] });
    const err = await s.decide('toolu_done', 'approve').catch((e: unknown) => e);
    assert.ok(err instanceof ConflictError, String(err));
    assert.equal(err.code, 'conflict');
    await s.end();
  });
  test('no server is an APIConnectionError', async () => {
    const gone = new Client({ baseUrl: 'http://127.0.0.1:9', token });
    const err = await gone.health().catch((e: unknown) => e);
    assert.ok(err instanceof APIConnectionError, String(err));
    assert.equal(err.code, 'connection');
  });
});

describe('approvals and questions', () => {
  test('onApproval approves; the call runs', async () => {
    const s = await client().sessions.create({ dialect: 'cline', permissions: { ask: ['read_file'] } });
    const asked: ApprovalRequest[] = [];
    const sub = s.onApproval(
      (req) => {
        asked.push(req);
        return 'approve';
      },
      { signal: deadline(), transport: 'fetch' },
    );
    const next = await s.runMessage({ role: 'assistant', content: [readA('toolu_ok')] }, { signal: deadline() });
    sub.stop();
    await sub.closed;
    assert.equal(next.content[0].is_error, false);
    assert.equal(asked.length, 1);
    assert.equal(asked[0].name, 'read_file');
    assert.deepEqual(asked[0].approval.preview.paths, ['a.txt']);
    await s.end();
  });
  test('the inbox rejects with feedback; the call ends denied', async () => {
    const s = await client().sessions.create({ dialect: 'cline', permissions: { ask: ['read_file'] } });
    const pending = s.runMessage({ role: 'assistant', content: [readA('toolu_no')] }, { signal: deadline() });
    for await (const req of s.inbox({ signal: deadline(), transport: 'fetch' })) {
      assert.equal(req.kind, 'approval');
      if (req.kind === 'approval') await req.reject('not that file');
      break;
    }
    const next = await pending;
    assert.equal(next.content[0].is_error, true);
    assert.match(text(next.content[0].content), /not that file/);
    await s.end();
  });
  test('a decided approval is not offered again by a later inbox', async () => {
    const s = await client().sessions.create({ dialect: 'cline', permissions: { ask: ['read_file'] } });
    const sub = s.onApproval(() => 'approve', { signal: deadline(), transport: 'fetch' });
    await s.runMessage({ role: 'assistant', content: [readA('toolu_once')] }, { signal: deadline() });
    sub.stop();
    await sub.closed;
    // The window still holds toolu_once's tool.awaiting_approval event.
    const pending = s.runMessage({ role: 'assistant', content: [readA('toolu_twice')] }, { signal: deadline() });
    for await (const req of s.inbox({ signal: deadline(), transport: 'fetch' })) {
      assert.equal(req.toolUseId, 'toolu_twice');
      if (req.kind === 'approval') await req.approve();
      break;
    }
    assert.equal((await pending).content[0].is_error, false);
    await s.end();
  });
  test('a call waiting for a person holds no request open (Node fetch gives up after 5 minutes without headers)', async () => {
    let open = 0;
    let idle: (() => void) | undefined;
    const counting: typeof fetch = async (input, init) => {
      if (init?.method !== 'POST' || !String(input).endsWith('/messages')) return fetch(input, init);
      open++;
      try {
        return await fetch(input, init); // resolves once the answer's headers came
      } finally {
        open--;
        if (open === 0) idle?.();
      }
    };
    const noneOpen = () => new Promise<void>((resolve) => (open === 0 ? resolve() : (idle = resolve)));
    const c = new Client({ baseUrl: url, token, fetch: counting });
    const s = await c.sessions.create({ dialect: 'cline', permissions: { ask: ['read_file'] } });
    // The person decides only once no request waits for an answer.
    const sub = s.onApproval(async () => (await noneOpen(), 'approve' as const), { signal: deadline(), transport: 'fetch' });
    const next = await s.runMessage({ role: 'assistant', content: [readA('toolu_wait')] }, { signal: deadline() });
    sub.stop();
    await sub.closed;
    assert.equal(next.content[0].tool_use_id, 'toolu_wait');
    assert.equal(next.content[0].is_error, false);
    assert.match(text(next.content[0].content), new RegExp(fileText));
    await s.end();
  });
  test("runMessage's own onApproval decides its calls while it runs", async () => {
    const s = await client().sessions.create({ dialect: 'cline', permissions: { ask: ['read_file'] } });
    const asked: string[] = [];
    const next = await s.runMessage(
      { role: 'assistant', content: [readA('toolu_own')] },
      { onApproval: (req) => (asked.push(req.toolUseId), 'approve' as const), signal: deadline() },
    );
    assert.deepEqual(asked, ['toolu_own']);
    assert.equal(next.content[0].is_error, false);
    await s.end();
  });
  test('an approval handler that throws rejects the call instead of leaving it waiting', async () => {
    const s = await client().sessions.create({ dialect: 'cline', permissions: { ask: ['read_file'] } });
    const errors: unknown[] = [];
    const sub = s.onApproval(
      () => {
        throw new Error('no one to ask');
      },
      { onError: (e) => errors.push(e), signal: deadline(), transport: 'fetch' },
    );
    const next = await s.runMessage({ role: 'assistant', content: [readA('toolu_boom')] }, { signal: deadline() });
    sub.stop();
    await sub.closed;
    assert.equal(next.content[0].is_error, true);
    assert.match(text(next.content[0].content), /the approval handler failed: Error: no one to ask/);
    assert.equal(errors.length, 1);
    await s.end();
  });
  test("the client's onApproval decides for every runMessage; Node reads TOOLGATE_URL and TOOLGATE_TOKEN", async () => {
    const asked: string[] = [];
    const c = new Client({ onApproval: (req) => (asked.push(req.toolUseId), 'approve' as const) });
    assert.equal(c.transport.baseUrl, url);
    const s = await c.sessions.create({ dialect: 'cline', permissions: { ask: ['read_file'] } });
    const next = await s.runMessage({ role: 'assistant', content: [readA('toolu_dflt')] }, { signal: deadline() });
    assert.deepEqual(asked, ['toolu_dflt']);
    assert.equal(next.content[0].is_error, false);
    await s.end();
  });
  test('onQuestion answers ask_followup_question', async () => {
    const s = await client().sessions.create({ dialect: 'cline' });
    const sub = s.onQuestion((q) => (q.input.options?.includes('blue') ? 'blue' : 'none'), { signal: deadline(), transport: 'fetch' });
    const next = await s.runMessage(
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_q', name: 'ask_followup_question', input: { question: 'Which colour?', options: ['red', 'blue'] } }] },
      { signal: deadline() },
    );
    sub.stop();
    await sub.closed;
    assert.match(text(next.content[0].content), /<answer>\s*blue\s*<\/answer>/);
    await s.end();
  });
});

describe('cancel and interrupt', () => {
  const sleepCall = (id: string) => ({ type: 'tool_use' as const, id, name: 'execute_command', input: { command: 'sleep 30', requires_approval: false } });

  test('cancel ends a running call cancelled', async () => {
    const s = await client().sessions.create({ dialect: 'cline', permissions: { allow: ['execute_command'] } });
    const pending = s.postMessage({ role: 'assistant', content: [sleepCall('toolu_sleep')] }, { signal: deadline() });
    await waitFor(s, (ev) => ev.type === 'tool.started' && ev.tool_use_id === 'toolu_sleep');
    await s.cancel('toolu_sleep');
    const res = await pending;
    assert.ok('message' in res);
    assert.equal(res.calls[0].status, 'cancelled');
    assert.equal(res.calls[0].error?.code, 'cancelled');
    await s.end();
  });
  test('interrupt cancels the running call and the queued one', async () => {
    const s = await client().sessions.create({ dialect: 'cline', permissions: { allow: ['execute_command'] } });
    const pending = s.postMessage({ role: 'assistant', content: [sleepCall('toolu_i1'), sleepCall('toolu_i2')] }, { signal: deadline() });
    await waitFor(s, (ev) => ev.type === 'tool.started' && ev.tool_use_id === 'toolu_i1');
    const got = await s.interrupt();
    assert.equal(got.cancelled + got.finishing, 2);
    const res = await pending;
    assert.ok('message' in res);
    assert.deepEqual(
      res.calls.map((c) => c.status),
      ['cancelled', 'cancelled'],
    );
    await s.end();
  });
});
