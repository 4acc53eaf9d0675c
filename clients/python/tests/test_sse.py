"""The SSE parser, fed the way a network delivers bytes (no server needed)."""

from __future__ import annotations

from typing import List

from toolgate.sse import ServerSentEvent, SSEParser


def feed_all(parser: SSEParser, *chunks: bytes) -> List[ServerSentEvent]:
    out: List[ServerSentEvent] = []
    for c in chunks:
        out.extend(parser.feed(c))
    return out


def test_one_event_per_blank_line_in_any_chunking() -> None:
    stream = b'id: 1\ndata: {"a":1}\nevent: tool.queued\n\n: keep-alive\n\nid: 2\r\ndata: x\r\ndata: y\r\n\r\n'
    whole = feed_all(SSEParser(), stream)
    assert whole == [ServerSentEvent("tool.queued", '{"a":1}', "1"), ServerSentEvent("message", "x\ny", "2")]
    for size in (1, 2, 3, 7):
        pieces = [stream[i : i + size] for i in range(0, len(stream), size)]
        assert feed_all(SSEParser(), *pieces) == whole, size


def test_a_cut_event_is_not_dispatched_and_reset_forgets_it() -> None:
    p = SSEParser()
    assert p.feed(b"id: 7\ndata: {\"half") == []
    p.reset()
    assert p.feed(b"id: 8\ndata: whole\n\n") == [ServerSentEvent("message", "whole", "8")]


def test_cr_line_ends_split_across_chunks_multibyte_text_and_bom() -> None:
    text = "data: caf\u00e9 \u2713\r\r".encode()
    p = SSEParser()
    got = feed_all(p, b"\xef\xbb\xbf", *[text[i : i + 1] for i in range(len(text))])
    assert got == [ServerSentEvent("message", "caf\u00e9 \u2713", None)]


def test_retry_and_comments() -> None:
    p = SSEParser()
    assert p.feed(b"retry: 1500\n\n:comment\n\n") == []
    assert p.retry == 1500
    assert p.feed(b"data\n\n") == [ServerSentEvent("message", "", None)]


def test_comments_are_kept_for_the_caller() -> None:
    p = SSEParser()
    assert p.feed(b": keep-alive\n\n:3 earlier events are no longer kept\n\nid: 9\ndata: {}\n\n") == \
        [ServerSentEvent("message", "{}", "9")]
    assert p.comments == ["keep-alive", "3 earlier events are no longer kept"]


def test_a_stream_counts_the_events_the_log_no_longer_kept() -> None:
    from toolgate.events import _Resume

    state = _Resume(last_event_id="1", max_retries=1)
    state.feed(b": 5 earlier events are no longer kept\n\n: keep-alive\n\n")
    state.feed(b'id: 7\ndata: {"id": 7, "type": "tool.queued", "session_id": "s"}\n\n')
    assert (state.missed, state.last_event_id, [e.id for e in state.queue]) == (5, "7", [7])
