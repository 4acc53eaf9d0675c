// A session's events as an async iterator that outlives its connection.
// toolgate numbers a session's events 1, 2, 3... and replays those after
// Last-Event-ID from a bounded window, so a dropped stream resumes where
// it stopped. The iterator also skips any id it already yielded: a stream
// opened without Last-Event-ID (a fresh EventSource ticket) replays the
// window, and those repeats must not reach the caller.

import { AuthenticationError, BadRequestError, NotFoundError, PermissionDeniedError, ServerError } from './errors.js';
import { sleep, type Transport } from './http.js';
import { SSEParser } from './sse.js';
import type { Event, EventType } from './types.js';

/** How events() connects and resumes. */
export interface EventsOptions {
  /** Yield only events after this id; 0 (the default) starts at the oldest event the session's window still holds. */
  after?: number;
  /** Ends the iteration (the loop just stops). */
  signal?: AbortSignal;
  /**
   * fetch streams with the token (Node, workers, service workers);
   * eventsource uses the browser's EventSource on a ticket from
   * POST /v1/sse-tickets. The default is eventsource where a global
   * EventSource exists, fetch elsewhere.
   */
  transport?: 'fetch' | 'eventsource';
  /** The first wait before reconnecting, in milliseconds (doubling up to maxRetryMs); default 250. */
  retryMs?: number;
  /** The longest wait between reconnects; default 5000. */
  maxRetryMs?: number;
}

/** Every event type toolgate sends, for EventSource, which delivers named events only to their own listeners. */
export const EVENT_TYPES: readonly EventType[] = [
  'tool.queued',
  'tool.partial',
  'tool.awaiting_approval',
  'tool.awaiting_input',
  'tool.started',
  'tool.output',
  'tool.finished',
  'message.finished',
  'todos.updated',
  'task.progress',
];

/** sessionEvents picks the transport and yields each event once, in id order. */
export function sessionEvents(t: Transport, sid: string, opts: EventsOptions = {}): AsyncGenerator<Event, void, undefined> {
  const es = (globalThis as { EventSource?: typeof EventSource }).EventSource;
  const transport = opts.transport ?? (es !== undefined ? 'eventsource' : 'fetch');
  if (transport === 'eventsource') {
    if (es === undefined) throw new Error('transport eventsource: no EventSource in this runtime');
    return eventSourceEvents(t, sid, opts, es);
  }
  return fetchEvents(t, sid, opts);
}

// fatal reports errors that no reconnect will cure: a bad token, a
// missing scope, a refused request.
function fatal(err: unknown): boolean {
  return err instanceof AuthenticationError || err instanceof PermissionDeniedError || err instanceof BadRequestError;
}

function eventsPath(sid: string): string {
  return `/v1/sessions/${encodeURIComponent(sid)}/events`;
}

function parseEvent(data: string): Event {
  try {
    return JSON.parse(data) as Event;
  } catch {
    throw new ServerError('internal', `an event's data is not JSON: ${data.slice(0, 120)}`, 200);
  }
}

// Backoff doubles the wait between failed connections and starts over
// once one succeeds.
class Backoff {
  private wait: number;
  constructor(
    private readonly first: number,
    private readonly max: number,
  ) {
    this.wait = first;
  }
  next(): number {
    const w = this.wait;
    this.wait = Math.min(this.wait * 2, this.max);
    return w;
  }
  reset(): void {
    this.wait = this.first;
  }
}

