// What the Go test (client_test.go) hands the Node tests: a real toolgate
// behind a TCP proxy that can cut every connection and refuse new ones,
// the token, and the workspace's known file.

import { Client } from '@toolgate/client';

function need(name: string): string {
  const v = process.env[name];
  if (v === undefined || v === '') throw new Error(`${name} is not set: run these tests through client_test.go (go test ./clients/typescript/)`);
  return v;
}

/** toolgate through the proxy. */
export const url = need('TOOLGATE_URL');
/** toolgate itself, which the proxy's cuts do not reach. */
export const directUrl = need('TOOLGATE_DIRECT_URL');
/** The server token. */
export const token = need('TOOLGATE_TOKEN');
const control = need('TOOLGATE_PROXY_CONTROL');

/** The text of a.txt in the workspace. */
export const fileText = 'hello from the workspace';

/** client talks to toolgate through the proxy. */
export function client(): Client {
  return new Client({ baseUrl: url, token });
}

/** direct talks to toolgate without the proxy. */
export function direct(): Client {
  return new Client({ baseUrl: directUrl, token });
}

/** cut closes every proxied connection and refuses new ones until restore. */
export async function cut(): Promise<void> {
  const res = await fetch(control + '/cut', { method: 'POST' });
  if (!res.ok) throw new Error(`proxy cut: ${res.status}`);
}

/** restore lets connections through the proxy again. */
export async function restore(): Promise<void> {
  const res = await fetch(control + '/restore', { method: 'POST' });
  if (!res.ok) throw new Error(`proxy restore: ${res.status}`);
}

/** deadline is an AbortSignal for a test's waits. */
export function deadline(ms = 30_000): AbortSignal {
  return AbortSignal.timeout(ms);
}

/** text joins the text blocks of a tool_result's content. */
export function text(content: ReadonlyArray<{ type: string; text?: string }>): string {
  return content.map((c) => c.text ?? '').join('');
}
