"""toolgate's routes as request values, shared by the sync and async clients.

Each function returns what one call sends (method, path, query, body); the
clients only do the I/O, so the two cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Union
from urllib.parse import quote

from .approvals import Answer, Decision
from .models import Session

JSON = Dict[str, Any]

#: A session, by its object or its id.
SessionRef = Union[Session, str]

#: A Last-Event-ID ahead of every log, which toolgate reads as "from now on".
FROM_NOW = str(2**63 - 1)


@dataclass(frozen=True)
class Request:
    """One HTTP request to toolgate, before it is sent."""

    method: str
    path: str
    params: Optional[Dict[str, str]] = None
    json: Any = None


def session_id(session: SessionRef) -> str:
    """The id of a session given as an object or an id."""
    return session.id if isinstance(session, Session) else str(session)


def _s(session: SessionRef) -> str:
    return "/v1/sessions/" + quote(session_id(session), safe="")


def _call(session: SessionRef, tool_use_id: str) -> str:
    return _s(session) + "/calls/" + quote(tool_use_id, safe="")


def _drop_none(doc: JSON) -> JSON:
    return {k: v for k, v in doc.items() if v is not None}


def health() -> Request:
    """GET /healthz."""
    return Request("GET", "/healthz")


def tools(dialect: Optional[str], format: Optional[str], session: Optional[SessionRef], strict: Optional[bool]) -> Request:
    """GET /v1/tools with the pool and format asked for."""
    params = _drop_none({"dialect": dialect, "format": format, "session": session_id(session) if session is not None else None})
    if strict is not None:
        params["strict"] = "true" if strict else "false"
    return Request("GET", "/v1/tools", params=params or None)


def tool_use(block: JSON) -> Request:
    """POST /v1/tool_use: one block in the default session."""
    return Request("POST", "/v1/tool_use", json=block)


def create_session(dialect: Optional[str], mode: Optional[str], permissions: Optional[JSON]) -> Request:
    """POST /v1/sessions."""
    return Request("POST", "/v1/sessions", json=_drop_none({"dialect": dialect, "mode": mode, "permissions": permissions}))


def get_session(session: SessionRef) -> Request:
    """GET /v1/sessions/{sid}."""
    return Request("GET", _s(session))


def update_session(session: SessionRef, mode: Optional[str], permissions: Optional[JSON]) -> Request:
    """PATCH /v1/sessions/{sid}."""
    return Request("PATCH", _s(session), json=_drop_none({"mode": mode, "permissions": permissions}))


def end_session(session: SessionRef) -> Request:
    """DELETE /v1/sessions/{sid}: cancels its calls and closes its streams."""
    return Request("DELETE", _s(session))


def message(session: SessionRef, body: Any) -> Request:
    """POST /v1/sessions/{sid}/messages."""
    return Request("POST", _s(session) + "/messages", json=body)


def calls(session: SessionRef, state: Optional[str]) -> Request:
    """GET /v1/sessions/{sid}/calls[?state=]."""
    return Request("GET", _s(session) + "/calls", params={"state": state} if state else None)


def get_call(session: SessionRef, tool_use_id: str) -> Request:
    """GET /v1/sessions/{sid}/calls/{id}."""
    return Request("GET", _call(session, tool_use_id))


def decide(session: SessionRef, tool_use_id: str, decision: Decision) -> Request:
    """POST .../calls/{id}/decision."""
    return Request("POST", _call(session, tool_use_id) + "/decision", json=decision.body())


def answer(session: SessionRef, tool_use_id: str, reply: Answer) -> Request:
    """POST .../calls/{id}/answer."""
    return Request("POST", _call(session, tool_use_id) + "/answer", json=reply.body())


def cancel(session: SessionRef, tool_use_id: str) -> Request:
    """POST .../calls/{id}/cancel."""
    return Request("POST", _call(session, tool_use_id) + "/cancel")


def interrupt(session: SessionRef) -> Request:
    """POST /v1/sessions/{sid}/interrupt."""
    return Request("POST", _s(session) + "/interrupt")


def jobs(session: SessionRef) -> Request:
    """GET /v1/sessions/{sid}/jobs."""
    return Request("GET", _s(session) + "/jobs")


def ticket(session: SessionRef) -> Request:
    """POST /v1/sse-tickets."""
    return Request("POST", "/v1/sse-tickets", json={"session": session_id(session)})


def events_path(session: SessionRef) -> str:
    """The path of a session's event stream."""
    return _s(session) + "/events"