async function* fetchEvents(t: Transport, sid: string, opts: EventsOptions): AsyncGenerator<Event, void, undefined> {
  let last = opts.after ?? 0;
  let opened = false;
  const backoff = new Backoff(opts.retryMs ?? 250, opts.maxRetryMs ?? 5000);
  const ctrl = new AbortController();
  const stop = () => ctrl.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', stop, { once: true });
  if (opts.signal?.aborted) stop();
  try {
    while (!ctrl.signal.aborted) {
      let res: Response;
      try {
        const headers: Record<string, string> = { Accept: 'text/event-stream' };
        if (last > 0) headers['Last-Event-ID'] = String(last);
        res = await t.open('GET', eventsPath(sid), { headers, signal: ctrl.signal });
      } catch (err) {
        if (ctrl.signal.aborted) return;
        // The session was there and is gone: it ended, and so do its events.
        if (opened && err instanceof NotFoundError) return;
        if (!opened && err instanceof NotFoundError) throw err;
        if (fatal(err)) throw err;
        await sleep(backoff.next(), ctrl.signal);
        continue;
      }
      opened = true;
      backoff.reset();
      const parser = new SSEParser();
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          let chunk: ReadableStreamReadResult<string>;
          try {
            chunk = await reader.read();
          } catch {
            break; // the connection dropped mid-stream: reconnect below
          }
          if (chunk.done) break;
          for (const msg of parser.push(chunk.value)) {
            const ev = parseEvent(msg.data);
            if (ev.id <= last) continue;
            last = ev.id;
            yield ev;
          }
        }
      } finally {
        reader.cancel().catch(() => {});
      }
      if (ctrl.signal.aborted) return;
      await sleep(backoff.next(), ctrl.signal);
    }
  } finally {
    opts.signal?.removeEventListener('abort', stop);
    ctrl.abort();
  }
}

async function* eventSourceEvents(t: Transport, sid: string, opts: EventsOptions, ES: typeof EventSource): AsyncGenerator<Event, void, undefined> {
  let last = opts.after ?? 0;
  const queue: Event[] = [];
  let failure: unknown;
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const backoff = new Backoff(opts.retryMs ?? 250, opts.maxRetryMs ?? 5000);
  const ctrl = new AbortController();
  const stop = () => {
    ctrl.abort(opts.signal?.reason);
    notify();
  };
  opts.signal?.addEventListener('abort', stop, { once: true });
  if (opts.signal?.aborted) stop();
  let es: EventSource | undefined;
  let opened = false;

  const onEvent = (e: MessageEvent<string>) => {
    try {
      queue.push(parseEvent(e.data));
    } catch (err) {
      failure = err;
    }
    notify();
  };
  // open mints a ticket and starts an EventSource on it. The browser
  // reconnects a dropped EventSource by itself, sending Last-Event-ID; it
  // gives up (readyState CLOSED) on an answer other than 200, such as an
  // expired ticket's 401, and then a new ticket is needed.
  const open = async (): Promise<void> => {
    while (!ctrl.signal.aborted) {
      try {
        const tk = await t.request<{ ticket: string }>('POST', '/v1/sse-tickets', { body: { session: sid }, signal: ctrl.signal });
        const src = new ES(t.url(eventsPath(sid), { ticket: tk.ticket }));
        for (const type of EVENT_TYPES) src.addEventListener(type, onEvent as EventListener);
        src.onopen = () => {
          opened = true;
          backoff.reset();
        };
        src.onerror = () => {
          if (src.readyState === ES.CLOSED && es === src && !ctrl.signal.aborted) {
            src.close();
            sleep(backoff.next(), ctrl.signal).then(open, () => {});
          }
        };
        es = src;
        if (ctrl.signal.aborted) src.close(); // the iteration ended while the ticket was on its way
        return;
      } catch (err) {
        if (ctrl.signal.aborted) return;
        if (err instanceof NotFoundError || fatal(err)) {
          if (opened && err instanceof NotFoundError) ended = true;
          else failure = err;
          notify();
          return;
        }
        await sleep(backoff.next(), ctrl.signal);
      }
    }
  };
  const opening = open();
  try {
    for (;;) {
      const ev = queue.shift();
      if (ev !== undefined) {
        if (ev.id <= last) continue;
        last = ev.id;
        yield ev;
        continue;
      }
      if (failure !== undefined) throw failure;
      if (ended || ctrl.signal.aborted) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    opts.signal?.removeEventListener('abort', stop);
    ctrl.abort();
    await opening;
    es?.close();
  }
}
