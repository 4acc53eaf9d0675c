"""An agent loop: the model asks for tools, toolgate runs them, the results go back.

The model is a scripted stand-in, MockModel, that answers as the Anthropic
Messages API does (or, with --openai, as Chat Completions does), so the
example runs without a key. With the real SDKs, replace ``model.create``
with ``anthropic.Anthropic().messages.create(model=..., max_tokens=...,
messages=messages, tools=tools)`` or ``openai.OpenAI().chat.completions.create(
model=..., messages=messages, tools=tools).choices[0].message``: toolgate's
client takes their objects as they come.

    TOOLGATE_URL=http://127.0.0.1:7420 TOOLGATE_TOKEN=... python3 agent_loop.py [--openai]

The session asks before every file write; the approval handler prints the
diff toolgate previews and approves it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List

import toolgate

JSON = Dict[str, Any]


class MockModel:
    """Lists the workspace, reads notes.txt, appends a line to it, then says what it did."""

    def __init__(self, openai: bool) -> None:
        self.openai = openai
        self.turn = 0

    def create(self, messages: List[JSON], tools: List[JSON]) -> JSON:
        names = {t["function"]["name"] if self.openai else t["name"] for t in tools}
        assert {"list_files", "read_file", "write_to_file"} <= names, "the tools reached the model"
        self.turn += 1
        last = _last_result(messages)
        if self.turn == 1:
            return self._call("list_files", {"path": "."})
        if self.turn == 2:
            return self._call("read_file", {"path": "notes.txt"})
        if self.turn == 3:
            # read_file numbers its lines ("1 | text"); keep the text.
            lines = [ln.split(" | ", 1)[1] for ln in last.splitlines() if " | " in ln]
            return self._call("write_to_file", {"path": "notes.txt", "content": "\n".join(lines + ["checked by the agent"]) + "\n"})
        return self._text(f"Done. toolgate said: {last.splitlines()[0] if last else '(nothing)'}")

    def _call(self, name: str, args: JSON) -> JSON:
        cid = f"call_{self.turn}"
        if self.openai:
            return {"role": "assistant", "content": None,
                    "tool_calls": [{"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}
        return {"id": f"msg_{self.turn}", "type": "message", "role": "assistant", "model": "mock", "stop_reason": "tool_use",
                "content": [{"type": "text", "text": f"I will call {name}."},
                            {"type": "tool_use", "id": cid, "name": name, "input": args}]}

    def _text(self, text: str) -> JSON:
        if self.openai:
            return {"role": "assistant", "content": text}
        return {"id": f"msg_{self.turn}", "type": "message", "role": "assistant", "model": "mock",
                "stop_reason": "end_turn", "content": [{"type": "text", "text": text}]}


def _last_result(messages: List[JSON]) -> str:
    """The text of the newest tool result in the conversation, in either shape."""
    for m in reversed(messages):
        if m.get("role") == "tool":
            return str(m["content"])
        if m.get("role") == "user" and isinstance(m.get("content"), list):
            return "\n".join(toolgate.result_text(r) for r in m["content"])
    return ""


def approve_edits(req: toolgate.ApprovalRequest) -> toolgate.Decision:
    print(f"approval asked for {req.name} ({req.reason}):")
    print("  " + (req.preview.get("diff") or "").strip().replace("\n", "\n  "))
    return toolgate.Decision.approved()


def run(client: toolgate.Client, openai: bool) -> str:
    session = client.sessions.create(dialect="cline", permissions={"ask": ["write_to_file"]})
    model = MockModel(openai)
    tools = client.tools(dialect="cline", format="openai" if openai else "anthropic")
    messages: List[JSON] = [{"role": "user", "content": "Add a line to notes.txt saying it was checked."}]
    try:
        while True:
            assistant = model.create(messages, tools)
            # The conversation keeps what the API takes back: Chat Completions
            # takes its message whole, the Messages API its role and content.
            messages.append(assistant if openai else {"role": "assistant", "content": assistant["content"]})
            if not toolgate.has_tool_calls(assistant):
                text = assistant["content"] if openai else assistant["content"][0]["text"]
                print(f"model: {text}")
                return str(text)
            # run_message would return just the reply; post_message adds each call's record.
            reply = client.post_message(session, assistant, on_approval=approve_edits)
            for call in reply.calls:
                print(f"toolgate ran {call.name}: {call.status}")
            reply.append_to(messages)  # the user message, or each role "tool" message
    finally:
        client.sessions.end(session)


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openai", action="store_true", help="speak Chat Completions instead of the Messages API")
    args = parser.parse_args(argv)
    with toolgate.Client() as client:
        run(client, args.openai)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
