"""The example third benchmark (``scoring/benchmarks/toy/``) for tests: registered for a block and
removed afterwards (the registry is process-wide), or named for child processes as a plugin is."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager

from scoring.benchmarks import BENCHMARKS, Benchmark, register, unregister

PLUGIN = "scoring.benchmarks.toy"
"""What ``LEADERBOARD_PLUGINS`` names to load it (README names it too)."""
ID = "toy"


@contextmanager
def registered() -> Iterator[Benchmark]:
    """The toy declaration, registered in this process until the block ends (if it was not before)."""
    fresh = ID not in BENCHMARKS
    bench = importlib.import_module(f"{PLUGIN}.declaration").TOY
    register(bench)
    try:
        yield bench
    finally:
        if fresh:
            unregister(ID)
