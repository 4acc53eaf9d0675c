"""The synchronous client."""

from __future__ import annotations

import threading
from typing import Any, Dict, Iterator, List, Optional, Union

import httpx

from . import _routes
from ._base import DEFAULT_TIMEOUT, BaseClient, call_result, decode, tool_use_block
from ._routes import SessionRef
from .adapters import call_ids, is_call_of, to_body
from .approvals import (Answer, AnswerLike, ApprovalHandler, ApprovalRequest, Decision, DecisionLike, Question,
                        QuestionHandler, as_answer, as_decision, request_of)
from .errors import APIConnectionError, ConflictError, ToolgateError
from .events import DEFAULT_MAX_RETRIES, DEFAULT_READ_TIMEOUT, EventStream
from .models import CallRecord, CallResult, InterruptResult, MessageReply, Session

JSON = Dict[str, Any]


class Sessions:
    """``client.sessions``: create, read, update and end sessions."""

    def __init__(self, client: "Client") -> None:
        self._client = client

    def create(self, *, dialect: Optional[str] = None, mode: Optional[str] = None, permissions: Optional[JSON] = None) -> Session:
        """Start a session (dialect cline, claude_code, anthropic or codex; mode act, plan...; allow/deny/ask rules)."""
        return Session.from_json(self._client._send(_routes.create_session(dialect, mode, permissions)))

    def get(self, session: SessionRef) -> Session:
        """A session as it is now."""
        return Session.from_json(self._client._send(_routes.get_session(session)))

    def update(self, session: SessionRef, *, mode: Optional[str] = None, permissions: Optional[JSON] = None) -> Session:
        """Change a session's mode or rules (rules may only narrow the server's policy)."""
        return Session.from_json(self._client._send(_routes.update_session(session, mode, permissions)))

    def end(self, session: SessionRef) -> None:
        """End a session: its calls are cancelled and its event streams end."""
        self._client._send(_routes.end_session(session))


