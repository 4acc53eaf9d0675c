// A client of toolgate written against types generated from openapi.yaml
// (openapi-typescript, into ./toolgate.d.ts) and @anthropic-ai/sdk's
// Messages API types: it turns the tool calls of a Message into a request
// to POST /v1/sessions/{sid}/messages and hands toolgate's answer back as
// the SDK's MessageParam and ToolResultBlockParam, with no casts. test.sh
// runs `tsc --strict` on it; any error fails the suite.
import type Anthropic from '@anthropic-ai/sdk';
import type { components, operations } from './toolgate';

type PostMessage = operations['postMessage'];
type AssistantMessage = PostMessage['requestBody']['content']['application/json'];
// The route answers in the request's own wire format (Anthropic blocks
// here; OpenAI clients get theirs), so its 200 is a union: a client in the
// Messages API's shape narrows it to that shape.
type PostMessageAnswer = PostMessage['responses'][200]['content']['application/json'];
type MessageResponse = components['schemas']['MessageResponse'];
type ToolUse = components['schemas']['ToolUse'];
type ToolErrorCode = components['schemas']['ToolErrorCode'];
type Event = operations['streamEvents']['responses'][200]['content']['text/event-stream'][number];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// toolUses keeps the Message's tool_use blocks, as toolgate takes them.
export function toolUses(msg: Anthropic.Message): ToolUse[] {
  const uses: ToolUse[] = [];
  for (const block of msg.content) {
    if (block.type === 'tool_use' && isObject(block.input)) {
      uses.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
    }
  }
  return uses;
}

// request is the body of POST /v1/sessions/{sid}/messages.
export function request(msg: Anthropic.Message): AssistantMessage {
  return { id: msg.id, role: 'assistant', content: [{ type: 'text', text: 'calling tools' }, ...toolUses(msg)] };
}

// A tool call written by hand type-checks too.
export const readme: ToolUse = { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'README.md', start_line: 1 } };

// nextTurn appends toolgate's answer, unchanged, as the user turn the
// Messages API expects after the assistant's tool calls.
export function nextTurn(msg: Anthropic.Message, resp: MessageResponse): Anthropic.MessageParam[] {
  const results: Anthropic.ToolResultBlockParam[] = resp.message.content;
  const assistant: Anthropic.MessageParam = { role: 'assistant', content: msg.content };
  const user: Anthropic.MessageParam = { role: resp.message.role, content: results };
  return [assistant, user];
}

// asMessagesAPI narrows the route's answer to the Messages API shape, the
// one a request of Anthropic blocks gets; undefined for the other formats.
export function asMessagesAPI(answer: PostMessageAnswer): MessageResponse | undefined {
  return !Array.isArray(answer) && 'message' in answer ? answer : undefined;
}

// retryable reads a failed call's stable error code.
export function retryable(resp: MessageResponse): string[] {
  const again: ToolErrorCode[] = ['file_changed', 'approval_timeout', 'cancelled'];
  return resp.calls.filter((c) => c.error !== undefined && again.includes(c.error.code)).map((c) => c.tool_use_id);
}

// finished picks the tool results out of an event stream's events.
export function finished(events: Event[]): Anthropic.ToolResultBlockParam[] {
  const out: Anthropic.ToolResultBlockParam[] = [];
  for (const ev of events) {
    if (ev.type === 'tool.finished' && ev.result !== undefined) {
      out.push(ev.result);
    }
  }
  return out;
}
