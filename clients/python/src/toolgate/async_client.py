"""The asyncio client: the same API as :class:`toolgate.Client`, awaited."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, AsyncIterator, Callable, Dict, List, Optional, Set, Union

import httpx

from . import _routes
from ._base import DEFAULT_TIMEOUT, BaseClient, call_result, decode, responder, tool_use_block
from ._routes import SessionRef
from .adapters import FINISH_GRACE, call_ids, finishes, is_call_of, to_body
from .approvals import (WAITING_STATE, AnswerLike, ApprovalHandler, ApprovalRequest, Decision, DecisionLike, Pending,
                        QuestionHandler, QuestionRequest, as_answer, as_decision, request_of)
from .errors import APIConnectionError, ConflictError, NotFoundError, ToolgateError
from .events import DEFAULT_MAX_RETRIES, DEFAULT_READ_TIMEOUT, AsyncEventStream
from .models import CallRecord, CallResult, Event, InterruptResult, MessageReply, Session
from .subscription import AsyncSubscription, ErrorHandler, log_error

JSON = Dict[str, Any]
#: Receives each event of a message's calls while run_message runs (may be async).
EventHandler = Callable[[Event], Any]


async def _resolve(value: Any) -> Any:
    """A value, awaited when it is awaitable (an async handler's, a bound request's reply)."""
    return await value if inspect.isawaitable(value) else value


class AsyncSessions:
    """``client.sessions``: create, read, update and end sessions."""

    def __init__(self, client: "AsyncClient") -> None:
        self._client = client

    async def create(self, *, dialect: Optional[str] = None, mode: Optional[str] = None,
                     permissions: Optional[JSON] = None) -> Session:
        """Start a session."""
        return Session.from_json(await self._client._send(_routes.create_session(dialect, mode, permissions)))

    async def get(self, session: SessionRef) -> Session:
        """A session as it is now."""
        return Session.from_json(await self._client._send(_routes.get_session(session)))

    async def update(self, session: SessionRef, *, mode: Optional[str] = None, permissions: Optional[JSON] = None) -> Session:
        """Change a session's mode or rules."""
        return Session.from_json(await self._client._send(_routes.update_session(session, mode, permissions)))

    async def end(self, session: SessionRef) -> None:
        """End a session: its calls are cancelled and its event streams end."""
        await self._client._send(_routes.end_session(session))


