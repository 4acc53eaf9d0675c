// The one place this package talks HTTP: every route goes through
// Transport.request (JSON) or Transport.open (a response whose body the
// caller reads, such as an event stream), so the token, the base URL and
// the mapping of refusals onto error classes live here only.

import { connectionError, errorFromBody } from './errors.js';
import { VERSION } from './version.js';

/** How to reach toolgate. */
export interface TransportOptions {
  /** toolgate's address; default $TOOLGATE_URL in Node, else http://127.0.0.1:7420. */
  baseUrl?: string;
  /** The bearer token (the server's, or a named token with the scopes the calls need); default $TOOLGATE_TOKEN in Node. */
  token?: string;
  /** A fetch to use instead of the global one (a proxy agent, a test double). */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * Whether runMessage asks toolgate for an early 202 while a call waits for
   * a person, and follows the session's events to the end (messages.ts
   * says why). Default: true in Node, false elsewhere (toolgate's CORS does
   * not admit the Prefer header).
   */
  respondAsync?: boolean;
}

/** Options every call takes. */
export interface RequestOptions {
  /** Aborts the request; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

interface SendOptions extends RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
}

/** Transport sends requests to one toolgate with one token. */
export class Transport {
  readonly baseUrl: string;
  private readonly token: string | undefined;
  private readonly fetchFn: typeof fetch;
  private readonly headers: Record<string, string>;

  constructor(opts: TransportOptions = {}) {
    this.baseUrl = (opts.baseUrl ?? env('TOOLGATE_URL') ?? 'http://127.0.0.1:7420').replace(/\/+$/, '');
    this.token = opts.token ?? env('TOOLGATE_TOKEN');
    // Bound to globalThis: a browser's fetch called as a method of another object throws.
    this.fetchFn = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.headers = { ...opts.headers };
  }

  /** url is the absolute URL of a path with its query (empty values left out). */
  url(path: string, query: SendOptions['query'] = {}): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (v !== undefined) q.set(k, String(v));
    }
    const s = q.toString();
    return this.baseUrl + path + (s ? '?' + s : '');
  }

  /** request sends a JSON request and decodes the JSON answer; undefined for 204. */
  async request<T>(method: string, path: string, opts: SendOptions = {}): Promise<T> {
    const res = await this.open(method, path, opts);
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** open sends a request and returns the response once it is 2xx; anything else is thrown as a ToolgateError. */
  async open(method: string, path: string, opts: SendOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'application/json', ...this.headers, ...opts.headers };
    if (this.token !== undefined) headers.Authorization = `Bearer ${this.token}`;
    if (!isBrowser()) headers['User-Agent'] = `toolgate-client-typescript/${VERSION}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    let res: Response;
    try {
      res = await this.fetchFn(this.url(path, opts.query), { method, headers, body, signal: opts.signal });
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      throw connectionError(err);
    }
    if (!res.ok) throw errorFromBody(res.status, await res.text().catch(() => ''));
    return res;
  }
}

// env reads an environment variable where there is one (Node); an empty
// value counts as unset.
function env(name: string): string | undefined {
  const v = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
  return v === '' ? undefined : v;
}

// A browser refuses to let scripts set User-Agent (and some throw on it).
function isBrowser(): boolean {
  return typeof (globalThis as { document?: unknown }).document !== 'undefined';
}

/** sleep waits ms milliseconds, or less when signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
