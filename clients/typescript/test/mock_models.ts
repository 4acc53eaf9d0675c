// A scripted model behind the Anthropic Messages API and OpenAI Chat
// Completions routes, for the example agent loops. Each conversation runs
// the same three turns: read a.txt, write its first line into notes.md,
// answer. A turn checks what the client sent back (the tool results toolgate
// produced) and answers 400 when it is wrong, so the SDK throws.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The mock's address and what it was sent. */
export interface MockModel {
  url: string;
  requests: unknown[];
  close(): Promise<void>;
}

const wanted = ['read_file', 'write_to_file'];

/** A script turn: the tool call to make, or the answer. */
type Step = { tool: string; input: Record<string, unknown> } | { answer: string };

// step decides the next turn from the results so far (texts by call id).
function step(turn: number, results: Map<string, { text: string; isError: boolean }>): Step | string {
  if (turn === 0) return { tool: 'read_file', input: { path: 'a.txt' } };
  if (turn === 1) {
    const r = results.get('call_mock_0');
    if (r === undefined || r.isError || !r.text.includes('hello from the workspace')) return `turn 2: no good result for call_mock_0: ${JSON.stringify(r)}`;
    return { tool: 'write_to_file', input: { path: 'notes.md', content: 'Summary: hello from the workspace\n' } };
  }
  const r = results.get('call_mock_1');
  if (r === undefined) return 'turn 3: no result for call_mock_1';
  return { answer: r.isError ? `The write failed: ${r.text}` : 'notes.md now holds the summary.' };
}

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: { text?: string }) => c.text ?? '').join('');
  return '';
}

function anthropic(body: { model: string; tools?: { name: string }[]; messages: { role: string; content: unknown }[] }) {
  const names = (body.tools ?? []).map((t) => t.name);
  if (!wanted.every((n) => names.includes(n))) return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: `tools lack ${wanted}: ${names}` } } };
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const m of body.messages) {
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const b of m.content as { type: string; tool_use_id: string; content: unknown; is_error?: boolean }[]) {
      if (b.type === 'tool_result') results.set(b.tool_use_id, { text: text(b.content), isError: b.is_error === true });
    }
  }
  const turn = body.messages.filter((m) => m.role === 'assistant').length;
  const s = step(turn, results);
  if (typeof s === 'string') return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: s } } };
  const content = 'answer' in s ? [{ type: 'text', text: s.answer }] : [{ type: 'tool_use', id: `call_mock_${turn}`, name: s.tool, input: s.input }];
  return {
    status: 200,
    json: {
      id: `msg_mock_${turn}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content,
      stop_reason: 'answer' in s ? 'end_turn' : 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 10 },
    },
  };
}

function openai(body: { model: string; tools?: { function: { name: string } }[]; messages: { role: string; content: unknown; tool_call_id?: string }[] }) {
  const names = (body.tools ?? []).map((t) => t.function.name);
  if (!wanted.every((n) => names.includes(n))) return { status: 400, json: { error: { message: `tools lack ${wanted}: ${names}`, type: 'invalid_request_error' } } };
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const m of body.messages) {
    if (m.role === 'tool' && m.tool_call_id !== undefined) results.set(m.tool_call_id, { text: text(m.content), isError: false });
  }
  const turn = body.messages.filter((m) => m.role === 'assistant').length;
  const s = step(turn, results);
  if (typeof s === 'string') return { status: 400, json: { error: { message: s, type: 'invalid_request_error' } } };
  const message =
    'answer' in s
      ? { role: 'assistant', content: s.answer, refusal: null }
      : { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: `call_mock_${turn}`, type: 'function', function: { name: s.tool, arguments: JSON.stringify(s.input) } }] };
  return {
    status: 200,
    json: {
      id: `chatcmpl_mock_${turn}`,
      object: 'chat.completion',
      created: 0,
      model: body.model,
      choices: [{ index: 0, message, finish_reason: 'answer' in s ? 'stop' : 'tool_calls', logprobs: null }],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** startMockModel serves POST /v1/messages (Anthropic) and POST /v1/chat/completions (OpenAI) on a loopback port. */
export async function startMockModel(): Promise<MockModel> {
  const requests: unknown[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    readBody(req).then((raw) => {
      const body = JSON.parse(raw);
      requests.push(body);
      const route = req.method === 'POST' && req.url === '/v1/messages' ? anthropic : req.method === 'POST' && req.url === '/v1/chat/completions' ? openai : undefined;
      const out = route === undefined ? { status: 404, json: { error: { message: `no route ${req.method} ${req.url}` } } } : route(body);
      res.writeHead(out.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(out.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
