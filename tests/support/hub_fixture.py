"""Pytest plugin: an in-memory Hub API server for tests (loaded by tests/conftest.py).

Fixtures
--------
``hub_server``   a fresh :class:`tests.support.hub_server.HubServer` per test, already listening on
                 127.0.0.1 at a free port and stopped after the test. Its ``url`` is the endpoint
                 and ``token`` the only accepted token (the same as the test ``HF_TOKEN``). Tree
                 listings come in pages of ``PAGE_SIZE`` entries, so every Hub test also checks
                 that the client follows ``Link`` headers.
``hub_factory``  ``hub_factory(**kwargs)`` starts more servers (e.g. ``commit_quota=3``,
                 ``users={...}``, ``page_size=...``); all are stopped after the test.
``hub_repo_ids`` ``{"gold": ..., "submissions": ..., "results": ...}``: fresh dataset repo ids
                 (not created: HubStore creates them on first use).

Usage::

    def test_x(hub_server, hub_repo_ids, tmp_path):
        store = HubStore(tmp_path / "cache", hub_repo_ids, hub_server.token,
                         endpoint=hub_server.url, retry=RetryPolicy.fast())
        hub_server.inject(r"POST /api/datasets/.*/commit/", "error", times=2)  # two 500s
        hub_server.inject(r"/commit/", "hang", delay=2.0)   # past the client timeout
        hub_server.inject(r"/commit/", "conflict")          # one 412
        hub_server.inject(r"/commit/", "ratelimit", retry_after=2)  # one 429 + Retry-After
        hub_server.inject(r"/preupload/", "hang", delay=None); ...; hub_server.release()
        hub_server.stop(); ...; hub_server.start()          # the Hub is down, then back
        hub_server.commits(repo_id); hub_server.files(repo_id)  # inspect what landed
        hub_server.commit_files(repo_id, {"a.txt": b"x"})   # another writer commits

Routes matched by ``inject`` are "METHOD /path" strings, e.g. ``"GET /api/datasets/o/r/tree/main"``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.support.hub_server import HubServer

PAGE_SIZE = 5  # the real Hub pages by 1000: small pages make single-page readers fail here


@pytest.fixture
def hub_factory() -> Iterator[Callable[..., HubServer]]:
    servers: list[HubServer] = []

    def start(**kwargs: Any) -> HubServer:
        kwargs.setdefault("page_size", PAGE_SIZE)
        servers.append(HubServer(**kwargs).start())
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def hub_server(hub_factory: Callable[..., HubServer]) -> HubServer:
    return hub_factory()


@pytest.fixture
def hub_repo_ids() -> dict[str, str]:
    tag = uuid.uuid4().hex[:8]
    return {repo: f"leaderboard/{repo}-{tag}" for repo in ("gold", "submissions", "results")}
