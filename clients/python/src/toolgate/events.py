"""A session's event stream as an iterator that survives dropped connections.

toolgate numbers a session's events and keeps a bounded log of them; a
client that reconnects with ``Last-Event-ID`` gets every event after that
id, none twice. The streams here remember the id of the last whole event
they parsed and reconnect with it when the connection breaks (a reset, a
cut in the middle of an event, no byte for ``read_timeout`` although the
server sends a keep-alive every 15 seconds). They end when toolgate ends
the stream: the session was ended or the server is stopping.
"""

from __future__ import annotations

import asyncio
import re
import socket
import threading
from collections import deque
from typing import Any, AsyncIterator, Deque, Dict, Iterator, List, Optional

import httpx

from .errors import APIConnectionError, error_from_response
from .models import Event
from .sse import SSEParser

#: Seconds without a byte after which a stream counts as dropped.
DEFAULT_READ_TIMEOUT = 60.0
#: Failed connection attempts in a row after which the iterator gives up.
DEFAULT_MAX_RETRIES = 8


class _Resume:
    """The state the sync and async streams share: the cursor, the parser, the backoff."""

    def __init__(self, last_event_id: Optional[str], max_retries: int) -> None:
        self.last_event_id = last_event_id
        self.parser = SSEParser()
        self.queue: Deque[Event] = deque()
        self.max_retries = max_retries
        self.failures = 0
        #: Connections that broke and were resumed.
        self.reconnects = 0
        #: Events toolgate no longer kept when the stream asked for them.
        self.missed = 0

    def headers(self, base: Dict[str, str]) -> Dict[str, str]:
        headers = dict(base)
        headers["Accept"] = "text/event-stream"
        headers["Cache-Control"] = "no-cache"
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = self.last_event_id
        return headers

    def feed(self, chunk: bytes) -> None:
        for sse in self.parser.feed(chunk):
            if not sse.data:
                continue
            self.queue.append(Event.from_json(sse.data))
            if sse.id is not None:
                self.last_event_id = sse.id
        for comment in self.parser.comments:
            gap = _MISSED.match(comment)
            if gap:
                self.missed += int(gap.group(1))
        self.parser.comments.clear()

    def failed(self, err: Exception) -> float:
        """Count a failed attempt; the delay before the next, or raise when out of attempts."""
        self.failures += 1
        if self.failures > self.max_retries:
            raise APIConnectionError(f"the event stream could not be resumed after {self.max_retries} attempts: {err}") from err
        base = (self.parser.retry or 200) / 1000.0
        return float(min(base * 2 ** (self.failures - 1), 10.0))

    def connected(self) -> None:
        self.failures = 0
        self.parser.reset()


# toolgate's comment when the bounded log no longer holds events a client
# asked for (a resume from an id too old, a reader too slow).
_MISSED = re.compile(r"^(\d+) earlier events are no longer kept$")


def _retryable(status: int) -> bool:
    return status >= 500 or status == 429


class EventStream(Iterator[Event]):
    """A session's events, resumed after every dropped connection (sync).

    Iterate it, or use it as a context manager to close it. :meth:`close`
    may be called from another thread: it wakes a blocked read.
    """

    def __init__(self, http: httpx.Client, url: str, headers: Dict[str, str], *, params: Optional[Dict[str, str]] = None,
                 last_event_id: Optional[str] = None, read_timeout: float = DEFAULT_READ_TIMEOUT,
                 max_retries: int = DEFAULT_MAX_RETRIES) -> None:
        self._http = http
        self._url = url
        self._base_headers = headers
        self._params = params
        self._timeout = httpx.Timeout(30.0, read=read_timeout)
        self._state = _Resume(last_event_id, max_retries)
        self._response: Optional[httpx.Response] = None
        self._chunks: Optional[Iterator[bytes]] = None
        self._lock = threading.Lock()
        self._stop = threading.Event()  # set by close(); cuts a backoff wait short
        self._closed = False
        self._ended = False

    @property
    def last_event_id(self) -> Optional[str]:
        """The id of the last event parsed: pass it as last_event_id to pick up later."""
        return self._state.last_event_id

    @property
    def reconnects(self) -> int:
        """How many times a broken connection was resumed."""
        return self._state.reconnects

    @property
    def missed(self) -> int:
        """How many events toolgate's bounded log no longer held when the stream reached for them."""
        return self._state.missed

    def open(self) -> "EventStream":
        """Connect now (iterating connects too). Once it returns, every later event will be seen."""
        if self._response is None and not self._closed:
            self._connect()
        return self

    def _connect(self) -> None:
        while not self._closed:
            req = self._http.build_request("GET", self._url, params=self._params,
                                           headers=self._state.headers(self._base_headers), timeout=self._timeout)
            try:
                resp = self._http.send(req, stream=True)
            except httpx.TransportError as err:
                self._stop.wait(self._state.failed(err))
                continue
            if resp.status_code != 200:
                body = resp.read()
                resp.close()
                refused = error_from_response(resp.status_code, body)
                if not _retryable(resp.status_code):
                    raise refused
                self._stop.wait(self._state.failed(refused))
                continue
            with self._lock:
                self._response, self._chunks = resp, resp.iter_bytes()
                closed = self._closed
            if closed:
                self._disconnect()
                return
            self._state.connected()
            return

    def _disconnect(self) -> None:
        with self._lock:
            resp, self._response, self._chunks = self._response, None, None
        if resp is not None:
            resp.close()

    def __iter__(self) -> "EventStream":
        return self

    def __next__(self) -> Event:
        state = self._state
        while True:
            if self._closed:
                raise StopIteration
            if state.queue:
                return state.queue.popleft()
            if self._ended:
                raise StopIteration
            if self._chunks is None:
                self._connect()
                continue
            try:
                chunk = next(self._chunks)
            except StopIteration:
                self._ended = True  # toolgate ended the stream
                self._disconnect()
                continue
            except (httpx.TransportError, httpx.StreamError) as err:
                self._disconnect()
                if self._closed:
                    continue
                state.reconnects += 1
                self._stop.wait(state.failed(err))
                continue
            state.feed(chunk)

    def close(self) -> None:
        """Stop the stream; safe from another thread, where it ends a blocked read."""
        with self._lock:
            self._closed = True
            resp = self._response
        self._stop.set()
        if resp is not None:
            _shutdown(resp)

    def __enter__(self) -> "EventStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
        self._disconnect()


