// Friendly names for the wire types generated from openapi.yaml
// (./openapi.ts), and the shapes of the model SDKs' messages that
// runMessage takes. The SDK shapes are structural: this package depends
// on no SDK, yet an SDK's own object (Anthropic's Message, OpenAI's
// ChatCompletionMessage, a Responses output list) is accepted as it came,
// and what comes back is what the SDK takes as the next input.

import type { components, operations } from './openapi.js';

type Schemas = components['schemas'];

/** A session as toolgate describes it. */
export type SessionInfo = Schemas['Session'];
/** What a session is created or changed with: dialect, mode, permission rules. */
export type SessionRequest = Schemas['SessionRequest'];
/** The tool vocabulary a session's model speaks (cline, claude_code, anthropic, codex). */
export type Dialect = Schemas['Dialect'];
/** A session's mode (act, plan, default, acceptEdits, bypassPermissions). */
export type Mode = Schemas['Mode'];
/** Permission rules: allow, deny, ask. */
export type Permissions = Schemas['Permissions'];
/** One event of a session's stream. */
export type Event = Schemas['Event'];
/** An event's type ("tool.finished", ...). */
export type EventType = Event['type'];
/** A call's record: state, status, duration, error code. */
export type CallRecord = Schemas['CallRecord'];
/** A call's state (queued, running, awaiting_approval, awaiting_input, done). */
export type CallState = CallRecord['state'];
/** A tool_use block, as toolgate takes it. */
export type ToolUse = Schemas['ToolUse'];
/** A tool_result block, as toolgate answers it. */
export type ToolResult = Schemas['ToolResult'];
/** Why a call waits for a decision, with a preview of what it would do. */
export type Approval = Schemas['Approval'];
/** What an interactive call (ask_followup_question, ...) asks. */
export type InputRequest = Schemas['InputRequest'];
/** A decision on a call awaiting approval. */
export type DecisionRequest = Schemas['DecisionRequest'];
/** An answer to an interactive call: text, or accept. */
export type AnswerRequest = Schemas['AnswerRequest'];
/** A background job of a session. */
export type Job = Schemas['Job'];
/** A short-lived ticket for a session's event stream (EventSource). */
export type SSETicket = Schemas['SSETicket'];

/** toolgate's own tool description. */
export type ToolInfo = Schemas['ToolInfo'];
/** An entry of the Anthropic Messages API's `tools` parameter: a client tool with its schema, or a built-in client tool by type and name. */
export type AnthropicTool = AnthropicCustomTool | AnthropicTextEditorTool | AnthropicBashTool;
/** A client tool: name, description and the JSON Schema of its input. */
export interface AnthropicCustomTool {
  type?: 'custom';
  name: string;
  description?: string;
  input_schema: { type: 'object'; properties?: unknown; required?: string[] | null; [key: string]: unknown };
}
/** The built-in text editor tool (the anthropic dialect's file tools). */
export interface AnthropicTextEditorTool {
  type: 'text_editor_20250728';
  name: 'str_replace_based_edit_tool';
}
/** The built-in bash tool (the anthropic dialect's commands). */
export interface AnthropicBashTool {
  type: 'bash_20250124';
  name: 'bash';
}
/** An entry of OpenAI Chat Completions' `tools` parameter. */
export type OpenAIChatTool = Schemas['OpenAIFunction'];
/** An entry of the OpenAI Responses API's `tools` parameter. */
export type OpenAIResponsesTool = Schemas['OpenAIResponsesTool'];
/** The formats GET /v1/tools renders a pool in. */
export type ToolFormat = 'anthropic' | 'openai' | 'openai-responses';
/** The whole answer of GET /v1/tools. */
export type ToolList = operations['listTools']['responses'][200]['content']['application/json'];

/** The answer to an Anthropic-shaped message: the user message to append, and the calls. */
export type MessageResponse = Schemas['MessageResponse'];
/** The answer to a Chat Completions message: the tool messages to append, and the calls. */
export type ChatResponse = Schemas['OpenAIChatResponse'];
/** The answer to Responses API items: the output items to send back, and the calls. */
export type ResponsesResponse = Schemas['OpenAIResponsesResponse'];
/** The user message of tool_result blocks the Messages API takes after a tool_use turn. */
export type ToolResultMessage = MessageResponse['message'];
/** A role "tool" message, as Chat Completions takes it. */
export type ChatToolMessage = ChatResponse['messages'][number];
/** An item answering a Responses API call (function_call_output, custom_tool_call_output, apply_patch_call_output, shell_call_output, local_shell_call_output). */
export type ResponsesOutputItem =
  | FunctionCallOutputItem
  | Schemas['OpenAIApplyPatchCallOutput']
  | ShellCallOutputItem
  | Schemas['OpenAILocalShellCallOutput'];
/** The answer to a shell_call: one entry per command; an exit outcome always carries its code. */
export type ShellCallOutputItem = Omit<Schemas['OpenAIShellCallOutput'], 'output'> & {
  output: Array<{ stdout: string; stderr: string; outcome: { type: 'exit'; exit_code: number } | { type: 'timeout' } }>;
};
/** The answer to a function_call or custom_tool_call item: the result's text, or its parts when it holds an image. */
export interface FunctionCallOutputItem {
  type: 'function_call_output' | 'custom_tool_call_output';
  call_id: string;
  output: string | ResponsesOutputPart[];
}
/** A part of a function call's output. */
export type ResponsesOutputPart = { type: 'input_text'; text: string } | { type: 'input_image'; image_url: string; detail: 'auto' | 'low' | 'high' };
/** An item answering an OpenAI Agents SDK function call item (callId): its function_call_result. */
export type AgentsOutputItem = Schemas['AgentsFunctionCallResult'];

/** An Anthropic Messages API assistant message (the SDK's Message, or its role and content). */
export interface AnthropicMessageLike {
  id?: string;
  role: 'assistant';
  content: ReadonlyArray<{ type: string }>;
}

/** A Chat Completions assistant message (the SDK's ChatCompletionMessage). */
export interface ChatMessageLike {
  role: 'assistant';
  content?: string | null;
  tool_calls?: ReadonlyArray<{ id: string; type?: string }> | null;
}

/** A whole Chat Completions response (the SDK's ChatCompletion); its one choice is run. */
export interface ChatCompletionLike {
  object: 'chat.completion';
  choices: ReadonlyArray<{ message: ChatMessageLike }>;
}

/** A Responses API output item (function_call, custom_tool_call, reasoning, message, ...). */
export interface ResponsesItemLike {
  type?: string;
}

/** An OpenAI Agents SDK function call item (its callId in camel case). */
export interface AgentsItemLike {
  type: 'function_call';
  callId: string;
  name: string;
  arguments: string;
}

/** A whole Responses API response (the SDK's Response); its output items are run. */
export interface ResponseLike {
  object: 'response';
  output: ReadonlyArray<ResponsesItemLike>;
}

/** Anything runMessage takes. */
export type AssistantMessageLike = AnthropicMessageLike | ChatMessageLike | ChatCompletionLike | ResponseLike | ReadonlyArray<ResponsesItemLike>;

/** The answer to any message shape. */
export type AnyMessageResponse = MessageResponse | ChatResponse | ResponsesResponse;
