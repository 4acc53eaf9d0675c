// POST /v1/sessions/{sid}/messages, the route that runs a model's tool
// calls, in the two ways the client uses it.
//
// Without onEvent, in Node: toolgate answers when every call has ended,
// which may be minutes after the request when a call waits for a person,
// and Node's fetch gives up on an answer whose headers take longer than
// five minutes (undici's headersTimeout). So the request carries Prefer
// respond-async: toolgate answers 202 as soon as a call waits, the client
// follows the session's events to the message's message.finished, then
// posts the message again, which toolgate answers from its results (a
// repeated tool_use id is never run twice), in the message's own shape.
// toolgate honours Prefer for Anthropic-shaped messages; OpenAI's shapes
// are answered when their calls end, whatever the header. Browsers have no
// such timeout, and toolgate's CORS does not admit the Prefer header, so
// there the request simply waits.
//
// With onEvent: Accept text/event-stream, the message's events as they
// happen, the last one (message.finished) carrying the whole answer.

import { ServerError } from './errors.js';
import type { EventsOptions } from './events.js';
import type { Transport } from './http.js';
import { SSEParser } from './sse.js';
import type { AnyMessageResponse, Event, MessageResponse } from './types.js';

/** What running a message needs besides HTTP: the session's events. */
export interface MessageHost {
  transport: Transport;
  events(opts: EventsOptions): AsyncIterable<Event>;
  /** Whether to ask for a 202 while a call waits for a person (see above). */
  respondAsync: boolean;
}

/** postMessage runs msg at path and returns toolgate's answer once every call has ended. */
export async function postMessage(host: MessageHost, path: string, msg: unknown, signal?: AbortSignal): Promise<AnyMessageResponse> {
  if (!host.respondAsync) return host.transport.request('POST', path, { body: msg, signal });
  const res = await host.transport.open('POST', path, { body: msg, signal, headers: { Prefer: 'respond-async' } });
  if (res.status !== 202) return (await res.json()) as AnyMessageResponse;
  const pending = (await res.json()) as { message_id: string };
  await messageFinished(host, pending.message_id, signal);
  return host.transport.request('POST', path, { body: msg, signal });
}

// messageFinished waits for the message's message.finished event. The
// stream starts at the window's oldest event, so an end that came before
// the stream opened is not missed.
async function messageFinished(host: MessageHost, messageId: string, signal?: AbortSignal): Promise<void> {
  for await (const ev of host.events({ signal })) {
    if (ev.type === 'message.finished' && ev.message_id === messageId) return;
  }
  signal?.throwIfAborted();
  throw new ServerError('unavailable', `the session's events ended before message ${messageId} finished`, 0);
}

/** runStreamed posts msg, hands each event to onEvent and returns the answer message.finished carries. */
export async function runStreamed(t: Transport, path: string, msg: unknown, onEvent: (ev: Event) => void, signal?: AbortSignal): Promise<AnyMessageResponse> {
  const res = await t.open('POST', path, { body: msg, signal, headers: { Accept: 'text/event-stream' } });
  if (!(res.headers.get('Content-Type') ?? '').startsWith('text/event-stream')) {
    return (await res.json()) as AnyMessageResponse; // OpenAI's shapes are answered as JSON, not streamed
  }
  const parser = new SSEParser();
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const m of parser.push(value)) {
        const ev = JSON.parse(m.data) as Event;
        onEvent(ev);
        if (ev.type === 'message.finished' && ev.response !== undefined) return ev.response as MessageResponse;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  throw new ServerError('internal', 'the message stream ended before message.finished', res.status);
}

/** callIds lists the ids of a message's tool calls, in any of the shapes runMessage takes. */
export function callIds(msg: unknown): string[] {
  const ids: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'string' && v !== '') ids.push(v);
  };
  const m = msg as { content?: unknown; tool_calls?: unknown; choices?: unknown; output?: unknown };
  const items: unknown[] = Array.isArray(msg) ? msg : Array.isArray(m.output) ? m.output : [];
  for (const it of items) {
    const i = it as { call_id?: unknown; callId?: unknown };
    add(i.call_id ?? i.callId);
  }
  if (Array.isArray(m.content)) for (const b of m.content as { type?: string; id?: unknown }[]) if (b.type === 'tool_use') add(b.id);
  const chat = Array.isArray(m.choices) ? (m.choices[0] as { message?: { tool_calls?: unknown } })?.message?.tool_calls : m.tool_calls;
  if (Array.isArray(chat)) for (const c of chat as { id?: unknown }[]) add(c.id);
  return ids;
}

/** freshToolUseId makes a tool_use id no other call has (crypto.getRandomValues works outside secure contexts too). */
export function freshToolUseId(): string {
  const b = crypto.getRandomValues(new Uint8Array(12));
  return 'toolu_' + Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
