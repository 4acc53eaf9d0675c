"""An incremental parser of server-sent events (the WHATWG event stream format).

The parser takes the response body in whatever pieces the network delivers
and hands back only whole events: an event is dispatched at the blank line
that ends it, so a connection cut in the middle of an event leaves that
event out, and the stream resumed with Last-Event-ID delivers it whole.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import List, Optional, Tuple


@dataclass(frozen=True)
class ServerSentEvent:
    """One dispatched event: its fields as the stream spelled them."""

    event: str
    data: str
    id: Optional[str]


class SSEParser:
    """Turns byte chunks into :class:`ServerSentEvent` values.

    Lines end with CR, LF or CRLF (a CR ends its line at once; an LF right
    after it, maybe in the next chunk, is then skipped); comments (``:``) are dropped, which is
    what keep-alives are, but each is kept in ``comments`` until the caller
    takes them. ``retry`` is the reconnection delay the server last asked
    for, in milliseconds.
    """

    retry: Optional[int] = None

    def __init__(self) -> None:
        self.comments: List[str] = []
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self._first = True
        self._after_cr = False
        self._reset_event()

    def _reset_event(self) -> None:
        self._event = ""
        self._data: List[str] = []
        self._id: Optional[str] = None
        self._has_fields = False

    def reset(self) -> None:
        """Forget a partial event and line, for a new connection."""
        self._decoder.reset()
        self._buffer = ""
        self._first = True
        self._after_cr = False
        self._reset_event()

    def feed(self, chunk: bytes) -> List[ServerSentEvent]:
        """Parse a chunk; return the events it completed, in order."""
        text = self._decoder.decode(chunk)
        if self._first and text:
            self._first = False
            if text.startswith("\ufeff"):
                text = text[1:]
        if self._after_cr and text:
            self._after_cr = False
            if text.startswith("\n"):
                text = text[1:]  # the LF of a CRLF split across chunks
        self._buffer += text
        events: List[ServerSentEvent] = []
        while True:
            line, rest, ok = _split_line(self._buffer)
            if not ok:
                break
            if rest == "" and self._buffer.endswith("\r"):
                self._after_cr = True
            self._buffer = rest
            ev = self._line(line)
            if ev is not None:
                events.append(ev)
        return events

    def _line(self, line: str) -> Optional[ServerSentEvent]:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            self.comments.append(line[1:].lstrip(" "))
            return None
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event, self._has_fields = value, True
        elif name == "data":
            self._data.append(value)
            self._has_fields = True
        elif name == "id":
            if "\0" not in value:
                self._id, self._has_fields = value, True
        elif name == "retry":
            if value.isdigit():
                self.retry = int(value)
        return None

    def _dispatch(self) -> Optional[ServerSentEvent]:
        if not self._has_fields:
            self._reset_event()
            return None
        ev = ServerSentEvent(event=self._event or "message", data="\n".join(self._data), id=self._id)
        self._reset_event()
        return ev


def _split_line(buffer: str) -> Tuple[str, str, bool]:
    """Split off the first line; ok is False when no whole line is there yet."""
    lf, cr = buffer.find("\n"), buffer.find("\r")
    if cr < 0 or 0 <= lf < cr:
        if lf < 0:
            return "", buffer, False
        return buffer[:lf], buffer[lf + 1 :], True
    end = cr + 2 if buffer[cr + 1 : cr + 2] == "\n" else cr + 1
    return buffer[:cr], buffer[end:], True
