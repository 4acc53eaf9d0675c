// POST /messages with Accept text/event-stream: the message's events as
// they happen, the last one (message.finished) carrying the whole answer.

import { ServerError } from './errors.js';
import type { Transport } from './http.js';
import { SSEParser } from './sse.js';
import type { Event, MessageResponse } from './types.js';

/** runStreamed posts msg, hands each event to onEvent and returns the answer message.finished carries. */
export async function runStreamed(t: Transport, path: string, msg: unknown, onEvent: (ev: Event) => void, signal?: AbortSignal): Promise<MessageResponse> {
  const res = await t.open('POST', path, { body: msg, signal, headers: { Accept: 'text/event-stream' } });
  if (!(res.headers.get('Content-Type') ?? '').startsWith('text/event-stream')) {
    return (await res.json()) as MessageResponse; // a shape toolgate does not stream (OpenAI's) is answered as JSON
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
        if (ev.type === 'message.finished' && ev.response !== undefined) return ev.response;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  throw new ServerError('internal', 'the message stream ended before message.finished', res.status);
}
