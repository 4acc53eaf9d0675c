"""The values the client hands back: sessions, call records, events, replies.

Each keeps the JSON it was read from in ``raw``, so a field toolgate adds
later is reachable before this package names it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Mapping, MutableSequence, Optional, Union

JSON = Dict[str, Any]

#: The shape of an assistant message, which is the shape of its reply.
Shape = Literal["anthropic", "openai_chat", "openai_responses"]


@dataclass(frozen=True)
class Session:
    """A toolgate session: a dialect, a mode and permission rules over one workspace."""

    id: str
    mode: str
    dialect: str
    permissions: JSON
    created_at: str
    raw: JSON = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, doc: JSON) -> "Session":
        """Read a Session object as toolgate sends it."""
        return cls(
            id=str(doc["id"]),
            mode=str(doc.get("mode", "")),
            dialect=str(doc.get("dialect", "")),
            permissions=dict(doc.get("permissions") or {}),
            created_at=str(doc.get("created_at", "")),
            raw=doc,
        )


@dataclass(frozen=True)
class CallRecord:
    """What became of one tool call: its state, its status once done, and why it failed."""

    tool_use_id: str
    name: str
    state: str
    status: Optional[str]
    duration_ms: float
    message_id: Optional[str]
    #: The tool error code (openapi.yaml ToolErrorCode) when the call did not succeed.
    error_code: Optional[str]
    error_message: Optional[str]
    raw: JSON = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, doc: JSON) -> "CallRecord":
        """Read a CallRecord object."""
        err = doc.get("error") or {}
        return cls(
            tool_use_id=str(doc.get("tool_use_id", "")),
            name=str(doc.get("name", "")),
            state=str(doc.get("state", "")),
            status=doc.get("status"),
            duration_ms=float(doc.get("duration_ms") or 0),
            message_id=doc.get("message_id"),
            error_code=err.get("code"),
            error_message=err.get("message"),
            raw=doc,
        )


def result_text(result: Mapping[str, Any]) -> str:
    """The text of a tool_result block: its text parts joined by newlines."""
    content = result.get("content")
    if isinstance(content, str):
        return content
    parts = [str(b.get("text", "")) for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(parts)


@dataclass(frozen=True)
class CallResult:
    """One call's tool_result block and its record."""

    result: JSON
    call: CallRecord

    @property
    def text(self) -> str:
        """The result's text parts, joined."""
        return result_text(self.result)

    @property
    def is_error(self) -> bool:
        """Whether the tool_result reports a failure to the model."""
        return bool(self.result.get("is_error"))


@dataclass(frozen=True)
class Event:
    """One event of a session's stream (openapi.yaml Event); ``data`` is the whole object."""

    id: int
    type: str
    session_id: str
    message_id: Optional[str]
    tool_use_id: Optional[str]
    data: JSON = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, text: str) -> "Event":
        """Read the data of an SSE frame."""
        doc = json.loads(text)
        return cls(
            id=int(doc.get("id", 0)),
            type=str(doc.get("type", "")),
            session_id=str(doc.get("session_id", "")),
            message_id=doc.get("message_id"),
            tool_use_id=doc.get("tool_use_id"),
            data=doc,
        )

    @property
    def call(self) -> Optional[CallRecord]:
        """The call record the event carries (tool.finished and most tool.* events)."""
        c = self.data.get("call")
        return CallRecord.from_json(c) if isinstance(c, dict) else None

    @property
    def result(self) -> Optional[JSON]:
        """The tool_result block of a tool.finished event."""
        r = self.data.get("result")
        return r if isinstance(r, dict) else None

    @property
    def chunk(self) -> str:
        """A piece of a running call's output (tool.output)."""
        return str(self.data.get("chunk", ""))


@dataclass
class MessageReply:
    """toolgate's answer to an assistant message, in the shape of that message.

    ``shape`` says which: for ``anthropic``, ``message`` is the user message
    of tool_result blocks; for ``openai_chat``, ``messages`` are the role
    "tool" messages; for ``openai_responses``, ``output`` holds the
    function_call_output items. :meth:`to_sdk` gives whichever it is, and
    :meth:`append_to` adds it to a conversation the way the SDK expects.
    """

    shape: Shape
    message_id: str
    calls: List[CallRecord]
    message: Optional[JSON] = None
    messages: List[JSON] = field(default_factory=list)
    output: List[JSON] = field(default_factory=list)
    raw: JSON = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, doc: JSON) -> "MessageReply":
        """Read a MessageResponse, OpenAIChatResponse or OpenAIResponsesResponse."""
        calls = [CallRecord.from_json(c) for c in doc.get("calls") or []]
        mid = str(doc.get("message_id", ""))
        if "message" in doc:
            return cls("anthropic", mid, calls, message=doc["message"], raw=doc)
        if "messages" in doc:
            return cls("openai_chat", mid, calls, messages=list(doc["messages"]), raw=doc)
        return cls("openai_responses", mid, calls, output=list(doc.get("output") or []), raw=doc)

    def to_sdk(self) -> Union[JSON, List[JSON]]:
        """What the SDK takes next: the user message, or the list of tool messages or output items."""
        if self.shape == "anthropic":
            return self.message or {"role": "user", "content": []}
        return self.messages if self.shape == "openai_chat" else self.output

    def append_to(self, conversation: MutableSequence[Any]) -> None:
        """Add the reply to a conversation: one message for Anthropic, each item for OpenAI."""
        reply = self.to_sdk()
        if isinstance(reply, list):
            conversation.extend(reply)
        else:
            conversation.append(reply)

    @property
    def is_error(self) -> bool:
        """Whether any call did not succeed."""
        return any(c.status not in (None, "succeeded") for c in self.calls)


@dataclass(frozen=True)
class InterruptResult:
    """How many calls an interrupt cancelled and how many (writes) are finishing."""

    cancelled: int
    finishing: int
