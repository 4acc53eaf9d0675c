"""Handlers that answer a session's waiting calls in the background.

``client.on_approval(session, handler)`` and ``client.on_question(...)``
read the session's event stream (from the start of its log, so calls that
waited before the subscription are seen too) and hand each call that still
waits to the handler. The sync client runs them on a thread of its own,
the asyncio client in a task, each handler in a task of its own so that a
person may answer the second prompt first.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any, Callable, Optional, Set

from .events import AsyncEventStream, EventStream

#: Receives what went wrong in a subscription: a failed stream or a handler that raised.
ErrorHandler = Callable[[BaseException], None]

_log = logging.getLogger("toolgate")


def log_error(err: BaseException) -> None:
    """The default ErrorHandler: log it on the "toolgate" logger."""
    _log.error("toolgate subscription: %s", err, exc_info=err)


class Subscription:
    """A handler running on a thread until :meth:`stop` (or the session ends)."""

    def __init__(self, stream: EventStream, loop: Callable[[], None]) -> None:
        self._stream = stream
        self._thread = threading.Thread(target=loop, name="toolgate-subscription", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """End the subscription's event stream; decisions already sent stand."""
        self._stream.close()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait for the subscription to end; False when ``timeout`` passed first."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
        self.wait()


class AsyncSubscription:
    """A handler running in a task until :meth:`stop` (or the session ends)."""

    def __init__(self, stream: AsyncEventStream, loop: Callable[[Set["asyncio.Task[None]"]], Any]) -> None:
        self._stream = stream
        self._running: Set["asyncio.Task[None]"] = set()
        self._task = asyncio.ensure_future(self._run(loop))

    async def _run(self, loop: Callable[[Set["asyncio.Task[None]"]], Any]) -> None:
        try:
            await loop(self._running)
        finally:
            await self._stream.aclose()
            if self._running:
                await asyncio.gather(*self._running, return_exceptions=True)

    def stop(self) -> None:
        """End the subscription; handlers already running finish."""
        self._task.cancel()

    async def wait(self) -> None:
        """Wait for the subscription to end."""
        await asyncio.gather(self._task, return_exceptions=True)

    async def __aenter__(self) -> "AsyncSubscription":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        self.stop()
        await self.wait()
