"""Places for requests held at a door: a flood's excess is made to wait, not answered at once.

A refusal answered at once is a flood's fastest path: 20 Compare loops got 42,835 refusals in
20 s (each about 0.5 ms of the web process's CPU), and six validate-only loops had 801 uploads
refused, each after the web process had read and thrown away its 27 MB (docs/benchmarks.md). A
door that holds the excess request instead (an asyncio sleep: no thread, and for an upload not
even its body read, so the sender blocks) slows a flood to the pace of its own loops. Holding
costs a connection, so the places are bounded per caller and in all; beyond them the door answers
at once, as before (docs/benchmarks.md names that limit).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager


class Holds:
    """Held requests, at most ``per_caller`` of one caller and ``in_all`` altogether. For one
    event loop (a door is ASGI middleware): no lock."""

    def __init__(self, per_caller: int, in_all: int) -> None:
        if per_caller < 1 or in_all < per_caller:
            raise ValueError(f"holds need a place per caller and at least as many in all, got {per_caller}, {in_all}")
        self.per_caller, self.in_all = per_caller, in_all
        self._held: Counter[str] = Counter()

    @contextmanager
    def place(self, who: str) -> Iterator[bool]:
        """``with holds.place(who) as held:``: True while ``who`` holds a place (given back on
        leaving), False when none was free (the caller answers at once)."""
        if self._held[who] >= self.per_caller or self.total() >= self.in_all:
            yield False
            return
        self._held[who] += 1
        try:
            yield True
        finally:
            self._held[who] -= 1
            if not self._held[who]:
                del self._held[who]

    def total(self) -> int:
        return sum(self._held.values())

    def of(self, who: str) -> int:
        return self._held[who]
