// Compile-time proof that the package fits the model SDKs with no cast:
// its tool lists go into their `tools` parameters, their response objects
// go into runMessage as they came, and what runMessage returns goes into
// their next request. `npm run build:test` type-checks this file with
// tsc --strict; nothing here runs.

import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { Client, Session } from '@toolgate/client';

export async function anthropicFits(client: Client, s: Session, msg: Anthropic.Message): Promise<Anthropic.MessageCreateParamsNonStreaming> {
  const tools: Anthropic.ToolUnion[] = await client.tools({ dialect: 'anthropic', format: 'anthropic' });
  const sessionTools: Anthropic.ToolUnion[] = await s.tools({ format: 'anthropic' });
  const next: Anthropic.MessageParam = await s.runMessage(msg);
  const viaClient: Anthropic.MessageParam = await client.runMessage(s, msg);
  return { model: 'm', max_tokens: 1, tools: [...tools, ...sessionTools], messages: [{ role: 'assistant', content: msg.content }, next, viaClient] };
}

export async function chatFits(s: Session, completion: OpenAI.ChatCompletion): Promise<OpenAI.ChatCompletionCreateParamsNonStreaming> {
  const tools: OpenAI.ChatCompletionTool[] = await s.tools({ format: 'openai' });
  const strict: OpenAI.ChatCompletionTool[] = await s.tools({ format: 'openai', strict: true });
  const msg: OpenAI.ChatCompletionMessage = completion.choices[0].message;
  const fromMessage: OpenAI.ChatCompletionMessageParam[] = await s.runMessage(msg);
  const fromCompletion: OpenAI.ChatCompletionMessageParam[] = await s.runMessage(completion);
  return { model: 'm', tools: [...tools, ...strict], messages: [msg, ...fromMessage, ...fromCompletion] };
}

export async function responsesFits(s: Session, response: OpenAI.Responses.Response): Promise<OpenAI.Responses.ResponseCreateParamsNonStreaming> {
  const tools: OpenAI.Responses.Tool[] = await s.tools({ format: 'openai-responses' });
  const fromOutput: OpenAI.Responses.ResponseInputItem[] = await s.runMessage(response.output);
  const fromResponse: OpenAI.Responses.ResponseInputItem[] = await s.runMessage(response);
  return { model: 'm', tools, input: [...fromOutput, ...fromResponse] };
}
