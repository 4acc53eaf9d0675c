package server

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/coordinator"
)

// The real OpenAI SDKs as the oracle for the shapes toolgate takes and
// gives. The script below runs a mock model on loopback (Chat Completions,
// streamed and not, and Responses) and drives it with the openai package's
// helpers: chat.completions.parse() with toolgate's strict tools (the SDK
// refuses any tool not marked strict, lib/parser validateInputTools),
// chat.completions.stream() to finalChatCompletion() and finalMessage()
// (lib/ChatCompletionStream accumulates the chunks, keeping each tool
// call's index), responses.create() and responses.parse(). What each gives
// is posted to toolgate unchanged. The Agents SDK (@openai/agents) turns
// toolgate's tool lists into its function tools with strict: true, which
// runs its strict-schema check (agents-core utils/strictToolSchema), runs
// an agent against the mock until the tool call waits for approval, posts
// the call item it holds (its own camel-case shape) to toolgate, and
// parses the answer with its protocol's FunctionCallResultItem schema.
// Each line the script prints is one shape: its name, toolgate's status
// and answer, or the SDK's error. test.sh installs the packages and names
// their node_modules in TOOLGATE_NODE_MODULES.
const openAISDKScript = `
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
const nm = process.env.NODE_MODULES + "/";
const { default: OpenAI } = await import(pathToFileURL(nm + "openai/index.mjs").href);
const agents = await import(pathToFileURL(nm + "@openai/agents/dist/index.mjs").href);
const { Agent, run, tool, shellTool, applyPatchTool, OpenAIResponsesModel, setTracingDisabled, protocol } = agents;
setTracingDisabled(true);

const args = JSON.stringify({ path: "a.txt", task_progress: null });
const completion = (id) => ({ id: "chatcmpl-" + id, object: "chat.completion", created: 1, model: "m",
  choices: [{ index: 0, finish_reason: "tool_calls", logprobs: null, message: { role: "assistant", content: null, refusal: null,
    tool_calls: [{ id: "call_" + id, type: "function", function: { name: "read_file", arguments: args } }] } }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
const chunk = (delta, finish = null) => ({ id: "chatcmpl-s", object: "chat.completion.chunk", created: 1, model: "m",
  choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
let responses = 0;
let output = (n) => [
  { type: "reasoning", id: "rs_" + n, summary: [] },
  { type: "function_call", id: "fc_" + n, call_id: "call_r" + n, name: "read_file", arguments: args, status: "completed" },
];
const response = () => ({ id: "resp_" + (++responses), object: "response", created_at: 1, status: "completed", model: "m",
  error: null, incomplete_details: null, instructions: null, metadata: {}, parallel_tool_calls: true, temperature: 1, top_p: 1,
  tool_choice: "auto", tools: [], text: { format: { type: "text" } }, usage: null,
  output: output(responses) });
const mock = createServer(async (req, res) => {
  let body = "";
  for await (const c of req) body += c;
  const request = JSON.parse(body || "{}");
  if (req.url.endsWith("/chat/completions") && request.stream) {
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const c of [
      chunk({ role: "assistant", content: null, reasoning_content: "read it", tool_calls: [{ index: 0, id: "call_s", type: "function", function: { name: "read_file", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, 9) } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(9) } }] }),
      chunk({}, "tool_calls"),
    ]) res.write("data: " + JSON.stringify(c) + "\n\n");
    res.end("data: [DONE]\n\n");
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(req.url.endsWith("/chat/completions") ? completion("p") : response()));
});
await new Promise((r) => mock.listen(0, "127.0.0.1", r));
const client = new OpenAI({ apiKey: "test", baseURL: "http://127.0.0.1:" + mock.address().port + "/v1" });

const toolgate = async (method, path, body) => {
  const res = await fetch(process.env.TOOLGATE_URL + path, { method,
    headers: { authorization: "Bearer " + process.env.TOOLGATE_TOKEN, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
};
const report = (shape, r) => console.log(JSON.stringify({ shape, ...r }));
const post = async (shape, body) => report(shape, await toolgate("POST", "/v1/sessions/default/messages", body));
const attempt = async (shape, f) => {
  try { await f(); } catch (err) { report(shape, { error: String(err && err.stack || err) }); }
};

const chatTools = (await toolgate("GET", "/v1/tools?format=openai&strict=true")).body.tools;
const responsesTools = (await toolgate("GET", "/v1/tools?format=openai-responses&strict=true")).body.tools;
const plainTools = (await toolgate("GET", "/v1/tools?format=openai-responses")).body.tools;
const messages = [{ role: "user", content: "read a.txt" }];

await attempt("parse", async () => {
  const parsed = await client.chat.completions.parse({ model: "m", messages, tools: chatTools });
  await post("parse message", parsed.choices[0].message);
  await post("parse completion", parsed);
});
await attempt("stream", async () => {
  const stream = client.chat.completions.stream({ model: "m", messages, tools: chatTools });
  const final = await stream.finalChatCompletion();
  await post("stream finalChatCompletion message", final.choices[0].message);
  await post("stream finalMessage", await stream.finalMessage());
});
await attempt("responses", async () => {
  const created = await client.responses.create({ model: "m", input: "read a.txt", tools: responsesTools });
  await post("responses.create output", created.output);
  await post("responses.create response", created);
  const parsed = await client.responses.parse({ model: "m", input: "read a.txt", tools: responsesTools });
  await post("responses.parse output", parsed.output);
});
for (const [shape, list] of [["agents strict tools", responsesTools], ["agents tools from the plain list", plainTools]]) {
  await attempt(shape, async () => {
    const tools = list.map((t) => tool({ name: t.name, description: t.description, parameters: t.parameters, strict: true,
      needsApproval: true, execute: async () => "not run here" }));
    report(shape, { status: 200, body: { tools: tools.length } });
  });
}
await attempt("agents", async () => {
  const readFile = responsesTools.find((t) => t.name === "read_file");
  const agent = new Agent({ name: "a", instructions: "read", model: new OpenAIResponsesModel(client, "m"),
    tools: [tool({ name: readFile.name, description: readFile.description, parameters: readFile.parameters, strict: true,
      needsApproval: true, execute: async () => "not run here" })] });
  const result = await run(agent, "read a.txt");
  const items = result.interruptions.map((i) => i.rawItem);
  const answer = await toolgate("POST", "/v1/sessions/default/messages", items);
  for (const item of answer.body.output ?? []) protocol.FunctionCallResultItem.parse(item);
  report("agents function call items", answer);
});
await attempt("agents built-in", async () => {
  output = (n) => [
    { type: "shell_call", id: "sh_" + n, call_id: "call_sh" + n, status: "completed",
      action: { commands: ["cat a.txt", "echo done"], timeout_ms: 20000, max_output_length: 1000 } },
    { type: "apply_patch_call", id: "ap_" + n, call_id: "call_ap" + n, status: "completed",
      operation: { type: "update_file", path: "m.txt", diff: "@@\n-one\n+two\n", move_to: "moved.txt" } },
  ];
  const never = async () => { throw new Error("not run here"); };
  const agent = new Agent({ name: "b", instructions: "edit", model: new OpenAIResponsesModel(client, "m"),
    tools: [shellTool({ shell: { run: never }, needsApproval: true }),
      applyPatchTool({ editor: { createFile: never, updateFile: never, deleteFile: never }, needsApproval: true })] });
  const result = await run(agent, "edit m.txt");
  const items = result.interruptions.map((i) => i.rawItem);
  // A session whose rules allow both, so that nothing waits for approval.
  const sess = (await toolgate("POST", "/v1/sessions", { permissions: { allow: ["execute_command", "apply_patch"] } })).body;
  const answer = await toolgate("POST", "/v1/sessions/" + sess.id + "/messages", items);
  for (const item of answer.body.output ?? []) {
    (item.type === "shell_call_output" ? protocol.ShellCallResultItem : protocol.ApplyPatchCallResultItem).parse(item);
  }
  report("agents shell and apply_patch items", { ...answer, sent: items.map((i) => i.type) });
});
mock.close();
`

