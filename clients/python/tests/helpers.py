"""Message builders and small waits the tests share."""

from __future__ import annotations

import json
import os
import threading
from typing import Any, Callable, Dict, List, Optional

import toolgate

JSON = Dict[str, Any]


def new_id(prefix: str) -> str:
    """A fresh tool call id: a repeated id would be answered from the session's cache."""
    return prefix + os.urandom(6).hex()


def tool_use(id: str, name: str, **input: Any) -> JSON:
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def anthropic(*blocks: JSON) -> JSON:
    """An assistant Message as the Messages API returns it, with the fields toolgate passes over."""
    return {"id": new_id("msg_"), "type": "message", "role": "assistant", "model": "claude-mock",
            "content": [{"type": "text", "text": "Let me look."}, *blocks],
            "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}


def chat(*calls: "tuple[str, str, JSON]") -> JSON:
    """A Chat Completions assistant message with tool_calls (arguments as JSON strings)."""
    return {"role": "assistant", "content": None, "refusal": None,
            "tool_calls": [{"id": id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                           for id, name, args in calls]}


def responses(*calls: "tuple[str, str, JSON]") -> List[JSON]:
    """Responses API output items: a reasoning item and function_call items."""
    items: List[JSON] = [{"type": "reasoning", "id": new_id("rs_"), "summary": []}]
    for call_id, name, args in calls:
        items.append({"type": "function_call", "id": new_id("fc_"), "call_id": call_id, "name": name,
                      "arguments": json.dumps(args), "status": "completed"})
    return items


class Background:
    """Runs a function on a thread; ``result(timeout)`` returns its value or raises its error."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        self._value: Optional[Any] = None
        self._error: Optional[BaseException] = None
        self._thread = threading.Thread(target=self._run, args=(fn,), daemon=True)
        self._thread.start()

    def _run(self, fn: Callable[[], Any]) -> None:
        try:
            self._value = fn()
        except BaseException as err:
            self._error = err

    def result(self, timeout: float = 30.0) -> Any:
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError(f"the background call did not end within {timeout}s")
        if self._error is not None:
            raise self._error
        return self._value


def wait_for_event(stream: toolgate.EventStream, kind: str, tool_use_id: str) -> toolgate.Event:
    """The first event of that type for that call (the test's timeout bounds the wait)."""
    for ev in stream:
        if ev.type == kind and ev.tool_use_id == tool_use_id:
            return ev
    raise AssertionError(f"the stream ended before {kind} for {tool_use_id}")