def _shutdown(resp: httpx.Response) -> None:
    """Shut the response's socket down, which wakes a thread blocked reading it."""
    stream = resp.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if isinstance(sock, socket.socket):
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class AsyncEventStream(AsyncIterator[Event]):
    """A session's events, resumed after every dropped connection (asyncio)."""

    def __init__(self, http: httpx.AsyncClient, url: str, headers: Dict[str, str], *, params: Optional[Dict[str, str]] = None,
                 last_event_id: Optional[str] = None, read_timeout: float = DEFAULT_READ_TIMEOUT,
                 max_retries: int = DEFAULT_MAX_RETRIES) -> None:
        self._http = http
        self._url = url
        self._base_headers = headers
        self._params = params
        self._timeout = httpx.Timeout(30.0, read=read_timeout)
        self._state = _Resume(last_event_id, max_retries)
        self._response: Optional[httpx.Response] = None
        self._chunks: Optional[AsyncIterator[bytes]] = None
        self._closed = False
        self._ended = False

    @property
    def last_event_id(self) -> Optional[str]:
        """The id of the last event parsed: pass it as last_event_id to pick up later."""
        return self._state.last_event_id

    @property
    def reconnects(self) -> int:
        """How many times a broken connection was resumed."""
        return self._state.reconnects

    @property
    def missed(self) -> int:
        """How many events toolgate's bounded log no longer held when the stream reached for them."""
        return self._state.missed

    async def open(self) -> "AsyncEventStream":
        """Connect now (iterating connects too). Once it returns, every later event will be seen."""
        if self._response is None and not self._closed:
            await self._connect()
        return self

    async def _connect(self) -> None:
        while not self._closed:
            req = self._http.build_request("GET", self._url, params=self._params,
                                           headers=self._state.headers(self._base_headers), timeout=self._timeout)
            try:
                resp = await self._http.send(req, stream=True)
            except httpx.TransportError as err:
                await asyncio.sleep(self._state.failed(err))
                continue
            if resp.status_code != 200:
                body = await resp.aread()
                await resp.aclose()
                refused = error_from_response(resp.status_code, body)
                if not _retryable(resp.status_code):
                    raise refused
                await asyncio.sleep(self._state.failed(refused))
                continue
            self._response, self._chunks = resp, resp.aiter_bytes()
            self._state.connected()
            return

    async def _disconnect(self) -> None:
        resp, self._response, self._chunks = self._response, None, None
        if resp is not None:
            await resp.aclose()

    def __aiter__(self) -> "AsyncEventStream":
        return self

    async def __anext__(self) -> Event:
        state = self._state
        while True:
            if self._closed:
                raise StopAsyncIteration
            if state.queue:
                return state.queue.popleft()
            if self._ended:
                raise StopAsyncIteration
            if self._chunks is None:
                await self._connect()
                continue
            try:
                chunk = await self._chunks.__anext__()
            except StopAsyncIteration:
                self._ended = True
                await self._disconnect()
                continue
            except (httpx.TransportError, httpx.StreamError) as err:
                await self._disconnect()
                state.reconnects += 1
                await asyncio.sleep(state.failed(err))
                continue
            state.feed(chunk)

    async def aclose(self) -> None:
        """Stop the stream and close its connection."""
        self._closed = True
        await self._disconnect()

    async def __aenter__(self) -> "AsyncEventStream":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()


__all__: List[str] = ["EventStream", "AsyncEventStream", "DEFAULT_READ_TIMEOUT", "DEFAULT_MAX_RETRIES"]
