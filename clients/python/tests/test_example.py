"""The example agent loop runs against toolgate in both SDK shapes."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
from typing import List

import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "agent_loop.py"


@pytest.mark.parametrize("flags", [[], ["--openai"]], ids=["anthropic", "openai"])
def test_agent_loop_example(flags: List[str], url: str, token: str, workspace: pathlib.Path) -> None:
    (workspace / "notes.txt").write_text("first note\n")
    env = dict(os.environ, TOOLGATE_URL=url, TOOLGATE_TOKEN=token)
    done = subprocess.run([sys.executable, str(EXAMPLE), *flags], env=env, capture_output=True, text=True, timeout=50)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for line in ("toolgate ran list_files: succeeded", "toolgate ran read_file: succeeded",
                 "approval asked for write_to_file", "+checked by the agent", "toolgate ran write_to_file: succeeded",
                 "model: Done. toolgate said: The content was successfully saved to notes.txt."):
        assert line in out, out
    assert (workspace / "notes.txt").read_text() == "first note\nchecked by the agent\n"
