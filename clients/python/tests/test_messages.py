"""Whole assistant messages in each SDK's shape, answered in kind."""

from __future__ import annotations

import json
import pathlib
from typing import Any, Dict, List

import toolgate
from helpers import anthropic, chat, new_id, responses, tool_use


def test_anthropic_message_gets_the_user_message_of_tool_results(client: toolgate.Client, session: toolgate.Session,
                                                                  workspace: pathlib.Path) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    a, b = new_id("toolu_"), new_id("toolu_")
    msg = anthropic(tool_use(a, "read_file", path="a.txt"), tool_use(b, "list_files", path="."))
    msg["content"].insert(0, {"type": "thinking", "thinking": "...", "signature": "sig"})
    user = client.run_message(session, msg)  # what the Messages API takes next
    assert isinstance(user, dict) and user["role"] == "user", user
    assert [r["tool_use_id"] for r in user["content"]] == [a, b]
    assert all(r["type"] == "tool_result" and r["is_error"] is False for r in user["content"]), user
    assert "alpha" in toolgate.result_text(user["content"][0])
    assert [(c.tool_use_id, c.status) for c in client.calls(session)] == [(a, "succeeded"), (b, "succeeded")]
    again = client.post_message(session, msg)  # the same ids: answered from the session's calls, not run again
    assert again.shape == "anthropic" and again.to_sdk() == user and not again.is_error
    conversation: List[Any] = []
    again.append_to(conversation)
    assert conversation == [user]


def test_openai_chat_message_gets_tool_messages(client: toolgate.Client, session: toolgate.Session,
                                                workspace: pathlib.Path) -> None:
    (workspace / "c.txt").write_text("gamma\n")
    a, b = new_id("call_"), new_id("call_")
    reply = client.post_message(session, chat((a, "read_file", {"path": "c.txt"}), (b, "read_file", {"path": "missing.txt"})))
    assert reply.shape == "openai_chat"
    msgs = reply.messages
    assert reply.to_sdk() is msgs
    assert [(m["role"], m["tool_call_id"]) for m in msgs] == [("tool", a), ("tool", b)], msgs
    assert "gamma" in msgs[0]["content"] and isinstance(msgs[1]["content"], str)
    assert reply.is_error and reply.calls[1].error_code == "not_found"
    conversation: List[Any] = [{"role": "user", "content": "read"}]
    reply.append_to(conversation)
    assert conversation[1:] == msgs


def test_openai_chat_completion_whole(client: toolgate.Client, session: toolgate.Session) -> None:
    cid = new_id("call_")
    completion = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-mock",
                  "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": None,
                               "message": chat((cid, "list_files", {"path": "."}))}]}
    reply = client.post_message(session, completion)
    assert [m["tool_call_id"] for m in reply.messages] == [cid], reply.messages


def test_responses_items_get_function_call_outputs(client: toolgate.Client, session: toolgate.Session,
                                                   workspace: pathlib.Path) -> None:
    (workspace / "r.txt").write_text("rho\n")
    a = new_id("call_")
    reply = client.post_message(session, responses((a, "read_file", {"path": "r.txt"})))
    assert reply.shape == "openai_responses"
    out = reply.output
    assert reply.to_sdk() is out
    assert [(o["type"], o["call_id"]) for o in out] == [("function_call_output", a)], out
    assert "rho" in out[0]["output"]
    whole = {"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-mock",
             "output": responses((new_id("call_"), "list_files", {"path": "."}))}
    assert client.run_message(session, whole)[0]["type"] == "function_call_output"


class FakeSDKModel:
    """Stands in for the SDKs' pydantic models: to_dict(mode=, exclude_none=) with the API's field names."""

    def __init__(self, **fields: Any) -> None:
        self._fields = fields

    def to_dict(self, *, mode: str = "python", exclude_none: bool = False) -> Dict[str, Any]:
        assert mode == "json"
        out = {}
        for k, v in self._fields.items():
            if exclude_none and v is None:
                continue
            out[k] = v.to_dict(mode=mode, exclude_none=exclude_none) if isinstance(v, FakeSDKModel) else \
                [x.to_dict(mode=mode, exclude_none=exclude_none) if isinstance(x, FakeSDKModel) else x for x in v] \
                if isinstance(v, list) else v
        return out


def test_sdk_objects_are_sent_as_the_api_sent_them(client: toolgate.Client, session: toolgate.Session) -> None:
    a = new_id("toolu_")
    # A Message of a newer anthropic SDK: a field toolgate does not know is left out, not refused.
    message = FakeSDKModel(id=new_id("msg_"), type="message", role="assistant", model="claude-mock",
                           content=[FakeSDKModel(type="tool_use", id=a, name="list_files", input={"path": "."})],
                           stop_reason="tool_use", stop_sequence=None, context_management={"applied": []},
                           usage=FakeSDKModel(input_tokens=1, output_tokens=2, cache_creation=None))
    assert client.post_message(session, message).message["content"][0]["tool_use_id"] == a  # type: ignore[index]
    b = new_id("call_")
    chat_message = FakeSDKModel(role="assistant", content=None, refusal=None, audio=None, tool_calls=[
        FakeSDKModel(id=b, type="function", function=FakeSDKModel(name="list_files", arguments=json.dumps({"path": "."})))])
    assert client.run_message(session, chat_message)[0]["tool_call_id"] == b
    assert toolgate.has_tool_calls(chat_message) and not toolgate.has_tool_calls({"role": "assistant", "content": []})
