"""``asyncio.run`` for a test process that has a browser open.

The session's Chromium (``tests/conftest.py``) is driven through Playwright's sync API, which keeps
its event loop set as running on the main thread for the rest of the session; ``asyncio.run`` there
then raises "cannot be called from a running event loop". A coroutine of a test runs in a thread of
its own instead, with its own loop, and the caller waits for its answer (or its exception)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


def run(coro: Coroutine[object, object, T]) -> T:
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="own-loop") as pool:
        return pool.submit(asyncio.run, coro).result()
