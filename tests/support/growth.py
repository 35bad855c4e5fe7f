"""How a reader's time grows with its input: the ratio of its time at 4n characters to its time at n.

A linear reader gives about 4, a quadratic one 16, the backtracking patterns of issue 30 hundreds.
Robust on a loaded machine: time is this thread's CPU time (``time.thread_time``: the time other
processes take the core from it is not counted), each size is timed as the best of several runs of a
calibrated number of calls, a ratio over the bound is measured again before it counts, and only ratios
are compared, never seconds. A reader that backtracks catastrophically would not finish at all, so the measurement
runs under a guard (SIGALRM: Python's regular expression engine checks for signals) that turns a
run of minutes into a failure naming the text, instead of a hung suite.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from contextlib import contextmanager

LINEAR_BOUND = 8.0
"""The largest time ratio (4n over n) taken as linear: 4 plus room for noise, half of quadratic's 16."""
GUARD_SECONDS = 30.0
"""A run this long is catastrophic growth (a linear reader takes milliseconds at the length cap)."""


class TooSlow(Exception):
    """The reader did not finish within :data:`GUARD_SECONDS` (catastrophic growth)."""


@contextmanager
def _guard(seconds: float, what: str):
    def stop(signum, frame):
        raise TooSlow(f"{what}: not done after {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _best(read: Callable[[str], object], text: str, calls: int, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.thread_time()
        for _ in range(calls):
            read(text)
        best = min(best, time.thread_time() - start)
    return best


def _calls_for(read: Callable[[str], object], text: str) -> int:
    """Calls per run so that a run at n lasts a few milliseconds (well above the timer's grain)."""
    calls = 1
    while calls < 4096 and _best(read, text, calls, 1) < 0.005:
        calls *= 2
    return calls


def growth(read: Callable[[str], object], make: Callable[[int], str], n: int, runs: int = 5, tries: int = 3) -> float:
    """The time ratio of ``read(make(4 * n))`` to ``read(make(n))``: the least of ``tries`` measurements
    (a ratio within :data:`LINEAR_BOUND` is returned at once)."""
    small, large = make(n), make(4 * n)
    ratio = float("inf")
    with _guard(GUARD_SECONDS, f"reading {large[:40]!r}... ({len(large):,} characters)"):
        calls = _calls_for(read, small)
        for _ in range(tries):
            ratio = min(ratio, _best(read, large, calls, runs) / _best(read, small, calls, runs))
            if ratio <= LINEAR_BOUND:
                break
    return ratio
