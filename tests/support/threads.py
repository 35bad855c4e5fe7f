"""Racing threads: the start-them-together-and-collect pattern of the concurrency tests, once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def run_together(
    count: int, work: Callable[[int], T], timeout: float | None = 120.0
) -> tuple[list[T], list[BaseException]]:
    """``work(i)`` for ``i`` in ``range(count)``, each in its own thread, all released by one
    barrier so they really race. Returns the results of the calls that returned (in order of
    index) and every exception raised, so a test asserts on both."""
    barrier = threading.Barrier(count)
    results: dict[int, T] = {}
    errors: list[BaseException] = []

    def one(i: int) -> None:
        try:
            barrier.wait()
            results[i] = work(i)
        except BaseException as err:  # noqa: BLE001 - handed to the test
            errors.append(err)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    return [results[i] for i in sorted(results)], errors
