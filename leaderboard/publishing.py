"""Writing a benchmark's public table and board snapshot: debounced, never from a partial copy,
one writer at a time across threads and processes. Every room that changes a board asks here."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from filelock import FileLock

from leaderboard.publish import publish

if TYPE_CHECKING:
    from leaderboard.service import Leaderboard


class Publisher:
    """Publishes at most once per ``publish_seconds`` per benchmark (every publish is a commit on
    the Hub); a maintainer's action publishes at once (``now``)."""

    def __init__(self, lb: Leaderboard) -> None:
        self.lb = lb
        self._lock = threading.Lock()
        self._unpublished: set[str] = set()
        self._published_at: dict[str, float] = {}  # time.monotonic() of each benchmark's last publish

    def publish(self, benchmark: str, *, now: bool = False) -> bool:
        """Rewrite the public table, at most once per ``publish_seconds`` unless ``now``; never
        from a partial copy (it waits for a complete sync). Returns whether it was written.

        Writers on one data folder (app, CLI, processes) take turns and each first reads what
        the others stored, so no publish drops another's row."""
        with self._lock:
            self._unpublished.add(benchmark)
            last = self._published_at.get(benchmark)
            waiting = last is not None and time.monotonic() - last < self.lb.settings.publish_seconds
        if not self.lb.store.consistent or (waiting and not now):
            return False
        with self.lock(benchmark):
            self.lb.catalog.refresh()
            self.put_public(benchmark)
        with self._lock:
            self._unpublished.discard(benchmark)
            self._published_at[benchmark] = time.monotonic()
        return True

    def put_public(self, benchmark: str) -> None:
        """Write the public table and board snapshot (under :meth:`lock`)."""
        lb = self.lb
        dataset_id = lb.settings.hub_repos.get("results") or str(lb.settings.data_dir / "results")
        rows, gold, sizes = lb.board(benchmark).rows, lb.golds.info(benchmark), lb.group_sizes(benchmark)
        publish(lb.store, benchmark, rows, dataset_id, lb.settings.ui.space_id, gold=gold, group_sizes=sizes)

    def lock(self, benchmark: str) -> FileLock:
        """Writers of a benchmark's public table and gold pointer take turns (threads and processes)."""
        locks = self.lb.settings.data_dir / "locks"
        locks.mkdir(parents=True, exist_ok=True)
        return FileLock(str(locks / f"publish-{benchmark}.lock"))

    def changed(self, benchmarks) -> None:
        """Another writer changed these boards: their public tables follow at the next due time."""
        with self._lock:
            self._unpublished.update(benchmarks)

    def waiting(self) -> list[str]:
        """Benchmarks whose public table waits for the debounce or a complete sync."""
        with self._lock:
            return sorted(self._unpublished)

    def due(self) -> list[str]:
        """Publish the waiting tables whose debounce has run out; returns those published."""
        return [b for b in self.waiting() if self.publish(b)]
