"""Exceptions raised by the client, one class per family of toolgate's codes.

toolgate answers a request it refuses with ``{"error": {"code", "message",
"fields"?}}`` and a stable ``code``; every such answer becomes a
:class:`ToolgateError` subclass carrying that code, the HTTP status and the
fields that were wrong. A tool that fails is not an exception: its
tool_result has ``is_error`` set and its call record an error code, because
the model must see it.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Mapping, Optional, Type


class ToolgateError(Exception):
    """A request toolgate refused (``code`` is its stable error code)."""

    code: str
    message: str
    status: int
    fields: Dict[str, str]

    def __init__(self, code: str, message: str, status: int = 0, fields: Optional[Mapping[str, str]] = None) -> None:
        super().__init__(f"{code}: {message}" if code else message)
        self.code = code
        self.message = message
        self.status = status
        self.fields = dict(fields or {})


class BadRequestError(ToolgateError):
    """The request was malformed: bad JSON, a wrong field, a body too large."""


class ValidationError(BadRequestError):
    """A field of the request was wrong; ``fields`` names each with the reason."""


class AuthenticationError(ToolgateError):
    """The token is missing or wrong (``unauthorized``)."""


class PermissionDeniedError(ToolgateError):
    """The token lacks the route's scope, or the Host or Origin is not allowed."""


class NotFoundError(ToolgateError):
    """No such session, call, job or route."""


class ConflictError(ToolgateError):
    """The target is not in a state that allows the request (a call not awaiting approval, a changed file)."""


class LimitError(ToolgateError):
    """A server limit was reached: too many sessions or open messages."""


class RequestTimeoutError(ToolgateError):
    """The request body did not reach toolgate in time."""


class ServerError(ToolgateError):
    """toolgate failed or is unavailable (``internal``, ``unavailable``)."""


class APIConnectionError(ToolgateError):
    """toolgate could not be reached, or the connection broke before an answer."""

    def __init__(self, message: str) -> None:
        super().__init__("connection_error", message)


#: Every request-level code toolgate sends (openapi.yaml, Error.code), with its class.
ERROR_CLASSES: Dict[str, Type[ToolgateError]] = {
    "bad_request": BadRequestError,
    "invalid_json": BadRequestError,
    "validation_failed": ValidationError,
    "unsupported_media_type": BadRequestError,
    "body_too_large": BadRequestError,
    "not_acceptable": BadRequestError,
    "unauthorized": AuthenticationError,
    "forbidden_host": PermissionDeniedError,
    "forbidden_origin": PermissionDeniedError,
    "forbidden_scope": PermissionDeniedError,
    "not_found": NotFoundError,
    "method_not_allowed": NotFoundError,
    "conflict": ConflictError,
    "file_changed": ConflictError,
    "too_many_sessions": LimitError,
    "too_many_messages": LimitError,
    "request_timeout": RequestTimeoutError,
    "internal": ServerError,
    "unavailable": ServerError,
}


def error_from_response(status: int, body: bytes) -> ToolgateError:
    """Build the exception for a non-2xx answer from its status and body."""
    code, message, fields = "", "", None
    try:
        doc: Any = json.loads(body)
        err = doc.get("error") if isinstance(doc, dict) else None
        if isinstance(err, dict):
            code = str(err.get("code", ""))
            message = str(err.get("message", ""))
            if isinstance(err.get("fields"), dict):
                fields = {str(k): str(v) for k, v in err["fields"].items()}
    except ValueError:
        pass
    if not message:
        message = body.decode("utf-8", "replace").strip() or f"HTTP {status}"
    cls = ERROR_CLASSES.get(code)
    if cls is None:
        cls = ServerError if status >= 500 else ToolgateError
    return cls(code or f"http_{status}", message, status, fields)
