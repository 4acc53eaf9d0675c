"""Approvals and questions: what a person is asked, and what they answer.

A call that a rule marks ``ask`` waits in state awaiting_approval, announced
by a ``tool.awaiting_approval`` event; an interactive tool
(ask_followup_question, attempt_completion, plan_mode_respond) waits in
state awaiting_input, announced by ``tool.awaiting_input``. This module
turns those events into :class:`ApprovalRequest` and :class:`QuestionRequest`
values (:data:`Pending`) and a handler's reply into the request body
toolgate takes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, List, Optional, Union

from .models import Event

JSON = Dict[str, Any]


#: Sends a reply for one call: the client's decide or answer, bound to the session and the call.
Responder = Callable[[Any], Any]


@dataclass(frozen=True)
class ApprovalRequest:
    """A call waiting for approval, with what it would do (``preview``: a diff, a command, paths).

    ``approve()`` and ``reject()`` send the decision (with the AsyncClient
    they return a coroutine to await).
    """

    session_id: str
    tool_use_id: str
    #: The tool's name as the model called it.
    name: str
    reason: str
    rule: Optional[str]
    deadline: Optional[str]
    preview: JSON
    message_id: Optional[str]
    event: Event = field(repr=False, compare=False)
    _respond: Optional[Responder] = field(default=None, repr=False, compare=False)

    def approve(self, remember: bool = False) -> Any:
        """Let the call run; ``remember`` allows calls of its exact shape from now on in the session."""
        return self.decide(Decision.approved(remember))

    def reject(self, feedback: str = "") -> Any:
        """End the call denied, with the feedback in its tool_result; the message's later calls are skipped."""
        return self.decide(Decision.rejected(feedback))

    def decide(self, decision: "DecisionLike") -> Any:
        """Send a decision: a Decision, True or "approve", False or "reject"."""
        if self._respond is None:
            raise RuntimeError("this request is not bound to a client; use client.decide")
        return self._respond(as_decision(decision))


@dataclass(frozen=True)
class QuestionRequest:
    """An interactive call waiting for the user's answer.

    ``kind`` is what asks (ask_followup_question, attempt_completion,
    plan_mode_respond); ``answer(text)`` and ``accept()`` reply (with the
    AsyncClient they return a coroutine to await).
    """

    session_id: str
    tool_use_id: str
    #: The tool's name as the model called it.
    name: str
    kind: str
    text: str
    options: List[str]
    command: Optional[str]
    #: Whether the user may accept instead of answering (attempt_completion).
    acceptable: bool
    message_id: Optional[str]
    event: Event = field(repr=False, compare=False)
    _respond: Optional[Responder] = field(default=None, repr=False, compare=False)

    def answer(self, answer: "AnswerLike") -> Any:
        """Complete the call with a text (or an Answer); its tool_result carries the text."""
        if self._respond is None:
            raise RuntimeError("this request is not bound to a client; use client.answer")
        return self._respond(as_answer(answer))

    def accept(self) -> Any:
        """Complete an acceptable request (attempt_completion: the task is done) without text."""
        return self.answer(Answer.accepted())


#: A call waiting for a person.
Pending = Union[ApprovalRequest, QuestionRequest]


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


#: A decision: a Decision, True or "approve" to approve, False or "reject" to reject.
DecisionLike = Union[Decision, bool, str]
#: An answer: an Answer, or the answer's text.
AnswerLike = Union[Answer, str]

#: Returns the decision, or None to leave the call to someone else (a handler may be async).
ApprovalHandler = Callable[[ApprovalRequest], Union[Optional[DecisionLike], Awaitable[Optional[DecisionLike]]]]
#: Returns the answer, or None to leave the call to someone else (a handler may be async).
QuestionHandler = Callable[[QuestionRequest], Union[Optional[AnswerLike], Awaitable[Optional[AnswerLike]]]]


def as_decision(value: DecisionLike) -> Decision:
    """Normalize a decision."""
    if isinstance(value, Decision):
        return value
    if isinstance(value, bool):
        return Decision(value)
    if value in ("approve", "reject"):
        return Decision(value == "approve")
    raise TypeError(f"a decision is a Decision, a bool, \"approve\" or \"reject\", not {value!r}")


def as_answer(value: AnswerLike) -> Answer:
    """Normalize a handler's return value."""
    if isinstance(value, Answer):
        return value
    if isinstance(value, str):
        return Answer(text=value)
    raise TypeError(f"a question handler must return an Answer or a str, not {type(value).__name__}")


#: The call state each request's event announces.
WAITING_STATE = {"tool.awaiting_approval": "awaiting_approval", "tool.awaiting_input": "awaiting_input"}


def request_of(ev: Event, respond: Optional[Responder] = None) -> Optional[Pending]:
    """The request an event announces, or None for any other event; ``respond`` sends its reply."""
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
            _respond=respond,
        )
    if ev.type == "tool.awaiting_input":
        asked = ev.data.get("input") or {}
        call = ev.call
        return QuestionRequest(
            session_id=ev.session_id,
            tool_use_id=ev.tool_use_id or "",
            name=call.name if call else "",
            kind=str(asked.get("kind", "")),
            text=str(asked.get("text", "")),
            options=[str(o) for o in asked.get("options") or []],
            command=asked.get("command"),
            acceptable=bool(asked.get("acceptable")),
            message_id=ev.message_id,
            event=ev,
            _respond=respond,
        )
    return None
