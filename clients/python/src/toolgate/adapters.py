"""Assistant messages from the Anthropic and OpenAI SDKs, as toolgate takes them.

toolgate reads each SDK's own shapes: an Anthropic ``Message`` (tool_use
blocks), an OpenAI ``ChatCompletionMessage`` or ``ChatCompletion``
(tool_calls), and Responses API output items or a whole ``Response``
(function_call items). This module only turns the SDK's objects into plain
JSON values (the SDKs need not be installed: plain dicts work the same) and
finds the ids of the calls a message makes; toolgate answers in the shape
it was sent.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping

from .models import Event

JSON = Dict[str, Any]

# The fields of an Anthropic Message toolgate reads; the SDK's others
# (model, usage, stop_reason, and whatever a later version adds) are left
# out so that a newer SDK never sends a field toolgate refuses.
_ANTHROPIC_FIELDS = ("id", "role", "content")


def to_plain(value: Any) -> Any:
    """A JSON value for an SDK object (pydantic models, as both SDKs' are), a dict or a list."""
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return to_plain(_dump(value))


def _dump(obj: Any) -> Any:
    """The dict of a model object: the SDKs' to_dict (API field names), else pydantic's dumps."""
    attempts = (
        ("to_dict", {"mode": "json", "exclude_none": True}),
        ("model_dump", {"mode": "json", "by_alias": True, "exclude_none": True}),
        ("dict", {"by_alias": True, "exclude_none": True}),
    )
    for name, kwargs in attempts:
        method = getattr(obj, name, None)
        if callable(method):
            try:
                return method(**kwargs)
            except TypeError:
                continue
    raise TypeError(f"cannot send a {type(obj).__name__} to toolgate: pass an SDK message object, a dict or a list")


def to_body(message: Any) -> Any:
    """The request body for an assistant message in any of the shapes toolgate takes."""
    body = to_plain(message)
    if isinstance(body, dict) and _is_anthropic(body):
        return {k: body[k] for k in _ANTHROPIC_FIELDS if k in body}
    return body


def _is_anthropic(body: JSON) -> bool:
    return isinstance(body.get("content"), list) and "tool_calls" not in body and "object" not in body


def call_ids(body: Any) -> List[str]:
    """The ids of the tool calls a message body makes, in order."""
    if isinstance(body, list):
        return _item_ids(body)
    if not isinstance(body, dict):
        return []
    if body.get("object") == "response":
        return _item_ids(body.get("output") or [])
    if body.get("object") == "chat.completion":
        choices = body.get("choices") or []
        return call_ids(choices[0].get("message") or {}) if choices else []
    if "tool_calls" in body:
        return [str(tc.get("id", "")) for tc in body.get("tool_calls") or []]
    return [str(b.get("id", "")) for b in body.get("content") or [] if isinstance(b, dict) and b.get("type") == "tool_use"]


def _item_ids(items: List[Any]) -> List[str]:
    ids = []
    for item in items:
        if isinstance(item, dict) and str(item.get("type", "")).endswith("_call"):
            ids.append(str(item.get("call_id") or item.get("callId") or ""))
    return ids


def has_tool_calls(message: Any) -> bool:
    """Whether an assistant message (an SDK object or a dict) asks for any tool call."""
    return bool(call_ids(to_body(message)))


#: Seconds run_message waits, once toolgate has answered, for the stream to
#: bring the message.finished event it announced before answering.
FINISH_GRACE = 10.0


def finishes(ev: Event, ids: List[str]) -> bool:
    """Whether an event is the message.finished of the message whose calls are ``ids``."""
    if ev.type != "message.finished" or not ids:
        return False
    response = ev.data.get("response") or {}
    got = [str(c.get("tool_use_id", "")) for c in response.get("calls") or []]
    return bool(got) and all(is_call_of(c, ids) for c in got) and all(any(is_call_of(c, [i]) for c in got) for i in ids)


def is_call_of(tool_use_id: str, ids: List[str]) -> bool:
    """Whether an event's tool_use_id belongs to one of a message's calls.

    A Responses shell_call with several commands runs as one call per
    command, ids ``call_id#1``, ``call_id#2``...
    """
    return tool_use_id in ids or tool_use_id.split("#", 1)[0] in ids
