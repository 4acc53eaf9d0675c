"""The asyncio client: the same API as :class:`toolgate.Client`, awaited."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, AsyncIterator, Dict, List, Optional, Union

import httpx

from . import _routes
from ._base import DEFAULT_TIMEOUT, BaseClient, call_result, decode, tool_use_block
from ._routes import SessionRef
from .adapters import call_ids, is_call_of, to_body
from .approvals import (AnswerLike, ApprovalHandler, ApprovalRequest, Decision, DecisionLike, Question, QuestionHandler,
                        as_answer, as_decision, request_of)
from .errors import APIConnectionError, ConflictError, ToolgateError
from .events import DEFAULT_MAX_RETRIES, DEFAULT_READ_TIMEOUT, AsyncEventStream
from .models import CallRecord, CallResult, InterruptResult, MessageReply, Session

JSON = Dict[str, Any]


async def _resolve(value: Any) -> Any:
    """A handler's return value, awaited when the handler is a coroutine function."""
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
        return list((await self._send(_routes.tools(dialect, format, session, strict)))["tools"])

    async def call(self, name: str, input: Optional[JSON] = None, *, session: Optional[SessionRef] = None,
                   id: Optional[str] = None) -> CallResult:
        """Run one tool call: in ``session``, or in the server's default session."""
        block = tool_use_block(name, input, id)
        if session is None:
            return call_result(await self._send(_routes.tool_use(block)))
        reply = await self.run_message(session, {"role": "assistant", "content": [block]})
        return CallResult(result=(reply.message or {})["content"][0], call=reply.calls[0])

    async def run_message(self, session: SessionRef, assistant_message: Any, *,
                          on_approval: Optional[ApprovalHandler] = None,
                          on_question: Optional[QuestionHandler] = None) -> MessageReply:
        """Run every tool call of an assistant message; see :meth:`toolgate.Client.run_message`."""
        body = to_body(assistant_message)
        approval = on_approval or self._on_approval
        question = on_question or self._on_question
        if approval is None and question is None:
            return MessageReply.from_json(await self._send(_routes.message(session, body)))
        return await self._run_watched(session, body, approval, question)

    async def _run_watched(self, session: SessionRef, body: Any, approval: Optional[ApprovalHandler],
                           question: Optional[QuestionHandler]) -> MessageReply:
        ids = call_ids(body)
        failures: List[BaseException] = []
        async with self.events(session, last_event_id=_routes.FROM_NOW) as stream:
            await stream.open()  # the stream's cursor is set: the message's events all come after it
            post = asyncio.ensure_future(self._send(_routes.message(session, body)))

            async def watch() -> None:
                async for ev in stream:
                    req = request_of(ev)
                    if req is not None and is_call_of(req.tool_use_id, ids):
                        err = await self._handle(session, req, approval, question)
                        if err is not None:
                            failures.append(err)

            watcher = asyncio.ensure_future(watch())
            try:
                await asyncio.wait({post, watcher}, return_when=asyncio.FIRST_COMPLETED)
                doc = await post
            finally:
                watcher.cancel()
                await asyncio.gather(watcher, return_exceptions=True)
                if not post.done():
                    post.cancel()
        if failures:
            raise failures[0]
        return MessageReply.from_json(doc)

    async def _handle(self, session: SessionRef, req: Union[ApprovalRequest, Question], approval: Optional[ApprovalHandler],
                      question: Optional[QuestionHandler]) -> Optional[BaseException]:
        """Ask the handler and deliver its reply; a handler that fails gets the call rejected or cancelled."""
        try:
            if isinstance(req, ApprovalRequest):
                if approval is not None:
                    await self.decide(session, req.tool_use_id, as_decision(await _resolve(approval(req))))
            elif question is not None:
                await self.answer(session, req.tool_use_id, as_answer(await _resolve(question(req))))
            return None
        except ConflictError:
            return None  # decided meanwhile elsewhere (the console, a timeout)
        except Exception as err:
            try:
                if isinstance(req, ApprovalRequest):
                    await self.reject(session, req.tool_use_id, feedback=f"the approval handler failed: {err}")
                else:
                    await self.cancel(session, req.tool_use_id)
            except ToolgateError:
                pass  # best effort: the call may have ended meanwhile
            return err

    def events(self, session: SessionRef, *, last_event_id: Optional[str] = None,
               ticket: Optional[str] = None) -> AsyncEventStream:
        """The session's events as an async iterator, resumed across drops."""
        headers = {k: v for k, v in self._headers.items() if not (ticket and k == "Authorization")}
        return AsyncEventStream(self._http, self._events_url(session), headers, params={"ticket": ticket} if ticket else None,
                                last_event_id=last_event_id, read_timeout=self._events_read_timeout,
                                max_retries=self._events_max_retries)

    async def inbox(self, session: SessionRef, *,
                    last_event_id: Optional[str] = None) -> AsyncIterator[Union[ApprovalRequest, Question]]:
        """The session's calls waiting for a person, as they come."""
        async with self.events(session, last_event_id=last_event_id) as stream:
            async for ev in stream:
                req = request_of(ev)
                if req is not None:
                    yield req

    async def calls(self, session: SessionRef, state: Optional[str] = None) -> List[CallRecord]:
        """The session's call records."""
        return [CallRecord.from_json(c) for c in (await self._send(_routes.calls(session, state)))["calls"]]

    async def get_call(self, session: SessionRef, tool_use_id: str) -> CallResult:
        """One call, with its tool_result once it is done."""
        return call_result(await self._send(_routes.get_call(session, tool_use_id)))

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

    async def sse_ticket(self, session: SessionRef) -> str:
        """A short-lived ticket that opens this session's event stream without the token."""
        return str((await self._send(_routes.sse_ticket(session)))["ticket"])


__all__ = ["AsyncClient", "AsyncSessions"]
