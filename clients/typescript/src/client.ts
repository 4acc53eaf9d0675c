// Client: every toolgate route a client program needs, by what it does.
// Routes about one session take the session (a Session, or its id) first;
// Session (session.ts) binds them to one session.

import { sessionEvents, type EventsOptions } from './events.js';
import { Transport, type RequestOptions, type TransportOptions } from './http.js';
import { inbox, subscribe, toDecision, type ApprovalRequest, type Decision, type HandlerOptions, type Pending, type QuestionRequest, type Subscription } from './inbox.js';
import { callIds, freshToolUseId, postMessage, runStreamed } from './messages.js';
import { Session } from './session.js';
import type {
  AgentsItemLike,
  AgentsOutputItem,
  AnthropicMessageLike,
  AnyMessageResponse,
  AnthropicTool,
  AssistantMessageLike,
  CallRecord,
  CallState,
  ChatCompletionLike,
  ChatMessageLike,
  ChatToolMessage,
  Dialect,
  Event,
  Job,
  MessageResponse,
  OpenAIChatTool,
  OpenAIResponsesTool,
  ResponseLike,
  ResponsesItemLike,
  ResponsesOutputItem,
  SessionInfo,
  SessionRequest,
  SSETicket,
  ToolInfo,
  ToolList,
  ToolResult,
  ToolResultMessage,
  ToolUse,
} from './types.js';

/** How to reach toolgate, and who decides the calls that wait for a person. */
export interface ClientOptions extends TransportOptions {
  /** Decides the calls awaiting approval of every runMessage that names no onApproval of its own. */
  onApproval?: ApprovalHandler;
  /** Answers the interactive calls of every runMessage that names no onQuestion of its own. */
  onQuestion?: QuestionHandler;
}

/** A session, or its id. */
export type SessionRef = string | { readonly id: string };

/** Which tool pool GET /v1/tools lists, and in which format. */
export interface ToolsOptions extends RequestOptions {
  /** The dialect's pool (cline when neither dialect nor session is given). */
  dialect?: Dialect;
  /** The session's pool: its dialect, mode and rules. */
  session?: SessionRef;
  /** Strict-mode definitions for the OpenAI formats. */
  strict?: boolean;
}

/** Options of runMessage and postMessage. */
export interface RunOptions extends RequestOptions {
  /** Receives the message's events as they happen (output chunks, approvals); Anthropic-shaped messages only. */
  onEvent?: (ev: Event) => void;
  /** Decides this message's calls that wait for approval, while it runs. */
  onApproval?: ApprovalHandler;
  /** Answers this message's interactive calls, while it runs. */
  onQuestion?: QuestionHandler;
}

/** What a handler of onApproval returns: a decision, or nothing when it called approve() or reject() itself. */
export type ApprovalHandler = (req: ApprovalRequest) => Decision | void | Promise<Decision | void>;
/** What a handler of onQuestion returns: the answer's text, or nothing when it called answer() or accept() itself. */
export type QuestionHandler = (req: QuestionRequest) => string | void | Promise<string | void>;

function sid(s: SessionRef): string {
  return encodeURIComponent(typeof s === 'string' ? s : s.id);
}

// withImageDetail gives each input_image part of a function call's output
// the detail "auto". The Responses API reads a missing detail as auto, but
// the openai SDK's type requires the field, and runMessage's answer goes
// back into the SDK as it is.
function withImageDetail<T>(item: T): T {
  const out = (item as { output?: unknown }).output;
  if (!Array.isArray(out)) return item;
  return { ...item, output: out.map((p: { type?: string; detail?: string }) => (p.type === 'input_image' && p.detail === undefined ? { ...p, detail: 'auto' } : p)) };
}

function isNode(): boolean {
  return typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === 'string';
}

function idOf(s: SessionRef): string {
  return typeof s === 'string' ? s : s.id;
}

/** Client talks to one toolgate server with one token. */
export class Client {
  /** The HTTP layer, for routes this class does not wrap. */
  readonly transport: Transport;
  /** Sessions: create, get, update, end. */
  readonly sessions: Sessions;

  private readonly respondAsync: boolean;
  private readonly defaults: Pick<ClientOptions, 'onApproval' | 'onQuestion'>;

