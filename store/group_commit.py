"""Group commit: durable writes that arrive together share one commit.

A burst of submissions would otherwise cost one Hub commit each, against an hourly commit
quota. Each caller queues its write and waits; whoever finds no commit under way becomes the
leader, takes every queued write and makes one commit of them; writes queued meanwhile go in
the next commit, led by one of their own callers. A caller waits at most until its deadline:
a write still queued then is withdrawn (never committed later), so "try again" is the truth.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .base import Unavailable


@dataclass(eq=False)
class Write:
    """One durable write waiting for its commit; ``error`` is set if it did not land."""

    files: Mapping[str, bytes]
    message: str
    overwrite: bool
    deadline: float  # time.monotonic() by which the caller must have its answer
    done: bool = False
    taken: bool = False
    error: BaseException | None = field(default=None, repr=False)


CommitBatch = Callable[[list[Write]], None]
"""Commits a batch: sets ``error`` on the writes that did not land (or raises for all)."""


class GroupCommitter:
    """Leader/follower batching of durable writes to one repo (see module doc)."""

    def __init__(self, commit: CommitBatch, min_time_left: float) -> None:
        self._commit = commit
        self._min_time_left = min_time_left  # a write with less time than this is not started
        self._cond = threading.Condition()
        self._queue: list[Write] = []
        self._busy = False
        self.batches = 0  # commits attempted (for tests and perf)

    def write(self, write: Write) -> None:
        """Queue ``write`` and return once it is committed; raise its error otherwise."""
        with self._cond:
            self._queue.append(write)
            batch = self._wait_or_lead(write)
        if batch is not None:
            self._lead(batch)
        if write.error is not None:
            raise write.error

    def _wait_or_lead(self, write: Write) -> list[Write] | None:
        """Under the lock: wait for ``write`` to be done, or return a batch to commit as leader."""
        while not write.done:
            if not self._busy and not write.taken:
                self._busy = True
                return self._take()
            left = write.deadline - time.monotonic()
            if left <= 0 and not write.taken:
                self._queue.remove(write)
                raise Unavailable("the Hub did not take the write in time")
            # a taken write waits for its leader, whose commit is bounded by the batch deadline
            self._cond.wait(timeout=max(left, 0.05))
        return None

    def _take(self) -> list[Write]:
        """Every queued write with time enough left; the others fail at once."""
        now = time.monotonic()
        batch = [w for w in self._queue if w.deadline - now >= self._min_time_left]
        for late in (w for w in self._queue if w not in batch):
            late.error, late.done = Unavailable("the Hub was too slow to take the write in time"), True
        for w in batch:
            w.taken = True
        self._queue.clear()
        return batch

    def _lead(self, batch: list[Write]) -> None:
        try:
            self.batches += 1
            self._commit(batch)
        except BaseException as err:  # noqa: BLE001 - every write of the batch gets it
            for w in batch:
                w.error = w.error or err
        finally:
            with self._cond:
                for w in batch:
                    w.done = True
                self._busy = False
                self._cond.notify_all()