class Client(BaseClient):
    """A toolgate client over httpx (blocking).

    ``base_url`` and ``token`` default to the environment's TOOLGATE_URL and
    TOOLGATE_TOKEN (and http://127.0.0.1:7420). ``on_approval`` and
    ``on_question`` are asked by :meth:`run_message` about the message's
    calls that wait for a person.
    """

    def __init__(self, base_url: Optional[str] = None, token: Optional[str] = None, *,
                 timeout: Union[float, httpx.Timeout] = DEFAULT_TIMEOUT, http_client: Optional[httpx.Client] = None,
                 on_approval: Optional[ApprovalHandler] = None, on_question: Optional[QuestionHandler] = None,
                 events_read_timeout: float = DEFAULT_READ_TIMEOUT, events_max_retries: int = DEFAULT_MAX_RETRIES) -> None:
        super().__init__(base_url, token, on_approval, on_question, events_read_timeout, events_max_retries)
        self._http = http_client or httpx.Client(timeout=timeout)
        self._owns_http = http_client is None
        self.sessions = Sessions(self)

    def _send(self, req: _routes.Request) -> Any:
        try:
            resp = self._http.send(self._build(self._http, req))
        except httpx.TransportError as err:
            raise APIConnectionError(f"{req.method} {req.path}: {err}") from err
        return decode(resp)

    def close(self) -> None:
        """Close the connections (not the http_client passed in)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def health(self) -> JSON:
        """GET /healthz: the server and its sandbox."""
        return dict(self._send(_routes.health()))

    def tools(self, dialect: Optional[str] = None, format: Optional[str] = None, *, session: Optional[SessionRef] = None,
              strict: Optional[bool] = None) -> List[JSON]:
        """The tool definitions for a model: ``format`` anthropic, openai or openai-responses gives the SDK's ``tools``."""
        return list(self._send(_routes.tools(dialect, format, session, strict))["tools"])

    def call(self, name: str, input: Optional[JSON] = None, *, session: Optional[SessionRef] = None,
             id: Optional[str] = None) -> CallResult:
        """Run one tool call: in ``session``, or in the server's default session."""
        block = tool_use_block(name, input, id)
        if session is None:
            return call_result(self._send(_routes.tool_use(block)))
        reply = self.run_message(session, {"role": "assistant", "content": [block]})
        return CallResult(result=(reply.message or {})["content"][0], call=reply.calls[0])

    def run_message(self, session: SessionRef, assistant_message: Any, *, on_approval: Optional[ApprovalHandler] = None,
                    on_question: Optional[QuestionHandler] = None) -> MessageReply:
        """Run every tool call of an assistant message and return the reply in its SDK's shape.

        ``assistant_message`` is an Anthropic ``Message``, an OpenAI
        ``ChatCompletionMessage`` or ``ChatCompletion``, a list of Responses
        output items or a ``Response`` (SDK objects or plain dicts). While
        the calls run, calls that wait for approval or an answer are handed
        to the handlers (these, else the client's), on this thread.
        """
        body = to_body(assistant_message)
        approval = on_approval or self._on_approval
        question = on_question or self._on_question
        if approval is None and question is None:
            return MessageReply.from_json(self._send(_routes.message(session, body)))
        return self._run_watched(session, body, approval, question)

    def _run_watched(self, session: SessionRef, body: Any, approval: Optional[ApprovalHandler],
                     question: Optional[QuestionHandler]) -> MessageReply:
        ids = call_ids(body)
        outcome: Dict[str, Any] = {}  # "reply" or "error", set by the posting thread
        with self.events(session, last_event_id=_routes.FROM_NOW) as stream:
            stream.open()  # the stream's cursor is set: the message's events all come after it

            def post() -> None:
                try:
                    outcome["reply"] = MessageReply.from_json(self._send(_routes.message(session, body)))
                except BaseException as err:  # handed to the caller's thread
                    outcome["error"] = err
                finally:
                    stream.close()

            worker = threading.Thread(target=post, name="toolgate-message", daemon=True)
            worker.start()
            failure: Optional[BaseException] = None
            for ev in stream:
                req = request_of(ev)
                if req is not None and is_call_of(req.tool_use_id, ids):
                    failure = self._handle(session, req, approval, question) or failure
            worker.join()
        if "error" in outcome:
            raise outcome["error"]
        if failure is not None:
            raise failure
        reply: MessageReply = outcome["reply"]
        return reply

    def _handle(self, session: SessionRef, req: Union[ApprovalRequest, Question], approval: Optional[ApprovalHandler],
                question: Optional[QuestionHandler]) -> Optional[BaseException]:
        """Ask the handler and deliver its reply; a handler that fails gets the call rejected or cancelled."""
        try:
            if isinstance(req, ApprovalRequest):
                if approval is not None:
                    self.decide(session, req.tool_use_id, as_decision(approval(req)))  # type: ignore[arg-type]
            elif question is not None:
                self.answer(session, req.tool_use_id, as_answer(question(req)))  # type: ignore[arg-type]
            return None
        except ConflictError:
            return None  # decided meanwhile elsewhere (the console, a timeout)
        except Exception as err:
            if isinstance(req, ApprovalRequest):
                self._quietly(lambda: self.reject(session, req.tool_use_id, feedback=f"the approval handler failed: {err}"))
            else:
                self._quietly(lambda: self.cancel(session, req.tool_use_id))
            return err

    @staticmethod
    def _quietly(action: Any) -> None:
        try:
            action()
        except ToolgateError:
            pass  # best effort: the call may have ended meanwhile

    def events(self, session: SessionRef, *, last_event_id: Optional[str] = None, ticket: Optional[str] = None) -> EventStream:
        """The session's events, from the start of its log (or after ``last_event_id``), resumed across drops.

        With ``ticket`` (from :meth:`sse_ticket`) the stream is opened with
        the ticket instead of the token.
        """
        headers = {k: v for k, v in self._headers.items() if not (ticket and k == "Authorization")}
        return EventStream(self._http, self._events_url(session), headers, params={"ticket": ticket} if ticket else None,
                           last_event_id=last_event_id, read_timeout=self._events_read_timeout,
                           max_retries=self._events_max_retries)

    def inbox(self, session: SessionRef, *, last_event_id: Optional[str] = None) -> Iterator[Union[ApprovalRequest, Question]]:
        """The session's calls waiting for a person, as they come: decide each with :meth:`decide` or :meth:`answer`."""
        with self.events(session, last_event_id=last_event_id) as stream:
            for ev in stream:
                req = request_of(ev)
                if req is not None:
                    yield req

    def calls(self, session: SessionRef, state: Optional[str] = None) -> List[CallRecord]:
        """The session's call records (state queued, running, awaiting_approval, awaiting_input or done)."""
        return [CallRecord.from_json(c) for c in self._send(_routes.calls(session, state))["calls"]]

    def get_call(self, session: SessionRef, tool_use_id: str) -> CallResult:
        """One call, with its tool_result once it is done (an empty dict before)."""
        return call_result(self._send(_routes.get_call(session, tool_use_id)))

    def decide(self, session: SessionRef, tool_use_id: str, decision: DecisionLike) -> None:
        """Approve or reject a call awaiting approval (ConflictError when it is not)."""
        self._send(_routes.decide(session, tool_use_id, as_decision(decision)))

    def approve(self, session: SessionRef, tool_use_id: str, *, remember: bool = False) -> None:
        """Approve a call; ``remember`` allows calls of its shape from now on in the session."""
        self.decide(session, tool_use_id, Decision.approved(remember))

    def reject(self, session: SessionRef, tool_use_id: str, *, feedback: str = "") -> None:
        """Reject a call; the message's later calls are skipped and the model reads the feedback."""
        self.decide(session, tool_use_id, Decision.rejected(feedback))

    def answer(self, session: SessionRef, tool_use_id: str, answer: AnswerLike) -> None:
        """Answer ask_followup_question (or plan_mode_respond, attempt_completion) with a text or an Answer."""
        self._send(_routes.answer(session, tool_use_id, as_answer(answer)))

    def cancel(self, session: SessionRef, tool_use_id: str) -> None:
        """Cancel a queued or running call; it ends with status cancelled."""
        self._send(_routes.cancel(session, tool_use_id))

    def interrupt(self, session: SessionRef) -> InterruptResult:
        """Interrupt the session: cancel what can be cancelled, let writes finish."""
        doc = self._send(_routes.interrupt(session))
        return InterruptResult(cancelled=int(doc["cancelled"]), finishing=int(doc["finishing"]))

    def sse_ticket(self, session: SessionRef) -> str:
        """A short-lived ticket that opens this session's event stream without the token."""
        return str(self._send(_routes.sse_ticket(session))["ticket"])


__all__ = ["Client", "Sessions", "Answer", "Decision"]