  constructor(opts: ClientOptions = {}) {
    this.transport = new Transport(opts);
    this.sessions = new Sessions(this);
    this.respondAsync = opts.respondAsync ?? isNode();
    this.defaults = { onApproval: opts.onApproval, onQuestion: opts.onQuestion };
  }

  /** session binds an existing session's id to a Session without a request. */
  session(id: string): Session {
    return new Session(this, id);
  }

  /** health reports toolgate's liveness and sandbox (GET /healthz, no token needed). */
  health(opts: RequestOptions = {}): Promise<{ status: 'ok'; sandbox: Record<string, unknown> }> {
    return this.transport.request('GET', '/healthz', opts);
  }

  /**
   * tools lists a tool pool ready for a model SDK's `tools` parameter:
   * format anthropic for the Messages API, openai for Chat Completions,
   * openai-responses for the Responses API; toolgate's own shape without
   * a format.
   */
  tools(opts: ToolsOptions & { format: 'anthropic' }): Promise<AnthropicTool[]>;
  tools(opts: ToolsOptions & { format: 'openai' }): Promise<OpenAIChatTool[]>;
  tools(opts: ToolsOptions & { format: 'openai-responses' }): Promise<OpenAIResponsesTool[]>;
  tools(opts?: ToolsOptions & { format?: undefined }): Promise<ToolInfo[]>;
  async tools(opts: ToolsOptions & { format?: string } = {}): Promise<unknown[]> {
    return (await this.listTools(opts)).tools;
  }

  /** listTools is tools with the whole answer: the tools left out of a strict list, client-side tools, agent file errors. */
  listTools(opts: ToolsOptions & { format?: string } = {}): Promise<ToolList> {
    const { dialect, session, strict, format, signal } = opts;
    return this.transport.request('GET', '/v1/tools', {
      query: { dialect, format, strict, session: session === undefined ? undefined : idOf(session) },
      signal,
    });
  }

  /**
   * runMessage runs every tool call of an assistant message in the session
   * and returns what the model's SDK takes next: for an Anthropic Message
   * the user message of tool_result blocks; for a Chat Completions message
   * (or the whole ChatCompletion) the role "tool" messages; for Responses
   * API output items (or the whole Response) the items answering its calls.
   */
  runMessage<M extends ChatMessageLike | ChatCompletionLike>(session: SessionRef, msg: M, opts?: RunOptions): Promise<ChatToolMessage[]>;
  runMessage<M extends ReadonlyArray<AgentsItemLike>>(session: SessionRef, msg: M, opts?: RunOptions): Promise<AgentsOutputItem[]>;
  runMessage<M extends ResponseLike | ReadonlyArray<ResponsesItemLike>>(session: SessionRef, msg: M, opts?: RunOptions): Promise<ResponsesOutputItem[]>;
  runMessage<M extends AnthropicMessageLike>(session: SessionRef, msg: M, opts?: RunOptions): Promise<ToolResultMessage>;
  async runMessage(session: SessionRef, msg: AssistantMessageLike, opts: RunOptions = {}): Promise<unknown> {
    const res = await this.postMessage(session, msg, opts);
    if ('message' in res) return res.message;
    if ('messages' in res) return res.messages;
    return res.output.map(withImageDetail);
  }

  /** postMessage is runMessage with toolgate's whole answer: the message id and each call's record. */
  async postMessage<M extends AssistantMessageLike>(session: SessionRef, msg: M, opts: RunOptions = {}): Promise<AnyMessageResponse> {
    const path = `/v1/sessions/${sid(session)}/messages`;
    const subs = this.messageHandlers(session, msg, opts);
    try {
      if (opts.onEvent !== undefined) return await runStreamed(this.transport, path, msg, opts.onEvent, opts.signal);
      const host = { transport: this.transport, respondAsync: this.respondAsync, events: (o: EventsOptions) => this.events(session, o) };
      return await postMessage(host, path, msg, opts.signal);
    } finally {
      for (const sub of subs) sub.stop();
      await Promise.all(subs.map((sub) => sub.closed));
    }
  }

