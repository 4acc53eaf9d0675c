// Session binds the client's per-session calls to one session, so an
// agent loop reads `session.runMessage(msg)` rather than passing the id
// around.

import type { ApprovalHandler, Client, QuestionHandler, RunOptions } from './client.js';
import type { EventsOptions } from './events.js';
import type { RequestOptions } from './http.js';
import type { Decision, HandlerOptions, Pending, Subscription } from './inbox.js';
import type {
  AgentsItemLike,
  AgentsOutputItem,
  AnthropicMessageLike,
  AnthropicTool,
  AssistantMessageLike,
  AnyMessageResponse,
  CallRecord,
  CallState,
  ChatCompletionLike,
  ChatMessageLike,
  ChatToolMessage,
  Event,
  OpenAIChatTool,
  OpenAIResponsesTool,
  ResponseLike,
  ResponsesItemLike,
  ResponsesOutputItem,
  SessionInfo,
  SessionRequest,
  ToolInfo,
  ToolResultMessage,
} from './types.js';

/** Session is one toolgate session: its tools, messages, events, approvals and calls. */
export class Session {
  constructor(
    private readonly client: Client,
    /** The session's id. */
    readonly id: string,
    /** The session as toolgate described it when it was created (undefined for Client.session(id)). */
    readonly info?: SessionInfo,
  ) {}

  /** tools lists this session's pool (its dialect, mode and rules) in an SDK's format. */
  tools(opts: RequestOptions & { format: 'anthropic'; strict?: boolean }): Promise<AnthropicTool[]>;
  tools(opts: RequestOptions & { format: 'openai'; strict?: boolean }): Promise<OpenAIChatTool[]>;
  tools(opts: RequestOptions & { format: 'openai-responses'; strict?: boolean }): Promise<OpenAIResponsesTool[]>;
  tools(opts?: RequestOptions & { format?: undefined }): Promise<ToolInfo[]>;
  tools(opts: RequestOptions & { format?: 'anthropic' | 'openai' | 'openai-responses'; strict?: boolean } = {}): Promise<unknown[]> {
    return this.client.tools({ ...opts, session: this.id } as Parameters<Client['tools']>[0]);
  }

  /** runMessage runs the message's tool calls and returns what the model's SDK takes next (see Client.runMessage). */
  runMessage<M extends ChatMessageLike | ChatCompletionLike>(msg: M, opts?: RunOptions): Promise<ChatToolMessage[]>;
  runMessage<M extends ReadonlyArray<AgentsItemLike>>(msg: M, opts?: RunOptions): Promise<AgentsOutputItem[]>;
  runMessage<M extends ResponseLike | ReadonlyArray<ResponsesItemLike>>(msg: M, opts?: RunOptions): Promise<ResponsesOutputItem[]>;
  runMessage<M extends AnthropicMessageLike>(msg: M, opts?: RunOptions): Promise<ToolResultMessage>;
  runMessage(msg: AssistantMessageLike, opts?: RunOptions): Promise<unknown> {
    return this.client.runMessage(this.id, msg as AnthropicMessageLike, opts);
  }

  /** postMessage is runMessage with toolgate's whole answer (message id, call records). */
  postMessage<M extends AssistantMessageLike>(msg: M, opts?: RunOptions): Promise<AnyMessageResponse> {
    return this.client.postMessage(this.id, msg, opts);
  }

  /** events yields the session's events once each, in order, across dropped connections. */
  events(opts?: EventsOptions): AsyncGenerator<Event, void, undefined> {
    return this.client.events(this.id, opts);
  }

  /** inbox yields each call waiting for a decision or an answer, once. */
  inbox(opts?: EventsOptions): AsyncGenerator<Pending, void, undefined> {
    return this.client.inbox(this.id, opts);
  }

  /** onApproval decides each call awaiting approval with handler. */
  onApproval(handler: ApprovalHandler, opts?: HandlerOptions): Subscription {
    return this.client.onApproval(this.id, handler, opts);
  }

  /** onQuestion answers each interactive call with handler. */
  onQuestion(handler: QuestionHandler, opts?: HandlerOptions): Subscription {
    return this.client.onQuestion(this.id, handler, opts);
  }

  /** decide approves or rejects one call. */
  decide(toolUseId: string, decision: Decision, opts?: RequestOptions) {
    return this.client.decide(this.id, toolUseId, decision, opts);
  }

  /** runTool runs one call by name in this session. */
  runTool(name: string, input?: Record<string, unknown>, opts?: RunOptions & { id?: string }) {
    return this.client.runTool(name, input, { ...opts, session: this.id });
  }

  /** approve lets one call awaiting approval run. */
  approve(toolUseId: string, opts?: RequestOptions & { remember?: boolean }) {
    return this.client.approve(this.id, toolUseId, opts);
  }

  /** reject ends one call awaiting approval denied, with feedback. */
  reject(toolUseId: string, feedback?: string, opts?: RequestOptions) {
    return this.client.reject(this.id, toolUseId, feedback, opts);
  }

  /** answer answers one interactive call. */
  answer(toolUseId: string, answer: string | { accept: true }, opts?: RequestOptions) {
    return this.client.answer(this.id, toolUseId, answer, opts);
  }

  /** cancel stops one call. */
  cancel(toolUseId: string, opts?: RequestOptions): Promise<void> {
    return this.client.cancel(this.id, toolUseId, opts);
  }

  /** interrupt cancels the session's calls; writes in progress finish. */
  interrupt(opts?: RequestOptions) {
    return this.client.interrupt(this.id, opts);
  }

  /** calls lists the session's call records. */
  calls(state?: CallState, opts?: RequestOptions): Promise<CallRecord[]> {
    return this.client.calls(this.id, state, opts);
  }

  /** get reads the session as it is now. */
  get(opts?: RequestOptions): Promise<SessionInfo> {
    return this.client.sessions.get(this.id, opts);
  }

  /** update changes the session's mode or rules. */
  update(req: SessionRequest, opts?: RequestOptions): Promise<SessionInfo> {
    return this.client.sessions.update(this.id, req, opts);
  }

  /** end ends the session. */
  end(opts?: RequestOptions): Promise<void> {
    return this.client.sessions.end(this.id, opts);
  }
}
