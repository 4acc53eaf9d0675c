"""What is sent for each SDK shape, and which calls a message makes (no server needed)."""

from __future__ import annotations

from typing import Any, Dict, List

import pytest

from toolgate.adapters import call_ids, has_tool_calls, is_call_of, to_body
from toolgate.models import MessageReply


class PydanticV2Like:
    """A model with model_dump only (no SDK to_dict)."""

    def __init__(self, **fields: Any) -> None:
        self.fields = fields

    def model_dump(self, *, mode: str, by_alias: bool, exclude_none: bool) -> Dict[str, Any]:
        return {k: v for k, v in self.fields.items() if not (exclude_none and v is None)}


def test_anthropic_message_keeps_only_what_toolgate_reads() -> None:
    msg = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "usage": {}, "future_field": 1,
           "content": [{"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}}]}
    assert to_body(msg) == {"id": "msg_1", "role": "assistant", "content": msg["content"]}
    assert call_ids(to_body(msg)) == ["t1"]


def test_openai_shapes_are_sent_whole() -> None:
    chat = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
                                                                   "function": {"name": "x", "arguments": "{}"}}]}
    assert to_body(chat) == chat and call_ids(chat) == ["c1"]
    completion = {"object": "chat.completion", "choices": [{"message": chat}], "usage": {}}
    assert to_body(completion) == completion and call_ids(completion) == ["c1"]
    items = [{"type": "message", "role": "assistant", "content": []},
             {"type": "function_call", "call_id": "f1", "name": "x", "arguments": "{}"},
             {"type": "function_call", "callId": "f2", "name": "x", "arguments": "{}"},
             {"type": "shell_call", "call_id": "s1", "action": {"commands": ["ls", "pwd"]}}]
    assert call_ids(items) == ["f1", "f2", "s1"]
    assert call_ids({"object": "response", "output": items}) == ["f1", "f2", "s1"]
    assert is_call_of("s1#2", call_ids(items)) and not is_call_of("s2", call_ids(items))


def test_model_objects_and_unknown_values() -> None:
    msg = PydanticV2Like(role="assistant", content=[PydanticV2Like(type="tool_use", id="t9", name="n", input={})], stop=None)
    assert to_body(msg) == {"role": "assistant", "content": [{"type": "tool_use", "id": "t9", "name": "n", "input": {}}]}
    assert has_tool_calls(msg)
    with pytest.raises(TypeError, match="cannot send a object"):
        to_body(object())


def test_reply_shapes_and_append() -> None:
    anthropic = MessageReply.from_json({"message_id": "m", "message": {"role": "user", "content": []}, "calls": []})
    chat = MessageReply.from_json({"message_id": "m", "messages": [{"role": "tool", "tool_call_id": "c", "content": ""}],
                                   "calls": [{"tool_use_id": "c", "name": "x", "state": "done", "status": "failed",
                                              "duration_ms": 1, "error": {"code": "not_found", "message": "gone"}}]})
    conv: List[Any] = []
    anthropic.append_to(conv)
    chat.append_to(conv)
    assert conv == [{"role": "user", "content": []}, {"role": "tool", "tool_call_id": "c", "content": ""}]
    assert chat.is_error and chat.calls[0].error_code == "not_found" and not anthropic.is_error