  // messageHandlers runs a message's own onApproval and onQuestion while
  // it runs, for its calls only (a shell_call's commands are id#1, #2...).
  private messageHandlers(session: SessionRef, msg: AssistantMessageLike, opts: RunOptions): Subscription[] {
    const ids = callIds(msg);
    const mine = (id: string) => ids.some((c) => id === c || id.startsWith(c + '#'));
    const subs: Subscription[] = [];
    const { onApproval = this.defaults.onApproval, onQuestion = this.defaults.onQuestion, signal } = opts;
    if (onApproval !== undefined) subs.push(this.onApproval(session, (req) => (mine(req.toolUseId) ? onApproval(req) : undefined), { signal }));
    if (onQuestion !== undefined) subs.push(this.onQuestion(session, (req) => (mine(req.toolUseId) ? onQuestion(req) : undefined), { signal }));
    return subs;
  }

  /** toolUse runs one tool_use block in the "default" session. */
  toolUse(block: ToolUse, opts: RequestOptions = {}): Promise<{ result: ToolResult; call: CallRecord }> {
    return this.transport.request('POST', '/v1/tool_use', { body: block, signal: opts.signal });
  }

  /** runTool runs one call by name: in opts.session, or in the "default" session; opts.id is its tool_use id (a fresh one when left out). */
  async runTool(name: string, input: Record<string, unknown> = {}, opts: RunOptions & { session?: SessionRef; id?: string } = {}): Promise<{ result: ToolResult; call: CallRecord }> {
    const block: ToolUse = { type: 'tool_use', id: opts.id ?? freshToolUseId(), name, input };
    if (opts.session === undefined) return this.toolUse(block, opts);
    const res = (await this.postMessage(opts.session, { role: 'assistant', content: [block] }, opts)) as MessageResponse;
    return { result: res.message.content[0], call: res.calls[0] };
  }

  /**
   * events yields every event of the session, each once and in order,
   * across dropped connections: it reconnects with Last-Event-ID and
   * skips what it already yielded. It ends when the session ends or
   * opts.signal aborts, or with `break`.
   */
  events(session: SessionRef, opts: EventsOptions = {}): AsyncGenerator<Event, void, undefined> {
    return sessionEvents(this.transport, idOf(session), opts);
  }

  /** inbox yields each call of the session that waits for a decision or an answer, once. */
  inbox(session: SessionRef, opts: EventsOptions = {}): AsyncGenerator<Pending, void, undefined> {
    return inbox(this.host(session), opts);
  }

  /**
   * onApproval calls handler for each call that waits for approval and
   * sends its decision. A handler that throws rejects the call (it must
   * not wait for a decision that will not come); the error goes to
   * opts.onError.
   */
  onApproval(session: SessionRef, handler: ApprovalHandler, opts: HandlerOptions = {}): Subscription {
    return subscribe(
      this.host(session),
      'approval',
      async (req) => {
        let d: Decision | void;
        try {
          d = await handler(req);
        } catch (err) {
          await req.reject(`the approval handler failed: ${err}`).catch(() => {});
          throw err;
        }
        if (d !== undefined) await this.decide(session, req.toolUseId, d);
      },
      opts,
    );
  }

  /** onQuestion calls handler for each interactive call (ask_followup_question, ...) and sends its answer; a handler that throws cancels the call. */
  onQuestion(session: SessionRef, handler: QuestionHandler, opts: HandlerOptions = {}): Subscription {
    return subscribe(
      this.host(session),
      'question',
      async (req) => {
        let text: string | void;
        try {
          text = await handler(req);
        } catch (err) {
          await this.cancel(session, req.toolUseId).catch(() => {});
          throw err;
        }
        if (text !== undefined) await this.answer(session, req.toolUseId, text);
      },
      opts,
    );
  }

  /** decide approves or rejects a call awaiting approval; ConflictError when it waits no more. */
  decide(session: SessionRef, toolUseId: string, decision: Decision, opts: RequestOptions = {}): Promise<{ tool_use_id: string; decision: string; remembered_rules?: string[] }> {
    return this.transport.request('POST', `/v1/sessions/${sid(session)}/calls/${encodeURIComponent(toolUseId)}/decision`, {
      body: toDecision(decision),
      signal: opts.signal,
    });
  }

  /** approve lets a call awaiting approval run; remember adds an allow rule for its exact shape. */
  approve(session: SessionRef, toolUseId: string, opts: RequestOptions & { remember?: boolean } = {}) {
    return this.decide(session, toolUseId, { decision: 'approve', remember: opts.remember }, opts);
  }

