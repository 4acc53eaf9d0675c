"""Tools, single calls, sessions and errors against a real toolgate."""

from __future__ import annotations

import pathlib

import pytest

import toolgate
from helpers import new_id


def test_tools_in_each_format(client: toolgate.Client) -> None:
    anthropic = client.tools(dialect="cline", format="anthropic")
    assert any(t["name"] == "read_file" and "input_schema" in t for t in anthropic), anthropic
    chat = client.tools(dialect="cline", format="openai")
    assert all(t["type"] == "function" and "parameters" in t["function"] for t in chat), chat
    responses = client.tools(dialect="cline", format="openai-responses", strict=True)
    assert responses and all(t["strict"] is True for t in responses), responses
    claude = [t["name"] for t in client.tools(dialect="claude_code")]
    assert "Read" in claude and "read_file" not in claude, claude


def test_call_in_default_session_and_in_a_session(client: toolgate.Client, session: toolgate.Session,
                                                  workspace: pathlib.Path) -> None:
    (workspace / "call.txt").write_text("called\n")
    got = client.run_tool("read_file", {"path": "call.txt"})
    assert "called" in got.text and not got.is_error and got.call.status == "succeeded", got
    got = client.run_tool("read_file", {"path": "call.txt"}, session=session, id=new_id("toolu_"))
    assert "called" in got.text and got.call.name == "read_file", got


def test_a_failing_tool_is_a_result_with_its_code(client: toolgate.Client, session: toolgate.Session) -> None:
    got = client.run_tool("read_file", {"path": "no/such/file.txt"}, session=session)
    assert got.is_error and got.call.status == "failed" and got.call.error_code == "not_found", got
    got = client.run_tool("no_such_tool", {}, session=session)
    assert got.is_error and got.call.error_code == "unknown_tool", got


def test_session_create_update_end(client: toolgate.Client) -> None:
    s = client.sessions.create(dialect="claude_code", mode="plan", permissions={"deny": ["Bash"]})
    assert (s.dialect, s.mode, s.permissions.get("deny")) == ("claude_code", "plan", ["Bash"]), s
    s = client.sessions.update(s, mode="default")
    assert client.sessions.get(s.id).mode == "default"
    client.sessions.end(s)
    with pytest.raises(toolgate.NotFoundError) as err:
        client.sessions.get(s)
    assert (err.value.code, err.value.status) == ("not_found", 404)


def test_errors_carry_toolgate_codes(client: toolgate.Client, url: str, session: toolgate.Session) -> None:
    with toolgate.Client(url, "wrong-token") as stranger:
        with pytest.raises(toolgate.AuthenticationError) as auth:
            stranger.tools()
    assert auth.value.code == "unauthorized" and auth.value.status == 401
    with pytest.raises(toolgate.ValidationError) as bad:
        client.sessions.create(mode="sideways")
    assert bad.value.code == "validation_failed" and "mode" in bad.value.fields, bad.value.fields
    done = client.run_tool("list_files", {"path": "."}, session=session)
    with pytest.raises(toolgate.ConflictError) as late:
        client.approve(session, done.call.tool_use_id)
    assert late.value.code == "conflict" and late.value.status == 409
    with pytest.raises(toolgate.APIConnectionError):
        with toolgate.Client("http://127.0.0.1:9", "t") as nowhere:
            nowhere.health()
