"""The asyncio client against the same server: calls, messages, approvals, a resumed stream, cancel."""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any, Awaitable, Callable, List, TypeVar

import toolgate
from conftest import ProxyFactory
from helpers import anthropic, chat, new_id, responses, tool_use

T = TypeVar("T")


def run(fn: Callable[[toolgate.AsyncClient], Awaitable[T]], url: str, token: str, timeout: float = 45.0) -> T:
    """Run a coroutine with a fresh AsyncClient under a deadline."""
    async def main() -> T:
        async with toolgate.AsyncClient(url, token, timeout=30.0, events_read_timeout=30.0) as client:
            return await asyncio.wait_for(fn(client), timeout)
    return asyncio.run(main())


def test_async_calls_and_messages(url: str, token: str, workspace: pathlib.Path) -> None:
    (workspace / "async.txt").write_text("async body\n")

    async def body(client: toolgate.AsyncClient) -> None:
        got = await client.run_tool("read_file", {"path": "async.txt"})
        assert "async body" in got.text and got.call.status == "succeeded"
        s = await client.sessions.create(dialect="cline")
        assert (await client.sessions.get(s)).id == s.id
        a, b, c = new_id("toolu_"), new_id("call_"), new_id("call_")
        user = (await client.post_message(s, anthropic(tool_use(a, "read_file", path="async.txt")))).message
        assert user is not None and user["content"][0]["tool_use_id"] == a
        tools = (await client.post_message(s, chat((b, "list_files", {"path": "."})))).messages
        assert tools[0]["tool_call_id"] == b
        out = (await client.post_message(s, responses((c, "list_files", {"path": "."})))).output
        assert out[0]["call_id"] == c
        await client.sessions.end(s)
        try:
            await client.sessions.get(s)
        except toolgate.NotFoundError as err:
            assert err.code == "not_found"
        else:
            raise AssertionError("an ended session was still there")

    run(body, url, token)


def test_async_approval_with_an_async_handler(url: str, token: str, workspace: pathlib.Path) -> None:
    (workspace / "gate.txt").write_text("behind the gate\n")
    asked: List[str] = []

    async def approve(req: toolgate.ApprovalRequest) -> toolgate.Decision:
        await asyncio.sleep(0)  # a handler may await (a UI, a queue)
        asked.append(req.tool_use_id)
        return toolgate.Decision.approved()

    async def body(client: toolgate.AsyncClient) -> Any:
        s = await client.sessions.create(dialect="cline", permissions={"ask": ["read_file"]})
        a = new_id("call_")
        reply = await client.post_message(s, chat((a, "read_file", {"path": "gate.txt"})), on_approval=approve)
        assert asked == [a]
        assert "behind the gate" in reply.messages[0]["content"]
        await client.sessions.end(s)

    run(body, url, token)


def test_async_stream_resumes_after_a_drop(url: str, token: str, workspace: pathlib.Path,
                                           proxy_factory: ProxyFactory) -> None:
    proxy = proxy_factory([b"tool.finished"])
    (workspace / "drop.txt").write_text("x\n")

    async def collect(stream: toolgate.AsyncEventStream) -> List[int]:
        ids = []
        async for ev in stream:
            ids.append(ev.id)
            if ev.type == "message.finished":
                return ids
        raise AssertionError("the stream ended early")

    async def body(client: toolgate.AsyncClient) -> None:
        s = await client.sessions.create()
        msg = anthropic(*(tool_use(new_id("toolu_"), "read_file", path="drop.txt") for _ in range(3)))
        await client.run_message(s, msg)
        async with client.events(s) as direct:
            want = await collect(direct)
        async with toolgate.AsyncClient(proxy.url, token, timeout=30.0) as through:
            async with through.events(s) as stream:
                got = await collect(stream)
                assert stream.reconnects == 1
        assert got == want and got == list(range(want[0], want[0] + len(want))), (got, want)
        await client.sessions.end(s)

    run(body, url, token)
    assert proxy.cut == 1


def test_async_cancel(url: str, token: str) -> None:
    async def body(client: toolgate.AsyncClient) -> None:
        s = await client.sessions.create(permissions={"allow": ["execute_command"]})
        a = new_id("toolu_")
        async with client.events(s, last_event_id=toolgate.FROM_NOW) as stream:
            await stream.open()
            running = asyncio.ensure_future(client.post_message(
                s, anthropic(tool_use(a, "execute_command", command="sleep 600", requires_approval=False))))
            async for ev in stream:
                if ev.type == "tool.started" and ev.tool_use_id == a:
                    break
            await client.cancel(s, a)
        reply = await running
        assert reply.calls[0].status == "cancelled", reply.calls
        await client.sessions.end(s)

    run(body, url, token)


def test_async_subscription_and_inbox(url: str, token: str, workspace: pathlib.Path) -> None:
    (workspace / "asub.txt").write_text("async subscribed\n")

    async def body(client: toolgate.AsyncClient) -> None:
        s = await client.sessions.create(permissions={"ask": ["read_file"]})
        async with client.on_approval(s, lambda req: toolgate.Decision.approved()):
            user = await client.run_message(s, anthropic(tool_use(new_id("toolu_"), "read_file", path="asub.txt")))
        assert "async subscribed" in toolgate.result_text(user["content"][0]), user
        b = new_id("toolu_")
        waiting = asyncio.ensure_future(client.post_message(s, anthropic(tool_use(b, "read_file", path="asub.txt"))))
        async for req in client.inbox(s):  # the call approved above is not offered again
            assert isinstance(req, toolgate.ApprovalRequest) and req.tool_use_id == b, req
            await req.reject("no")
            break
        assert (await waiting).calls[0].status == "denied"
        await client.sessions.end(s)

    run(body, url, token)


def test_async_on_event(url: str, token: str) -> None:
    async def body(client: toolgate.AsyncClient) -> None:
        s = await client.sessions.create(permissions={"allow": ["execute_command"]})
        a = new_id("toolu_")
        chunks: List[str] = []

        async def collect(ev: toolgate.Event) -> None:
            if ev.type == "tool.output":
                chunks.append(ev.chunk)

        reply = await client.post_message(s, chat((a, "execute_command", {"command": "echo async-output",
                                                                             "requires_approval": False})),
                                          on_event=collect)
        assert reply.calls[0].status == "succeeded" and "async-output" in "".join(chunks), (reply.calls, chunks)
        await client.sessions.end(s)

    run(body, url, token)
