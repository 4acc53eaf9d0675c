"""The event stream: live events, and a stream resumed after the connection drops."""

from __future__ import annotations

import pathlib
import threading
from typing import List, Tuple

import pytest

import toolgate
from conftest import ProxyFactory
from helpers import Background, anthropic, new_id, tool_use


def run_three_reads(client: toolgate.Client, session: toolgate.Session, workspace: pathlib.Path) -> List[str]:
    ids = [new_id("toolu_") for _ in range(3)]
    for i, _ in enumerate(ids):
        (workspace / f"ev{i}.txt").write_text(f"event file {i}\n")
    client.run_message(session, anthropic(*(tool_use(id, "read_file", path=f"ev{i}.txt") for i, id in enumerate(ids))))
    return ids


def until_finished(stream: toolgate.EventStream) -> List[Tuple[int, str, str]]:
    seen = []
    for ev in stream:
        seen.append((ev.id, ev.type, ev.tool_use_id or ""))
        if ev.type == "message.finished":
            return seen
    raise AssertionError(f"the stream ended before message.finished; got {seen}")


def test_events_of_a_message(client: toolgate.Client, session: toolgate.Session, workspace: pathlib.Path) -> None:
    ids = run_three_reads(client, session, workspace)
    with client.events(session) as stream:
        seen = until_finished(stream)
        assert stream.last_event_id == str(seen[-1][0])
    finished = [t for _, kind, t in seen if kind == "tool.finished"]
    assert sorted(finished) == sorted(ids), seen
    assert [i for i, _, _ in seen] == sorted(i for i, _, _ in seen)


def test_a_dropped_stream_resumes_without_losing_or_repeating(client: toolgate.Client, session: toolgate.Session,
                                                                workspace: pathlib.Path, url: str, token: str,
                                                                proxy_factory: ProxyFactory) -> None:
    run_three_reads(client, session, workspace)
    with client.events(session) as direct:
        want = until_finished(direct)
    # The first connection is cut inside the data line of the first
    # tool.started frame (toolgate writes id, data, event), the second inside
    # the first tool.finished frame it sends; the third gets the rest. A
    # client that dispatched the half frame, or resumed from the wrong id,
    # would lose or repeat an event.
    proxy = proxy_factory([b"tool.started", b"tool.finished"])
    with toolgate.Client(proxy.url, token, timeout=30.0, events_read_timeout=30.0) as through:
        with through.events(session) as stream:
            got = until_finished(stream)
            assert stream.reconnects == 2
    assert proxy.cut == 2 and proxy.event_connections == 3, (proxy.cut, proxy.event_connections)
    assert got == want


def test_resume_from_a_saved_event_id(client: toolgate.Client, session: toolgate.Session, workspace: pathlib.Path) -> None:
    run_three_reads(client, session, workspace)
    with client.events(session) as first:
        head = [next(first) for _ in range(4)]
        saved = first.last_event_id
    assert saved == str(head[-1].id)
    with client.events(session, last_event_id=saved) as later:
        rest = until_finished(later)
    assert rest[0][0] == head[-1].id + 1, (head, rest)


def test_a_ticket_opens_the_stream_without_the_token(client: toolgate.Client, session: toolgate.Session,
                                                     workspace: pathlib.Path, url: str) -> None:
    run_three_reads(client, session, workspace)
    ticket = client.ticket(session)
    with toolgate.Client(url, token="", timeout=30.0) as anonymous:
        with anonymous.events(session, ticket=ticket) as stream:
            assert until_finished(stream)[-1][1] == "message.finished"


def test_the_stream_ends_when_the_session_ends(client: toolgate.Client, workspace: pathlib.Path) -> None:
    s = client.sessions.create()
    run_three_reads(client, s, workspace)
    with client.events(s) as stream:
        until_finished(stream)
        client.sessions.end(s)
        assert list(stream) == []


def test_close_from_another_thread_ends_a_blocked_read(client: toolgate.Client, session: toolgate.Session) -> None:
    got_one = threading.Event()

    def read_all() -> List[str]:
        types = []
        for ev in stream:
            types.append(ev.type)
            got_one.set()  # the next read blocks: the session has nothing more to say
        return types

    stream = client.events(session, last_event_id=toolgate.FROM_NOW).open()
    reader = Background(read_all)
    client.run_tool("list_files", {"path": "."}, session=session)
    assert got_one.wait(20)
    stream.close()
    # toolgate's keep-alive comes only after 15 s of silence: ending sooner
    # means close() woke the blocked read.
    assert reader.result(timeout=5)[0] == "tool.queued"


def test_a_refused_stream_raises_at_once(client: toolgate.Client, url: str, token: str) -> None:
    with pytest.raises(toolgate.NotFoundError):
        next(client.events("ses_no_such_session"))
    with toolgate.Client("http://127.0.0.1:9", token, events_max_retries=2) as nowhere:
        with pytest.raises(toolgate.APIConnectionError, match="after 2 attempts"):
            next(nowhere.events("ses_x"))