  /** reject ends a call awaiting approval denied, with feedback in its tool_result. */
  reject(session: SessionRef, toolUseId: string, feedback?: string, opts: RequestOptions = {}) {
    return this.decide(session, toolUseId, { decision: 'reject', feedback }, opts);
  }

  /** answer answers an interactive call with text, or {accept: true} for an acceptable one; ConflictError when it waits no more. */
  answer(session: SessionRef, toolUseId: string, answer: string | { accept: true }, opts: RequestOptions = {}): Promise<{ tool_use_id: string }> {
    return this.transport.request('POST', `/v1/sessions/${sid(session)}/calls/${encodeURIComponent(toolUseId)}/answer`, {
      body: typeof answer === 'string' ? { text: answer } : answer,
      signal: opts.signal,
    });
  }

  /** cancel stops one queued or running call; it ends with status cancelled. ConflictError when it is not running. */
  async cancel(session: SessionRef, toolUseId: string, opts: RequestOptions = {}): Promise<void> {
    await this.transport.request('POST', `/v1/sessions/${sid(session)}/calls/${encodeURIComponent(toolUseId)}/cancel`, opts);
  }

  /** interrupt cancels the session's calls (writes in progress finish); every call still gets its tool_result. */
  interrupt(session: SessionRef, opts: RequestOptions = {}): Promise<{ cancelled: number; finishing: number }> {
    return this.transport.request('POST', `/v1/sessions/${sid(session)}/interrupt`, opts);
  }

  /** calls lists the session's call records, optionally in one state. */
  async calls(session: SessionRef, state?: CallState, opts: RequestOptions = {}): Promise<CallRecord[]> {
    const res = await this.transport.request<{ calls: CallRecord[] }>('GET', `/v1/sessions/${sid(session)}/calls`, { query: { state }, signal: opts.signal });
    return res.calls;
  }

  /** call reads one call, with its result once it finished. */
  call(session: SessionRef, toolUseId: string, opts: RequestOptions = {}): Promise<{ call: CallRecord; result?: ToolResult }> {
    return this.transport.request('GET', `/v1/sessions/${sid(session)}/calls/${encodeURIComponent(toolUseId)}`, opts);
  }

  /** jobs lists the session's background jobs. */
  async jobs(session: SessionRef, opts: RequestOptions = {}): Promise<Job[]> {
    return (await this.transport.request<{ jobs: Job[] }>('GET', `/v1/sessions/${sid(session)}/jobs`, opts)).jobs;
  }

  /** ticket mints a short-lived ticket that opens the session's event stream without the token (EventSource). */
  ticket(session: SessionRef, opts: RequestOptions = {}): Promise<SSETicket> {
    return this.transport.request('POST', '/v1/sse-tickets', { body: { session: idOf(session) }, signal: opts.signal });
  }

  private host(session: SessionRef) {
    return {
      events: (o: EventsOptions) => this.events(session, o),
      callRecord: async (id: string) => (await this.call(session, id)).call,
      decide: (id: string, d: Decision) => this.decide(session, id, d),
      answer: (id: string, a: string | { accept: true }) => this.answer(session, id, a),
    };
  }
}

/** Sessions creates and manages sessions. */
export class Sessions {
  constructor(private readonly client: Client) {}

  /** create starts a session with a dialect, a mode and permission rules (all optional). */
  async create(req: SessionRequest = {}, opts: RequestOptions = {}): Promise<Session> {
    const info = await this.client.transport.request<SessionInfo>('POST', '/v1/sessions', { body: req, signal: opts.signal });
    return new Session(this.client, info.id, info);
  }

  /** get reads a session as it is now. */
  get(session: SessionRef, opts: RequestOptions = {}): Promise<SessionInfo> {
    return this.client.transport.request('GET', `/v1/sessions/${sid(session)}`, opts);
  }

  /** update changes a session's mode or rules (the admin scope); rules may narrow the server's policy, never widen it. */
  update(session: SessionRef, req: SessionRequest, opts: RequestOptions = {}): Promise<SessionInfo> {
    return this.client.transport.request('PATCH', `/v1/sessions/${sid(session)}`, { body: req, signal: opts.signal });
  }

  /** end ends a session: its calls are cancelled and its event streams close. */
  async end(session: SessionRef, opts: RequestOptions = {}): Promise<void> {
    await this.client.transport.request('DELETE', `/v1/sessions/${sid(session)}`, opts);
  }
}
