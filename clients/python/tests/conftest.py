"""Fixtures for the tests against a real toolgate.

The Go test (clients/python/client_test.go) starts ``toolgate serve`` on a
workspace and runs pytest with TOOLGATE_TEST_URL, TOOLGATE_TEST_TOKEN and
TOOLGATE_TEST_WORKSPACE set; without them the tests that need a server are
skipped. Every test has a deadline (pytest-timeout, pyproject.toml).
"""

from __future__ import annotations

import os
import pathlib
from typing import Callable, Iterator, List
from urllib.parse import urlparse

import httpx
import pytest

import toolgate

from dropping_proxy import DroppingProxy

# Generous for a loaded machine, short enough that a hang fails the test.
TIMEOUT = httpx.Timeout(30.0)


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.skip(f"{name} is not set: run through clients/python/client_test.go (go test ./clients/python/)")
    return value


@pytest.fixture
def url() -> str:
    return _env("TOOLGATE_TEST_URL")


@pytest.fixture
def token() -> str:
    return _env("TOOLGATE_TEST_TOKEN")


@pytest.fixture
def workspace() -> pathlib.Path:
    return pathlib.Path(_env("TOOLGATE_TEST_WORKSPACE"))


@pytest.fixture
def client(url: str, token: str) -> Iterator[toolgate.Client]:
    with toolgate.Client(url, token, timeout=TIMEOUT, events_read_timeout=30.0) as c:
        yield c


@pytest.fixture
def session(client: toolgate.Client) -> Iterator[toolgate.Session]:
    s = client.sessions.create(dialect="cline")
    yield s
    try:
        client.sessions.end(s)
    except toolgate.NotFoundError:
        pass


#: Makes a proxy in front of the server that cuts event streams at the markers given.
ProxyFactory = Callable[[List[bytes]], DroppingProxy]


@pytest.fixture
def proxy_factory(url: str) -> Iterator[ProxyFactory]:
    made = []

    def make(cuts: List[bytes]) -> DroppingProxy:
        u = urlparse(url)
        p = DroppingProxy((u.hostname or "127.0.0.1", u.port or 80), cuts)
        made.append(p)
        return p

    yield make
    for p in made:
        p.close()

