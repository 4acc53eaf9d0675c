// The two example agent loops, run whole: each SDK talks to the mock
// model, the example's Client to the real toolgate. The mock checks every
// tool result it is sent; the test checks the answer, the approval of the
// write (with its diff) and the file the loop wrote.

import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { runAgent as anthropicAgent } from '../examples/anthropic_agent.js';
import { runAgent as openaiAgent } from '../examples/openai_agent.js';
import { client } from './env.js';
import { startMockModel, type MockModel } from './mock_models.js';

const workspace = process.env.TOOLGATE_WORKSPACE ?? '';
assert.ok(workspace !== '', 'TOOLGATE_WORKSPACE is not set: run these tests through client_test.go');
let model: MockModel;
before(async () => {
  model = await startMockModel();
});
after(async () => {
  await model.close();
});
beforeEach(async () => {
  await rm(join(workspace, 'notes.md'), { force: true });
});

async function check(run: (log: (l: string) => void) => Promise<string>) {
  const lines: string[] = [];
  const answer = await run((l) => {
    lines.push(l);
    console.log(l);
  });
  console.log('answer:', answer);
  assert.equal(answer, 'notes.md now holds the summary.');
  const approvals = lines.filter((l) => l.startsWith('approval: write_to_file'));
  assert.equal(approvals.length, 1, `one approval, for the write: ${lines}`);
  assert.match(approvals[0], /\+Summary: hello from the workspace/);
  assert.equal(await readFile(join(workspace, 'notes.md'), 'utf8'), 'Summary: hello from the workspace\n');
}

test('the Anthropic SDK agent loop', async () => {
  const anthropic = new Anthropic({ apiKey: 'test', baseURL: model.url, maxRetries: 0, timeout: 30_000 });
  await check((log) => anthropicAgent('Summarise a.txt into notes.md', { toolgate: client(), anthropic, log }));
});

test('the OpenAI SDK agent loop', async () => {
  const openai = new OpenAI({ apiKey: 'test', baseURL: model.url + '/v1', maxRetries: 0, timeout: 30_000 });
  await check((log) => openaiAgent('Summarise a.txt into notes.md', { toolgate: client(), openai, log }));
});
