"""What the sync and async clients share: configuration, headers, decoding."""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, Optional, Union

import httpx

from . import _routes
from .approvals import Answer, ApprovalHandler, Decision, QuestionHandler
from .errors import error_from_response
from .models import CallResult, CallRecord

#: Where ``toolgate serve`` listens unless told otherwise.
DEFAULT_URL = "http://127.0.0.1:7420"
#: A connection within 10 s; an answer whenever the calls end (a command may
#: run for minutes, an approval waits for a person).
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0, read=None)

JSON = Dict[str, Any]


class BaseClient:
    """Configuration common to :class:`~toolgate.Client` and :class:`~toolgate.AsyncClient`."""

    def __init__(self, base_url: Optional[str], token: Optional[str], on_approval: Optional[ApprovalHandler],
                 on_question: Optional[QuestionHandler], events_read_timeout: float, events_max_retries: int) -> None:
        self.base_url = (base_url or os.environ.get("TOOLGATE_URL") or DEFAULT_URL).rstrip("/")
        token = token if token is not None else os.environ.get("TOOLGATE_TOKEN")
        self._headers: Dict[str, str] = {"Accept": "application/json"}
        if token:
            self._headers["Authorization"] = "Bearer " + token
        self._on_approval = on_approval
        self._on_question = on_question
        self._events_read_timeout = events_read_timeout
        self._events_max_retries = events_max_retries

    def _build(self, http: Union[httpx.Client, httpx.AsyncClient], req: _routes.Request) -> httpx.Request:
        content = None
        headers = dict(self._headers)
        if req.json is not None:
            content = json.dumps(req.json).encode()
            headers["Content-Type"] = "application/json"
        return http.build_request(req.method, self.base_url + req.path, params=req.params, content=content, headers=headers)

    def _events_url(self, session: _routes.SessionRef) -> str:
        return self.base_url + _routes.events_path(session)


def decode(resp: httpx.Response) -> Any:
    """The JSON of a 2xx answer (None when empty); the typed exception otherwise."""
    if resp.status_code >= 300:
        raise error_from_response(resp.status_code, resp.content)
    if not resp.content:
        return None
    return resp.json()


def call_result(doc: JSON) -> CallResult:
    """Read a {"result", "call"} answer."""
    return CallResult(result=doc.get("result") or {}, call=CallRecord.from_json(doc.get("call") or {}))


def responder(decide: Callable[[Decision], Any], answer: Callable[[Answer], Any]) -> Callable[[Any], Any]:
    """Sends a request's reply: a Decision through decide, an Answer through answer."""
    return lambda reply: decide(reply) if isinstance(reply, Decision) else answer(reply)


def tool_use_block(name: str, input: Optional[JSON], id: Optional[str]) -> JSON:
    """A tool_use block; without an id, a fresh one."""
    if id is None:
        id = "toolu_" + os.urandom(12).hex()
    return {"type": "tool_use", "id": id, "name": name, "input": input or {}}