// sdkShape is one line of the script's report.
type sdkShape struct {
	Shape  string          `json:"shape"`
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
	Error  string          `json:"error"`
}

// openAINodeModules is TOOLGATE_NODE_MODULES with the openai packages.
func openAINodeModules(t *testing.T) string {
	t.Helper()
	nm := os.Getenv("TOOLGATE_NODE_MODULES")
	if nm == "" {
		t.Skip("TOOLGATE_NODE_MODULES is not set; test.sh installs openai and @openai/agents and sets it")
	}
	for _, p := range []string{"openai/index.mjs", "@openai/agents/dist/index.mjs"} {
		if _, err := os.Stat(filepath.Join(nm, p)); err != nil {
			t.Fatalf("TOOLGATE_NODE_MODULES=%s lacks %s: %v", nm, p, err)
		}
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed (test.sh installs nodejs)")
	}
	return nm
}

// TestOpenAISDKShapes: every shape the SDKs' helpers produce is taken
// unchanged and answered (0 refused), and toolgate's strict tools pass the
// SDKs' own checks.
func TestOpenAISDKShapes(t *testing.T) {
	nm := openAINodeModules(t)
	ts, dir := newDialectServer(t, coordinator.Config{}, map[string]string{"a.txt": "alpha\n", "m.txt": "one\n"})
	script := filepath.Join(t.TempDir(), "sdk.mjs")
	if err := os.WriteFile(script, []byte(openAISDKScript), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "NODE_MODULES="+nm, "TOOLGATE_URL="+ts.URL, "TOOLGATE_TOKEN="+testToken)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s\n%s", err, out, stderr.String())
	}
	want := []string{"parse message", "parse completion", "stream finalChatCompletion message", "stream finalMessage",
		"responses.create output", "responses.create response", "responses.parse output",
		"agents strict tools", "agents tools from the plain list", "agents function call items",
		"agents shell and apply_patch items"}
	seen := map[string]bool{}
	refused := 0
	for line := range strings.Lines(string(out)) {
		var s sdkShape
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("script line %q: %v", line, err)
		}
		seen[s.Shape] = true
		if s.Status != 200 || s.Error != "" {
			refused++
			t.Errorf("%s: status %d, error %s, body %s", s.Shape, s.Status, s.Error, s.Body)
			continue
		}
		if strings.Contains(s.Shape, "tools") && !strings.Contains(s.Shape, "items") {
			continue
		}
		if strings.Contains(s.Shape, "shell") && (!strings.Contains(string(s.Body), `"exitCode":0`) || !strings.Contains(string(s.Body), `"type":"apply_patch_call_output","callId":"call_ap`) ||
			strings.Contains(string(s.Body), `"status":"failed"`)) {
			t.Errorf("%s: answer %s, want the SDK's result items, both calls completed", s.Shape, s.Body)
		}
		if !strings.Contains(string(s.Body), "alpha") || strings.Contains(string(s.Body), `"is_error":true`) {
			t.Errorf("%s: answer %s, want a.txt's content", s.Shape, s.Body)
		}
	}
	// The SDK's apply_patch_call (update_file with moveTo) ran: m.txt
	// was updated and renamed.
	if b, err := os.ReadFile(filepath.Join(dir, "moved.txt")); err != nil || string(b) != "two\n" {
		t.Errorf("moved.txt = %q, %v; want the patched m.txt", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "m.txt")); !os.IsNotExist(err) {
		t.Errorf("m.txt is still there: %v", err)
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("the script reported no %q", w)
		}
	}
	t.Logf("SDK shapes: %d of %d refused", refused, len(want))
}
