"""Cancel and interrupt running calls."""

from __future__ import annotations

from typing import Any, Dict, Iterator, List

import pytest

import toolgate
from helpers import Background, anthropic, new_id, tool_use, wait_for_event


@pytest.fixture
def commands(client: toolgate.Client) -> Iterator[toolgate.Session]:
    """A session that runs commands without asking."""
    s = client.sessions.create(dialect="cline", permissions={"allow": ["execute_command"]})
    yield s
    client.sessions.end(s)


def sleeper(id: str) -> Dict[str, Any]:
    # Longer than the test's deadline: only a cancel ends it in time.
    return tool_use(id, "execute_command", command="sleep 600", requires_approval=False)


def test_cancel_a_running_call(client: toolgate.Client, commands: toolgate.Session) -> None:
    a = new_id("toolu_")
    with client.events(commands, last_event_id=toolgate.FROM_NOW) as stream:
        stream.open()
        running = Background(lambda: client.post_message(commands, anthropic(sleeper(a))))
        wait_for_event(stream, "tool.started", a)
        client.cancel(commands, a)
    reply = running.result()
    assert reply.calls[0].status == "cancelled", reply.calls
    assert reply.message is not None and reply.message["content"][0]["is_error"] is True


def test_interrupt_cancels_the_session_s_calls(client: toolgate.Client, commands: toolgate.Session) -> None:
    a = new_id("toolu_")
    with client.events(commands, last_event_id=toolgate.FROM_NOW) as stream:
        stream.open()
        running = Background(lambda: client.post_message(commands, anthropic(sleeper(a))))
        wait_for_event(stream, "tool.started", a)
        got = client.interrupt(commands)
    assert got.cancelled == 1 and got.finishing == 0, got
    assert running.result().calls[0].status == "cancelled"


def test_on_event_sees_a_call_s_output_as_it_runs(client: toolgate.Client, commands: toolgate.Session) -> None:
    a, b = new_id("toolu_"), new_id("toolu_")
    seen: List[toolgate.Event] = []
    user = client.run_message(commands, anthropic(
        tool_use(a, "execute_command", command="echo streamed-output", requires_approval=False),
        tool_use(b, "list_files", path=".")), on_event=seen.append)
    assert [r["tool_use_id"] for r in user["content"]] == [a, b]
    kinds = [(ev.type, ev.tool_use_id) for ev in seen]
    for want in [("tool.queued", a), ("tool.started", a), ("tool.finished", a), ("tool.finished", b)]:
        assert want in kinds, kinds
    assert "streamed-output" in "".join(ev.chunk for ev in seen if ev.type == "tool.output"), kinds
    assert all(ev.tool_use_id in (a, b) for ev in seen), kinds
