// A complete agent loop with @anthropic-ai/sdk and toolgate: the model
// calls tools, toolgate runs them in its workspace (asking before it
// writes, with the diff), and the results go back to the model until it
// answers.
//
//   TOOLGATE_URL=http://127.0.0.1:7420 TOOLGATE_TOKEN=... ANTHROPIC_API_KEY=... \
//     node examples/anthropic_agent.js "Summarise a.txt into notes.md"

import Anthropic from '@anthropic-ai/sdk';
import { Client, type ApprovalRequest } from '@toolgate/client';
import { pathToFileURL } from 'node:url';

/** What the loop needs: toolgate, the model, and who approves writes and commands. */
export interface AgentOptions {
  toolgate: Client;
  anthropic: Anthropic;
  model?: string;
  /** Decides each call that needs approval; approves all when left out. */
  approve?: (req: ApprovalRequest) => boolean | Promise<boolean>;
  log?: (line: string) => void;
}

/** runAgent works on task until the model answers, and returns the answer. */
export async function runAgent(task: string, opts: AgentOptions): Promise<string> {
  const { toolgate, anthropic, model = 'claude-sonnet-5-5', approve = () => true, log = console.log } = opts;
  const session = await toolgate.sessions.create({ dialect: 'cline', mode: 'act' });
  const approvals = session.onApproval(async (req) => {
    log(`approval: ${req.name} (${req.approval.reason})\n${req.approval.preview.diff ?? req.approval.preview.command ?? ''}`);
    return (await approve(req)) ? 'approve' : { decision: 'reject', feedback: 'The user declined.' };
  });
  try {
    const tools = await session.tools({ format: 'anthropic' });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: task }];
    for (let turn = 0; turn < 20; turn++) {
      const msg = await anthropic.messages.create({ model, max_tokens: 4096, tools, messages });
      messages.push({ role: 'assistant', content: msg.content });
      if (msg.stop_reason !== 'tool_use') {
        return msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      }
      const results = await session.runMessage(msg); // the user message of tool_result blocks
      for (const r of results.content) log(`tool_result ${r.tool_use_id}${r.is_error ? ' (error)' : ''}`);
      messages.push(results);
    }
    throw new Error('the model gave no answer in 20 turns');
  } finally {
    approvals.stop();
    await session.end();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const toolgate = new Client(); // TOOLGATE_URL and TOOLGATE_TOKEN
  console.log(await runAgent(process.argv[2] ?? 'Summarise a.txt into notes.md', { toolgate, anthropic: new Anthropic() }));
}
