"""The synchronous client."""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Union

import httpx

from . import _routes
from ._base import DEFAULT_TIMEOUT, BaseClient, call_result, decode, responder, tool_use_block
from ._routes import SessionRef
from .adapters import FINISH_GRACE, call_ids, finishes, is_call_of, to_body
from .approvals import (WAITING_STATE, AnswerLike, ApprovalHandler, ApprovalRequest, Decision, DecisionLike, Pending,
                        QuestionHandler, QuestionRequest, as_answer, as_decision, request_of)
from .errors import APIConnectionError, ConflictError, NotFoundError, ToolgateError
from .events import DEFAULT_MAX_RETRIES, DEFAULT_READ_TIMEOUT, EventStream
from .models import CallRecord, CallResult, Event, InterruptResult, MessageReply, Session
from .subscription import ErrorHandler, Subscription, log_error

JSON = Dict[str, Any]
#: Receives each event of a message's calls while run_message runs.
EventHandler = Callable[[Event], Any]


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
    ``on_question`` are the handlers :meth:`run_message` asks about the
    message's calls that wait for a person, unless it is given others.
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
        return list(self.list_tools(dialect, format, session=session, strict=strict)["tools"])

    def list_tools(self, dialect: Optional[str] = None, format: Optional[str] = None, *,
                   session: Optional[SessionRef] = None, strict: Optional[bool] = None) -> JSON:
        """:meth:`tools` with the rest of the answer: ``not_strict``, ``client_side``, ``errors``."""
        return dict(self._send(_routes.tools(dialect, format, session, strict)))

    def tool_use(self, block: JSON) -> CallResult:
        """Run one tool_use block in the server's "default" session."""
        return call_result(self._send(_routes.tool_use(block)))

    def run_tool(self, name: str, input: Optional[JSON] = None, *, session: Optional[SessionRef] = None,
                 id: Optional[str] = None) -> CallResult:
        """Run one tool call by name: in ``session``, or in the server's default session."""
        block = tool_use_block(name, input, id)
        if session is None:
            return self.tool_use(block)
        reply = self.post_message(session, {"role": "assistant", "content": [block]})
        return CallResult(result=(reply.message or {})["content"][0], call=reply.calls[0])

    def run_message(self, session: SessionRef, assistant_message: Any, *, on_approval: Optional[ApprovalHandler] = None,
                    on_question: Optional[QuestionHandler] = None, on_event: Optional[EventHandler] = None) -> Any:
        """Run every tool call of an assistant message; return what the model's SDK takes next.

        ``assistant_message`` is an Anthropic ``Message``, an OpenAI
        ``ChatCompletionMessage`` or ``ChatCompletion``, a list of Responses
        output items or a ``Response`` (SDK objects or plain dicts). The
        answer is, in the same order, the user message of tool_result blocks
        (append it), the role "tool" messages or the output items answering
        the calls (extend with them): a dict or a list of dicts, typed Any
        since which depends on the message (:meth:`post_message` types each
        shape). While the calls run, those that wait for approval or an
        answer go to the handlers (these, else the client's), and each event
        of the message's calls (tool.started, tool.output chunks,
        tool.finished...) to ``on_event``, on this thread.
        """
        return self.post_message(session, assistant_message, on_approval=on_approval, on_question=on_question,
                                 on_event=on_event).to_sdk()

    def post_message(self, session: SessionRef, assistant_message: Any, *, on_approval: Optional[ApprovalHandler] = None,
                     on_question: Optional[QuestionHandler] = None, on_event: Optional[EventHandler] = None) -> MessageReply:
        """:meth:`run_message` with toolgate's whole answer: the reply, its shape, the message id, each call's record."""
        body = to_body(assistant_message)
        approval = on_approval or self._on_approval
        question = on_question or self._on_question
        if (approval is None and question is None and on_event is None) or not call_ids(body):
            return MessageReply.from_json(self._send(_routes.message(session, body)))
        return self._run_watched(session, body, approval, question, on_event)

    def _run_watched(self, session: SessionRef, body: Any, approval: Optional[ApprovalHandler],
                     question: Optional[QuestionHandler], on_event: Optional[EventHandler]) -> MessageReply:
        ids = call_ids(body)
        outcome: Dict[str, Any] = {}  # "reply" or "error", set by the posting thread
        finished = threading.Event()  # the reader saw the message's last event
        with self.events(session, last_event_id=_routes.FROM_NOW) as stream:
            stream.open()  # the stream's cursor is set: the message's events all come after it

            def post() -> None:
                try:
                    outcome["reply"] = MessageReply.from_json(self._send(_routes.message(session, body)))
                except BaseException as err:  # handed to the caller's thread
                    outcome["error"] = err
                    stream.close()
                    return
                # toolgate announces message.finished before it answers; the
                # reader stops there, having seen every event before it.
                if not finished.wait(FINISH_GRACE):
                    stream.close()

            worker = threading.Thread(target=post, name="toolgate-message", daemon=True)
            worker.start()
            failure: Optional[BaseException] = None
            for ev in stream:
                if finishes(ev, ids):
                    break
                if not ev.tool_use_id or not is_call_of(ev.tool_use_id, ids):
                    continue
                if on_event is not None:
                    try:
                        on_event(ev)
                    except Exception as err:
                        failure = failure or err
                req = request_of(ev, self._responder(session, ev.tool_use_id))
                if req is not None:
                    try:
                        self._deliver(req, approval, question)
                    except Exception as err:  # the call must not wait for an answer that will not come
                        self._quietly(lambda: req.reject(f"the approval handler failed: {err}")
                                      if isinstance(req, ApprovalRequest) else self.cancel(session, req.tool_use_id))
                        failure = failure or err
            finished.set()
            worker.join()
        if "error" in outcome:
            raise outcome["error"]
        if failure is not None:
            raise failure
        reply: MessageReply = outcome["reply"]
        return reply

    @staticmethod
    def _deliver(req: Pending, approval: Optional[ApprovalHandler], question: Optional[QuestionHandler]) -> None:
        """Ask the request's handler and send its reply; a call decided elsewhere meanwhile is no error."""
        try:
            if isinstance(req, ApprovalRequest):
                decision = approval(req) if approval is not None else None
                if decision is not None:
                    req.decide(decision)  # type: ignore[arg-type]
            else:
                answer = question(req) if question is not None else None
                if answer is not None:
                    req.answer(answer)  # type: ignore[arg-type]
        except ConflictError:
            pass

    @staticmethod
    def _quietly(action: Any) -> None:
        try:
            action()
        except ToolgateError:
            pass  # best effort: the call may have ended meanwhile

    def _responder(self, session: SessionRef, tool_use_id: str) -> Any:
        return responder(lambda d: self.decide(session, tool_use_id, d), lambda a: self.answer(session, tool_use_id, a))

    def events(self, session: SessionRef, *, last_event_id: Optional[str] = None, ticket: Optional[str] = None) -> EventStream:
        """The session's events, from the start of its log (or after ``last_event_id``), resumed across drops.

        With ``ticket`` (from :meth:`ticket`) the stream is opened with the
        ticket instead of the token.
        """
        headers = {k: v for k, v in self._headers.items() if not (ticket and k == "Authorization")}
        return EventStream(self._http, self._events_url(session), headers, params={"ticket": ticket} if ticket else None,
                           last_event_id=last_event_id, read_timeout=self._events_read_timeout,
                           max_retries=self._events_max_retries)

    def inbox(self, session: SessionRef, *, last_event_id: Optional[str] = None) -> Iterator[Pending]:
        """Each call of the session that waits for a person, once, as it comes: ``req.approve()``, ``req.answer(text)``..."""
        with self.events(session, last_event_id=last_event_id) as stream:
            yield from self._pending(session, stream)

    def _pending(self, session: SessionRef, stream: EventStream) -> Iterator[Pending]:
        # The stream replays the session's log: an event may be about a call
        # decided long ago, so each is checked against the call's state now.
        for ev in stream:
            want = WAITING_STATE.get(ev.type)
            if want is None or not ev.tool_use_id:
                continue
            try:
                if self.call(session, ev.tool_use_id).call.state != want:
                    continue
            except NotFoundError:
                continue
            req = request_of(ev, self._responder(session, ev.tool_use_id))
            if req is not None:
                yield req

    def on_approval(self, session: SessionRef, handler: ApprovalHandler, *, on_error: ErrorHandler = log_error) -> Subscription:
        """Decide each call of the session that waits for approval, on a thread, until ``stop()``."""
        return self._subscribe(session, lambda req: isinstance(req, ApprovalRequest) and self._deliver(req, handler, None),
                               on_error)

    def on_question(self, session: SessionRef, handler: QuestionHandler, *, on_error: ErrorHandler = log_error) -> Subscription:
        """Answer each interactive call of the session (ask_followup_question...), on a thread, until ``stop()``."""
        return self._subscribe(session, lambda req: isinstance(req, QuestionRequest) and self._deliver(req, None, handler),
                               on_error)

    def _subscribe(self, session: SessionRef, handle: Callable[[Pending], Any], on_error: ErrorHandler) -> Subscription:
        stream = self.events(session)

        def loop() -> None:
            try:
                for req in self._pending(session, stream):
                    try:
                        handle(req)
                    except Exception as err:
                        on_error(err)
            except Exception as err:
                on_error(err)

        return Subscription(stream, loop)

    def calls(self, session: SessionRef, state: Optional[str] = None) -> List[CallRecord]:
        """The session's call records (state queued, running, awaiting_approval, awaiting_input or done)."""
        return [CallRecord.from_json(c) for c in self._send(_routes.calls(session, state))["calls"]]

    def call(self, session: SessionRef, tool_use_id: str) -> CallResult:
        """One call, with its tool_result once it is done (an empty dict before)."""
        return call_result(self._send(_routes.get_call(session, tool_use_id)))

    def jobs(self, session: SessionRef) -> List[JSON]:
        """The session's background jobs (execute_command with background), oldest first."""
        return list(self._send(_routes.jobs(session))["jobs"])

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

    def ticket(self, session: SessionRef) -> str:
        """A short-lived ticket that opens this session's event stream without the token."""
        return str(self._send(_routes.ticket(session))["ticket"])


__all__ = ["Client", "Sessions"]
