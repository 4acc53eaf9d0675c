"""Approvals and questions: what a person is asked, and what they answer.

A call that a rule marks ``ask`` waits in state awaiting_approval, announced
by a ``tool.awaiting_approval`` event; an interactive tool
(ask_followup_question, attempt_completion, plan_mode_respond) waits in
state awaiting_input, announced by ``tool.awaiting_input``. This module
turns those events into :class:`ApprovalRequest` and :class:`Question`
values and a handler's reply into the request body toolgate takes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, List, Optional, Union

from .models import Event

JSON = Dict[str, Any]


@dataclass(frozen=True)
class ApprovalRequest:
    """A call waiting for approval, with what it would do (``preview``: a diff, a command)."""

    session_id: str
    tool_use_id: str
    name: str
    reason: str
    rule: Optional[str]
    deadline: Optional[str]
    preview: JSON
    message_id: Optional[str]
    event: Event = field(repr=False, compare=False)


@dataclass(frozen=True)
class Question:
    """An interactive call waiting for the user's answer (``kind`` is the tool)."""

    session_id: str
    tool_use_id: str
    kind: str
    text: str
    options: List[str]
    command: Optional[str]
    #: Whether the user may accept instead of answering (attempt_completion).
    acceptable: bool
    message_id: Optional[str]
    event: Event = field(repr=False, compare=False)


@dataclass(frozen=True)
class Decision:
    """An approval handler's verdict; ``remember`` adds an allow rule for the call's shape."""

    approve: bool
    remember: bool = False
    feedback: str = ""

    @classmethod
    def approved(cls, remember: bool = False) -> "Decision":
        """Approve the call."""
        return cls(True, remember=remember)

    @classmethod
    def rejected(cls, feedback: str = "") -> "Decision":
        """Reject the call; the feedback reaches the model in the tool_result."""
        return cls(False, feedback=feedback)

    def body(self) -> JSON:
        """The DecisionRequest body."""
        doc: JSON = {"decision": "approve" if self.approve else "reject"}
        if self.remember:
            doc["remember"] = True
        if self.feedback:
            doc["feedback"] = self.feedback
        return doc


@dataclass(frozen=True)
class Answer:
    """A question handler's reply: a text, or ``accept`` for an acceptable request."""

    text: Optional[str] = None
    accept: bool = False

    @classmethod
    def accepted(cls) -> "Answer":
        """Accept an acceptable request (attempt_completion: the task is done)."""
        return cls(accept=True)

    def body(self) -> JSON:
        """The AnswerRequest body."""
        return {"accept": True} if self.accept else {"text": self.text or ""}


#: What an approval handler may return: a Decision, or True to approve and False to reject.
DecisionLike = Union[Decision, bool]
#: What a question handler may return: an Answer, or the answer's text.
AnswerLike = Union[Answer, str]

ApprovalHandler = Callable[[ApprovalRequest], Union[DecisionLike, Awaitable[DecisionLike]]]
QuestionHandler = Callable[[Question], Union[AnswerLike, Awaitable[AnswerLike]]]


def as_decision(value: DecisionLike) -> Decision:
    """Normalize a handler's return value."""
    if isinstance(value, Decision):
        return value
    if isinstance(value, bool):
        return Decision(value)
    raise TypeError(f"an approval handler must return a Decision or a bool, not {type(value).__name__}")


def as_answer(value: AnswerLike) -> Answer:
    """Normalize a handler's return value."""
    if isinstance(value, Answer):
        return value
    if isinstance(value, str):
        return Answer(text=value)
    raise TypeError(f"a question handler must return an Answer or a str, not {type(value).__name__}")


def request_of(ev: Event) -> Union[ApprovalRequest, Question, None]:
    """The request an event announces, or None for any other event."""
    if ev.type == "tool.awaiting_approval":
        approval = ev.data.get("approval") or {}
        call = ev.call
        return ApprovalRequest(
            session_id=ev.session_id,
            tool_use_id=ev.tool_use_id or "",
            name=call.name if call else "",
            reason=str(approval.get("reason", "")),
            rule=approval.get("rule"),
            deadline=approval.get("deadline"),
            preview=dict(approval.get("preview") or {}),
            message_id=ev.message_id,
            event=ev,
        )
    if ev.type == "tool.awaiting_input":
        asked = ev.data.get("input") or {}
        return Question(
            session_id=ev.session_id,
            tool_use_id=ev.tool_use_id or "",
            kind=str(asked.get("kind", "")),
            text=str(asked.get("text", "")),
            options=[str(o) for o in asked.get("options") or []],
            command=asked.get("command"),
            acceptable=bool(asked.get("acceptable")),
            message_id=ev.message_id,
            event=ev,
        )
    return None
