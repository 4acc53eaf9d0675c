"""A client for toolgate, the server that runs AI coding agents' tool calls.

    tg = toolgate.Client()                          # TOOLGATE_URL, TOOLGATE_TOKEN
    s = tg.sessions.create(dialect="cline")
    messages.append(tg.run_message(s, message))     # an Anthropic Message: the user message of tool results
    messages.extend(tg.run_message(s, chat_msg))    # an OpenAI message: its role "tool" messages

:class:`Client` blocks, :class:`AsyncClient` is for asyncio; both have the
same methods.
"""

from ._routes import FROM_NOW
from .adapters import has_tool_calls, to_body
from .approvals import Answer, ApprovalRequest, Decision, Pending, QuestionRequest
from .async_client import AsyncClient
from .client import Client
from .errors import (APIConnectionError, AuthenticationError, BadRequestError, ConflictError, LimitError, NotFoundError,
                     PermissionDeniedError, RequestTimeoutError, ServerError, ToolgateError, ValidationError)
from .events import AsyncEventStream, EventStream
from .models import CallRecord, CallResult, Event, InterruptResult, MessageReply, Session, result_text
from .subscription import AsyncSubscription, Subscription

__version__ = "0.1.0"

__all__ = [
    "APIConnectionError", "Answer", "ApprovalRequest", "AsyncClient", "AsyncEventStream", "AuthenticationError",
    "BadRequestError", "CallRecord", "CallResult", "Client", "ConflictError", "Decision", "Event", "EventStream", "FROM_NOW",
    "InterruptResult", "LimitError", "MessageReply", "NotFoundError", "Pending", "PermissionDeniedError",
    "QuestionRequest", "RequestTimeoutError", "ServerError", "Session", "Subscription", "AsyncSubscription",
    "ToolgateError", "ValidationError", "has_tool_calls", "result_text", "to_body",
]
