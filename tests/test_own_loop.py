"""``tests.support.own_loop.run``: a coroutine runs to its answer, or its exception, where
``asyncio.run`` refuses because a loop is running on the calling thread (as Playwright's sync API
keeps one on a test process's main thread once the session's browser is open)."""

from __future__ import annotations

import asyncio

import pytest

from tests.support import own_loop


async def answer() -> int:
    await asyncio.sleep(0)
    return 42


async def fails() -> None:
    await asyncio.sleep(0)
    raise ValueError("from the coroutine")


def test_a_coroutine_runs_where_asyncio_run_refuses():
    async def inside_a_running_loop() -> int:
        refused = answer()
        with pytest.raises(RuntimeError, match="running event loop"):
            asyncio.run(refused)
        refused.close()
        return own_loop.run(answer())

    assert own_loop.run(inside_a_running_loop()) == 42


def test_the_coroutines_exception_reaches_the_caller():
    with pytest.raises(ValueError, match="from the coroutine"):
        own_loop.run(fails())