class AsyncClient(BaseClient):
    """A toolgate client for asyncio; handlers may be plain or ``async`` functions."""

    def __init__(self, base_url: Optional[str] = None, token: Optional[str] = None, *,
                 timeout: Union[float, httpx.Timeout] = DEFAULT_TIMEOUT, http_client: Optional[httpx.AsyncClient] = None,
                 on_approval: Optional[ApprovalHandler] = None, on_question: Optional[QuestionHandler] = None,
                 events_read_timeout: float = DEFAULT_READ_TIMEOUT, events_max_retries: int = DEFAULT_MAX_RETRIES) -> None:
        super().__init__(base_url, token, on_approval, on_question, events_read_timeout, events_max_retries)
        self._http = http_client or httpx.AsyncClient(timeout=timeout)
        self._owns_http = http_client is None
        self.sessions = AsyncSessions(self)

    async def _send(self, req: _routes.Request) -> Any:
        try:
            resp = await self._http.send(self._build(self._http, req))
        except httpx.TransportError as err:
            raise APIConnectionError(f"{req.method} {req.path}: {err}") from err
        return decode(resp)

    async def aclose(self) -> None:
        """Close the connections (not the http_client passed in)."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def health(self) -> JSON:
        """GET /healthz."""
        return dict(await self._send(_routes.health()))

    async def tools(self, dialect: Optional[str] = None, format: Optional[str] = None, *,
                    session: Optional[SessionRef] = None, strict: Optional[bool] = None) -> List[JSON]:
        """The tool definitions for a model, in the SDK's format."""
        return list((await self.list_tools(dialect, format, session=session, strict=strict))["tools"])

    async def list_tools(self, dialect: Optional[str] = None, format: Optional[str] = None, *,
                         session: Optional[SessionRef] = None, strict: Optional[bool] = None) -> JSON:
        """:meth:`tools` with the rest of the answer: ``not_strict``, ``client_side``, ``errors``."""
        return dict(await self._send(_routes.tools(dialect, format, session, strict)))

    async def tool_use(self, block: JSON) -> CallResult:
        """Run one tool_use block in the server's "default" session."""
        return call_result(await self._send(_routes.tool_use(block)))

    async def run_tool(self, name: str, input: Optional[JSON] = None, *, session: Optional[SessionRef] = None,
                       id: Optional[str] = None) -> CallResult:
        """Run one tool call by name: in ``session``, or in the server's default session."""
        block = tool_use_block(name, input, id)
        if session is None:
            return await self.tool_use(block)
        reply = await self.post_message(session, {"role": "assistant", "content": [block]})
        return CallResult(result=(reply.message or {})["content"][0], call=reply.calls[0])

    async def run_message(self, session: SessionRef, assistant_message: Any, *,
                          on_approval: Optional[ApprovalHandler] = None,
                          on_question: Optional[QuestionHandler] = None,
                          on_event: Optional[EventHandler] = None) -> Any:
        """Run every tool call of an assistant message; see :meth:`toolgate.Client.run_message`."""
        return (await self.post_message(session, assistant_message, on_approval=on_approval, on_question=on_question,
                                        on_event=on_event)).to_sdk()

    async def post_message(self, session: SessionRef, assistant_message: Any, *,
                           on_approval: Optional[ApprovalHandler] = None,
                           on_question: Optional[QuestionHandler] = None,
                           on_event: Optional[EventHandler] = None) -> MessageReply:
        """:meth:`run_message` with toolgate's whole answer."""
        body = to_body(assistant_message)
        approval = on_approval or self._on_approval
        question = on_question or self._on_question
        if (approval is None and question is None and on_event is None) or not call_ids(body):
            return MessageReply.from_json(await self._send(_routes.message(session, body)))
        return await self._run_watched(session, body, approval, question, on_event)

    async def _run_watched(self, session: SessionRef, body: Any, approval: Optional[ApprovalHandler],
                           question: Optional[QuestionHandler], on_event: Optional[EventHandler]) -> MessageReply:
        ids = call_ids(body)
        failures: List[BaseException] = []
        async with self.events(session, last_event_id=_routes.FROM_NOW) as stream:
            await stream.open()  # the stream's cursor is set: the message's events all come after it
            post = asyncio.ensure_future(self._send(_routes.message(session, body)))

            async def watch() -> None:
                async for ev in stream:
                    if finishes(ev, ids):
                        return
                    if not ev.tool_use_id or not is_call_of(ev.tool_use_id, ids):
                        continue
                    if on_event is not None:
                        try:
                            await _resolve(on_event(ev))
                        except Exception as err:
                            failures.append(err)
                    req = request_of(ev, self._responder(session, ev.tool_use_id))
                    if req is None:
                        continue
                    try:
                        await self._deliver(req, approval, question)
                    except Exception as err:  # the call must not wait for an answer that will not come
                        failures.append(err)
                        try:
                            if isinstance(req, ApprovalRequest):
                                await req.reject(f"the approval handler failed: {err}")
                            else:
                                await self.cancel(session, req.tool_use_id)
                        except ToolgateError:
                            pass  # best effort: the call may have ended meanwhile

            watcher = asyncio.ensure_future(watch())
            try:
                await asyncio.wait({post, watcher}, return_when=asyncio.FIRST_COMPLETED)
                doc = await post
                # toolgate announces message.finished before it answers; the
                # watcher ends there, having seen every event before it.
                await asyncio.wait({watcher}, timeout=FINISH_GRACE)
            finally:
                watcher.cancel()
                await asyncio.gather(watcher, return_exceptions=True)
                if not post.done():
                    post.cancel()
        if failures:
            raise failures[0]
        return MessageReply.from_json(doc)

    @staticmethod
    async def _deliver(req: Pending, approval: Optional[ApprovalHandler], question: Optional[QuestionHandler]) -> None:
        """Ask the request's handler and send its reply; a call decided elsewhere meanwhile is no error."""
        try:
            if isinstance(req, ApprovalRequest):
                decision = await _resolve(approval(req)) if approval is not None else None
                if decision is not None:
                    await req.decide(decision)
            else:
                answer = await _resolve(question(req)) if question is not None else None
                if answer is not None:
                    await req.answer(answer)
        except ConflictError:
            pass

    def _responder(self, session: SessionRef, tool_use_id: str) -> Any:
        return responder(lambda d: self.decide(session, tool_use_id, d), lambda a: self.answer(session, tool_use_id, a))

    def events(self, session: SessionRef, *, last_event_id: Optional[str] = None,
               ticket: Optional[str] = None) -> AsyncEventStream:
        """The session's events as an async iterator, resumed across drops."""
        headers = {k: v for k, v in self._headers.items() if not (ticket and k == "Authorization")}
        return AsyncEventStream(self._http, self._events_url(session), headers, params={"ticket": ticket} if ticket else None,
                                last_event_id=last_event_id, read_timeout=self._events_read_timeout,
                                max_retries=self._events_max_retries)

    async def inbox(self, session: SessionRef, *, last_event_id: Optional[str] = None) -> AsyncIterator[Pending]:
        """Each call of the session that waits for a person, once, as it comes: ``await req.approve()``..."""
        async with self.events(session, last_event_id=last_event_id) as stream:
            async for req in self._pending(session, stream):
                yield req

    async def _pending(self, session: SessionRef, stream: AsyncEventStream) -> AsyncIterator[Pending]:
        # The stream replays the session's log: an event may be about a call
        # decided long ago, so each is checked against the call's state now.
        async for ev in stream:
            want = WAITING_STATE.get(ev.type)
            if want is None or not ev.tool_use_id:
                continue
            try:
                if (await self.call(session, ev.tool_use_id)).call.state != want:
                    continue
            except NotFoundError:
                continue
            req = request_of(ev, self._responder(session, ev.tool_use_id))
            if req is not None:
                yield req

    def on_approval(self, session: SessionRef, handler: ApprovalHandler, *,
                    on_error: ErrorHandler = log_error) -> AsyncSubscription:
        """Decide each call of the session that waits for approval, in tasks, until ``stop()``."""
        return self._subscribe(session, lambda req: self._deliver(req, handler, None) if isinstance(req, ApprovalRequest)
                               else None, on_error)

    def on_question(self, session: SessionRef, handler: QuestionHandler, *,
                    on_error: ErrorHandler = log_error) -> AsyncSubscription:
        """Answer each interactive call of the session, in tasks, until ``stop()``."""
        return self._subscribe(session, lambda req: self._deliver(req, None, handler) if isinstance(req, QuestionRequest)
                               else None, on_error)

    def _subscribe(self, session: SessionRef, handle: Callable[[Pending], Any], on_error: ErrorHandler) -> AsyncSubscription:
        stream = self.events(session)

        async def guarded(work: Any) -> None:
            try:
                await work
            except Exception as err:
                on_error(err)

        async def loop(running: Set["asyncio.Task[None]"]) -> None:
            try:
                async for req in self._pending(session, stream):
                    work = handle(req)
                    if work is not None:
                        task = asyncio.ensure_future(guarded(work))
                        running.add(task)
                        task.add_done_callback(running.discard)
            except Exception as err:
                on_error(err)

        return AsyncSubscription(stream, loop)

    async def calls(self, session: SessionRef, state: Optional[str] = None) -> List[CallRecord]:
        """The session's call records."""
        return [CallRecord.from_json(c) for c in (await self._send(_routes.calls(session, state)))["calls"]]

    async def call(self, session: SessionRef, tool_use_id: str) -> CallResult:
        """One call, with its tool_result once it is done."""
        return call_result(await self._send(_routes.get_call(session, tool_use_id)))

    async def jobs(self, session: SessionRef) -> List[JSON]:
        """The session's background jobs, oldest first."""
        return list((await self._send(_routes.jobs(session)))["jobs"])

    async def decide(self, session: SessionRef, tool_use_id: str, decision: DecisionLike) -> None:
        """Approve or reject a call awaiting approval."""
        await self._send(_routes.decide(session, tool_use_id, as_decision(decision)))

    async def approve(self, session: SessionRef, tool_use_id: str, *, remember: bool = False) -> None:
        """Approve a call."""
        await self.decide(session, tool_use_id, Decision.approved(remember))

    async def reject(self, session: SessionRef, tool_use_id: str, *, feedback: str = "") -> None:
        """Reject a call."""
        await self.decide(session, tool_use_id, Decision.rejected(feedback))

    async def answer(self, session: SessionRef, tool_use_id: str, answer: AnswerLike) -> None:
        """Answer an interactive call."""
        await self._send(_routes.answer(session, tool_use_id, as_answer(answer)))

    async def cancel(self, session: SessionRef, tool_use_id: str) -> None:
        """Cancel a queued or running call."""
        await self._send(_routes.cancel(session, tool_use_id))

    async def interrupt(self, session: SessionRef) -> InterruptResult:
        """Interrupt the session's calls."""
        doc = await self._send(_routes.interrupt(session))
        return InterruptResult(cancelled=int(doc["cancelled"]), finishing=int(doc["finishing"]))

    async def ticket(self, session: SessionRef) -> str:
        """A short-lived ticket that opens this session's event stream without the token."""
        return str((await self._send(_routes.ticket(session)))["ticket"])


__all__ = ["AsyncClient", "AsyncSessions"]
