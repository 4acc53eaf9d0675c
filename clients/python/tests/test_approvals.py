"""Approvals and questions: a callback, an inbox, answers to ask_followup_question."""

from __future__ import annotations

import pathlib
from typing import Iterator, List

import pytest

import toolgate
from helpers import Background, anthropic, chat, new_id, tool_use


@pytest.fixture
def asking(client: toolgate.Client) -> Iterator[toolgate.Session]:
    """A session where every read_file waits for approval."""
    s = client.sessions.create(dialect="cline", permissions={"ask": ["read_file"]})
    yield s
    client.sessions.end(s)


def test_on_approval_callback_approves(client: toolgate.Client, asking: toolgate.Session, workspace: pathlib.Path) -> None:
    (workspace / "secret.txt").write_text("approved content\n")
    asked: List[toolgate.ApprovalRequest] = []

    def decide(req: toolgate.ApprovalRequest) -> toolgate.Decision:
        asked.append(req)
        return toolgate.Decision.approved()

    a = new_id("toolu_")
    reply = client.post_message(asking, anthropic(tool_use(a, "read_file", path="secret.txt")), on_approval=decide)
    assert [(r.tool_use_id, r.name, r.rule) for r in asked] == [(a, "read_file", "read_file")], asked
    assert asked[0].preview.get("paths") == ["secret.txt"], asked[0].preview
    assert "approved content" in toolgate.result_text(reply.message["content"][0])  # type: ignore[index]


def test_client_handler_rejects_with_feedback_for_an_openai_message(url: str, token: str, asking: toolgate.Session) -> None:
    def no(req: toolgate.ApprovalRequest) -> toolgate.Decision:
        return toolgate.Decision.rejected("not that file")

    with toolgate.Client(url, token, timeout=30.0, on_approval=no) as client:
        a = new_id("call_")
        reply = client.post_message(asking, chat((a, "read_file", {"path": "secret.txt"})))
    assert reply.calls[0].status == "denied" and reply.calls[0].error_code == "rejected", reply.calls
    assert "not that file" in reply.messages[0]["content"], reply.messages


def test_a_failing_handler_rejects_the_call_and_raises(client: toolgate.Client, asking: toolgate.Session) -> None:
    def broken(req: toolgate.ApprovalRequest) -> bool:
        raise RuntimeError("no approver")

    a = new_id("toolu_")
    with pytest.raises(RuntimeError, match="no approver"):
        client.run_message(asking, anthropic(tool_use(a, "read_file", path="x.txt")), on_approval=broken)
    assert client.call(asking, a).call.status == "denied"


def test_inbox_decides_what_another_caller_waits_for(client: toolgate.Client, asking: toolgate.Session,
                                                     workspace: pathlib.Path) -> None:
    (workspace / "inbox.txt").write_text("from the inbox\n")
    a = new_id("toolu_")
    waiting = Background(lambda: client.post_message(asking, anthropic(tool_use(a, "read_file", path="inbox.txt"))))
    for req in client.inbox(asking):
        assert isinstance(req, toolgate.ApprovalRequest) and req.tool_use_id == a, req
        assert [c.tool_use_id for c in client.calls(asking, state="awaiting_approval")] == [a]
        req.approve()
        break
    reply = waiting.result()
    assert reply.message is not None and "from the inbox" in toolgate.result_text(reply.message["content"][0])
    # A later inbox replays the session's log from its start: the call
    # decided above is not offered again, the next one that waits is.
    b = new_id("toolu_")
    waiting = Background(lambda: client.post_message(asking, anthropic(tool_use(b, "read_file", path="inbox.txt"))))
    for req in client.inbox(asking):
        assert req.tool_use_id == b, req
        assert isinstance(req, toolgate.ApprovalRequest)
        req.reject("enough")
        break
    assert waiting.result().calls[0].status == "denied"


def test_subscriptions_answer_in_the_background(client: toolgate.Client, asking: toolgate.Session,
                                                workspace: pathlib.Path) -> None:
    (workspace / "sub.txt").write_text("subscribed\n")
    seen: List[str] = []

    def approve(req: toolgate.ApprovalRequest) -> str:
        seen.append(req.name)
        return "approve"

    with client.on_approval(asking, approve), client.on_question(asking, lambda q: "yes"):
        a, b = new_id("toolu_"), new_id("toolu_")
        user = client.run_message(asking, anthropic(tool_use(a, "read_file", path="sub.txt"),
                                                    tool_use(b, "ask_followup_question", question="Go on?")))
    assert isinstance(user, dict) and seen == ["read_file"], (user, seen)
    assert [toolgate.result_text(r) for r in user["content"]][1] == "<answer>\nyes\n</answer>", user
    assert "subscribed" in toolgate.result_text(user["content"][0])


def test_answer_to_ask_followup_question(client: toolgate.Client, session: toolgate.Session) -> None:
    questions: List[toolgate.QuestionRequest] = []

    def pick(q: toolgate.QuestionRequest) -> str:
        questions.append(q)
        return q.options[1]

    a = new_id("toolu_")
    msg = anthropic(tool_use(a, "ask_followup_question", question="Which colour?", options='["red", "blue"]'))
    reply = client.post_message(session, msg, on_question=pick)
    assert [(q.kind, q.text, q.options) for q in questions] == [("ask_followup_question", "Which colour?", ["red", "blue"])]
    assert toolgate.result_text(reply.message["content"][0]) == "<answer>\nblue\n</answer>"  # type: ignore[index]
