"""Writing a benchmark's public table and board snapshot: debounced, never from a partial copy,
one writer at a time across threads and processes. Every room that changes a board asks here,
and what other writers stored (Hub replicas, the CLI) comes in here (:meth:`Publisher.refresh`)."""

from __future__ import annotations

import logging
import threading
import time

from filelock import FileLock

from leaderboard.boards import Boards
from leaderboard.config import Settings
from leaderboard.publish import publish
from scoring import BENCHMARKS
from store.base import Store
from store.golds import GoldRegistry
from submissions.catalog import Catalog

log = logging.getLogger(__name__)


class Publisher:
    """Publishes at most once per ``publish_seconds`` per benchmark (every publish is a commit on
    the Hub); a maintainer's action publishes at once (``now``)."""

    def __init__(self, settings: Settings, store: Store, catalog: Catalog, golds: GoldRegistry, boards: Boards):
        self.settings, self.store, self.catalog, self.golds, self.boards = settings, store, catalog, golds, boards
        self._lock = threading.Lock()
        self._unpublished: set[str] = set()
        self._published_at: dict[str, float] = {}  # time.monotonic() of each benchmark's last publish
        # A fresh Hub replica's first complete sync loads what is already published: not a change.
        self._loaded = store.ready

    def refresh(self) -> bool:
        """Pull what other writers stored (Hub replicas, the CLI) into the catalog, and publish
        the tables whose debounce has run out; whether the catalog changed."""
        try:
            self.store.sync()
        except Exception:  # the Hub being down must not stop the board from serving
            log.warning("store sync failed; serving what is cached", exc_info=True)
        changed = self.catalog.refresh()
        if changed and self._loaded:  # another writer scored or hid something: the public tables follow
            self.changed(BENCHMARKS)
        self._loaded = self._loaded or self.store.consistent
        self.due()
        return changed

    def publish(self, benchmark: str, *, now: bool = False) -> bool:
        """Rewrite the public table, at most once per ``publish_seconds`` unless ``now``; never
        from a partial copy (it waits for a complete sync). Returns whether it was written.

        Writers on one data folder (app, CLI, processes) take turns and each first reads what
        the others stored, so no publish drops another's row."""
        with self._lock:
            self._unpublished.add(benchmark)
            last = self._published_at.get(benchmark)
            waiting = last is not None and time.monotonic() - last < self.settings.publish_seconds
        if not self.store.consistent or (waiting and not now):
            return False
        with self.lock(benchmark):
            self.catalog.refresh()
            self.put_public(benchmark)
        with self._lock:
            self._unpublished.discard(benchmark)
            self._published_at[benchmark] = time.monotonic()
        return True

    def put_public(self, benchmark: str) -> None:
        """Write the public table and board snapshot (under :meth:`lock`)."""
        settings, boards = self.settings, self.boards
        dataset_id = settings.hub_repos.get("results") or str(settings.data_dir / "results")
        rows, gold, sizes = boards.board(benchmark).rows, self.golds.info(benchmark), boards.group_sizes(benchmark)
        publish(self.store, benchmark, rows, dataset_id, settings.ui.space_id, gold=gold, group_sizes=sizes)

    def lock(self, benchmark: str) -> FileLock:
        """Writers of a benchmark's public table and gold pointer take turns (threads and processes)."""
        locks = self.settings.data_dir / "locks"
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
