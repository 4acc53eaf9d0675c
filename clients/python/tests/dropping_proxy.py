"""A TCP proxy that cuts event streams in the middle of an event.

Each connection whose request is for a session's ``/events`` takes the next
marker from ``cuts``: the proxy forwards the response up to the end of the
marker's first occurrence (say, the ``tool.started`` of an ``event:`` line,
before the frame's data and blank line) and then closes both sides, as a
server or a network that drops a connection would. Connections past the
list, and every other request, pass through whole.
"""

from __future__ import annotations

import socket
import threading
from typing import List, Optional, Tuple


class DroppingProxy:
    """Listens on loopback and forwards to ``upstream``; ``url`` is where to connect."""

    def __init__(self, upstream: Tuple[str, int], cuts: List[bytes]) -> None:
        self._upstream = upstream
        self._cuts = list(cuts)
        self._lock = threading.Lock()
        #: How many event-stream connections were opened, and how many were cut.
        self.event_connections = 0
        self.cut = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        host, port = self._listener.getsockname()[:2]
        self.url = f"http://{host}:{port}"
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        """Stop accepting connections."""
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        up = socket.create_connection(self._upstream)
        head = conn.recv(65536)
        marker: Optional[bytes] = None
        if b"/events" in head.split(b"\r\n", 1)[0]:
            with self._lock:
                if self.event_connections < len(self._cuts):
                    marker = self._cuts[self.event_connections]
                self.event_connections += 1
        up.sendall(head)
        threading.Thread(target=_pipe, args=(conn, up), daemon=True).start()
        seen, sent = b"", 0
        while True:
            try:
                data = up.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
            if marker is None:
                conn.sendall(data)
                continue
            seen += data
            at = seen.find(marker)
            if at < 0:
                conn.sendall(data)
                sent = len(seen)
                continue
            conn.sendall(seen[sent : at + len(marker)])
            with self._lock:
                self.cut += 1
            break
        for s in (conn, up):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    while True:
        try:
            data = src.recv(65536)
            if not data:
                return
            dst.sendall(data)
        except OSError:
            return
