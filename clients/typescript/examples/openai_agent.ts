// A complete agent loop with the openai SDK (Chat Completions) and
// toolgate: the model calls tools, toolgate runs them in its workspace
// (asking before it writes, with the diff), and the tool messages go back
// to the model until it answers.
//
//   TOOLGATE_URL=http://127.0.0.1:7420 TOOLGATE_TOKEN=... OPENAI_API_KEY=... \
//     node examples/openai_agent.js "Summarise a.txt into notes.md"

import OpenAI from 'openai';
import { Client, type ApprovalRequest } from '@toolgate/client';
import { pathToFileURL } from 'node:url';

/** What the loop needs: toolgate, the model, and who approves writes and commands. */
export interface AgentOptions {
  toolgate: Client;
  openai: OpenAI;
  model?: string;
  /** Decides each call that needs approval; approves all when left out. */
  approve?: (req: ApprovalRequest) => boolean | Promise<boolean>;
  log?: (line: string) => void;
}

/** runAgent works on task until the model answers, and returns the answer. */
export async function runAgent(task: string, opts: AgentOptions): Promise<string> {
  const { toolgate, openai, model = 'gpt-5', approve = () => true, log = console.log } = opts;
  const session = await toolgate.sessions.create({ dialect: 'cline', mode: 'act' });
  const approvals = session.onApproval(async (req) => {
    log(`approval: ${req.name} (${req.approval.reason})\n${req.approval.preview.diff ?? req.approval.preview.command ?? ''}`);
    return (await approve(req)) ? 'approve' : { decision: 'reject', feedback: 'The user declined.' };
  });
  try {
    const tools = await session.tools({ format: 'openai' });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: task }];
    for (let turn = 0; turn < 20; turn++) {
      const completion = await openai.chat.completions.create({ model, tools, messages });
      const msg = completion.choices[0].message;
      messages.push(msg);
      if (!msg.tool_calls?.length) return msg.content ?? '';
      const results = await session.runMessage(msg); // one role "tool" message per tool call
      for (const r of results) log(`tool message ${r.tool_call_id}`);
      messages.push(...results);
    }
    throw new Error('the model gave no answer in 20 turns');
  } finally {
    approvals.stop();
    await session.end();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const toolgate = new Client(); // TOOLGATE_URL and TOOLGATE_TOKEN
  console.log(await runAgent(process.argv[2] ?? 'Summarise a.txt into notes.md', { toolgate, openai: new OpenAI() }));
}
