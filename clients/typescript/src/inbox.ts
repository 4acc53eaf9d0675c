// Calls that wait for a person: approvals (tool.awaiting_approval) and
// questions (tool.awaiting_input: ask_followup_question,
// attempt_completion, plan_mode_respond). The inbox reads them off the
// session's events; the handlers of onApproval and onQuestion answer them
// as they come.

import { ConflictError, NotFoundError } from './errors.js';
import type { EventsOptions } from './events.js';
import type { Approval, CallRecord, Event, InputRequest } from './types.js';

/** What a handler's decision may be: a word, or the whole request. */
export type Decision = 'approve' | 'reject' | { decision: 'approve' | 'reject'; remember?: boolean; feedback?: string };

/** The calls an Inbox needs from the client. */
export interface InboxHost {
  events(opts: EventsOptions): AsyncIterable<Event>;
  callRecord(toolUseId: string): Promise<CallRecord>;
  decide(toolUseId: string, decision: Decision): Promise<unknown>;
  answer(toolUseId: string, answer: string | { accept: true }): Promise<unknown>;
}

/** A call awaiting approval. Approve or reject it once. */
export class ApprovalRequest {
  /** Tells an approval from a question in an inbox. */
  readonly kind = 'approval';
  /** The call's tool_use id. */
  readonly toolUseId: string;
  /** The tool's name as the model called it. */
  readonly name: string;
  /** Why it waits (the rule), until when, and what it would do (diff, command, paths). */
  readonly approval: Approval;
  /** The tool.awaiting_approval event. */
  readonly event: Event;

  constructor(
    private readonly host: InboxHost,
    event: Event,
  ) {
    this.event = event;
    this.toolUseId = event.tool_use_id ?? '';
    this.name = event.call?.name ?? '';
    this.approval = event.approval ?? { reason: '', deadline: '', preview: {} };
  }

  /** approve lets the call run; remember adds an allow rule for its exact shape to the session. */
  approve(opts: { remember?: boolean } = {}): Promise<unknown> {
    return this.host.decide(this.toolUseId, { decision: 'approve', remember: opts.remember });
  }

  /** reject ends the call denied, with the feedback in its tool_result; the message's later calls are skipped. */
  reject(feedback?: string): Promise<unknown> {
    return this.host.decide(this.toolUseId, { decision: 'reject', feedback });
  }
}

/** An interactive call awaiting the user's answer. Answer it once. */
export class QuestionRequest {
  /** Tells a question from an approval in an inbox. */
  readonly kind = 'question';
  /** The call's tool_use id. */
  readonly toolUseId: string;
  /** The tool's name as the model called it. */
  readonly name: string;
  /** What is asked: kind, text, options, and whether it may be accepted without text. */
  readonly input: InputRequest;
  /** The tool.awaiting_input event. */
  readonly event: Event;

  constructor(
    private readonly host: InboxHost,
    event: Event,
  ) {
    this.event = event;
    this.toolUseId = event.tool_use_id ?? '';
    this.name = event.call?.name ?? '';
    this.input = event.input ?? { kind: 'ask_followup_question', text: '' };
  }

  /** answer completes the call; its tool_result carries the text. */
  answer(text: string): Promise<unknown> {
    return this.host.answer(this.toolUseId, text);
  }

  /** accept completes an acceptable request (attempt_completion) without text. */
  accept(): Promise<unknown> {
    return this.host.answer(this.toolUseId, { accept: true });
  }
}

/** One call waiting for a person. */
export type Pending = ApprovalRequest | QuestionRequest;

/**
 * inbox yields each call that waits for a person, once. A replayed event
 * (the stream starts with the session's window) may be about a call
 * decided long ago, so each is checked against the call's state now.
 */
export async function* inbox(host: InboxHost, opts: EventsOptions = {}): AsyncGenerator<Pending, void, undefined> {
  for await (const ev of host.events(opts)) {
    const want = ev.type === 'tool.awaiting_approval' ? 'awaiting_approval' : ev.type === 'tool.awaiting_input' ? 'awaiting_input' : undefined;
    if (want === undefined || ev.tool_use_id === undefined) continue;
    let rec: CallRecord;
    try {
      rec = await host.callRecord(ev.tool_use_id);
    } catch (err) {
      if (err instanceof NotFoundError) continue;
      throw err;
    }
    if (rec.state !== want) continue;
    yield want === 'awaiting_approval' ? new ApprovalRequest(host, ev) : new QuestionRequest(host, ev);
  }
}

/** A handler running in the background: stop it, or await its end. */
export interface Subscription {
  /** stop ends the handler's event stream; decisions already sent stand. */
  stop(): void;
  /** Resolves once the event stream stopped (stop, the session ended, or an error went to onError); handlers already called may still run. */
  readonly closed: Promise<void>;
}

/** Options of onApproval and onQuestion. */
export interface HandlerOptions extends EventsOptions {
  /** Receives what went wrong: a failed stream or a throwing handler. Default: console.error. */
  onError?: (err: unknown) => void;
}

/**
 * subscribe runs handle on each pending call of the kind, without waiting
 * for one handler before starting the next (a person may answer the
 * second prompt first). A ConflictError, the call decided elsewhere
 * meanwhile, is no error.
 */
export function subscribe<K extends Pending['kind']>(
  host: InboxHost,
  kind: K,
  handle: (req: Extract<Pending, { kind: K }>) => Promise<void>,
  opts: HandlerOptions = {},
): Subscription {
  const ctrl = new AbortController();
  const stopOuter = () => ctrl.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', stopOuter, { once: true });
  const report = opts.onError ?? ((err: unknown) => console.error('toolgate:', err));
  const guard = (p: Promise<void>) => {
    p.catch((err) => {
      if (!(err instanceof ConflictError)) report(err);
    });
  };
  const loop = async () => {
    try {
      for await (const req of inbox(host, { ...opts, signal: ctrl.signal })) {
        if (req.kind === kind) guard(handle(req as Extract<Pending, { kind: K }>));
      }
    } catch (err) {
      if (!ctrl.signal.aborted) report(err);
    } finally {
      // Handlers still running (a person not yet asked to decide) go on;
      // closed does not wait for them, which may be never.
      opts.signal?.removeEventListener('abort', stopOuter);
    }
  };
  return { stop: () => ctrl.abort(), closed: loop() };
}

/** toDecision normalizes a handler's decision. */
export function toDecision(d: Decision): { decision: 'approve' | 'reject'; remember?: boolean; feedback?: string } {
  return typeof d === 'string' ? { decision: d } : d;
}
