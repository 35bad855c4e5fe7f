"""Scoring and checking off the web process: a small pool of spawned, lower-priority worker processes.

Validating and scoring a file is pure CPU under the GIL; in the web process it starves every
page being served (page-performance.md 1.4: a cheap request's p95 went from 5 to 74 ms while
two polygon files scored). :class:`ScoringPool` runs :func:`submissions.lifecycle.evaluate` in
``workers`` spawned processes that lower their own priority (``os.nice``) and load the parent's
benchmark plugins, so browsing keeps the CPU when both want it. Validate-only and the pre-check
of an upload run there too (:meth:`ScoringPool.run_check`, in turns from
submissions.fair_queue). The caller still waits for the answer (same contract); only where the
CPU work happens changes. The parent keeps writing files. Compare has a :class:`WorkerPool` of
its own (``Leaderboard.use_compare_pool``): it never waits behind a scoring job, and its worker
never holds a gold.

A gold reaches the workers once per version, through a pickle file in the pool's folder (as
rescoring does); each worker keeps the last gold it loaded per benchmark.
"""

from __future__ import annotations

import hashlib
import logging
import multiprocessing
import os
import pickle
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TypeVar

from scoring import Gold, Limits
from scoring.benchmarks import load_plugins, loaded_plugins
from submissions.answer import SubmitAnswer
from submissions.lifecycle import evaluate
from submissions.records import SubmissionMeta
from submissions.seeds import FIXED_SEEDS, Seeds

log = logging.getLogger(__name__)
T = TypeVar("T")
NICE = 10
"""How much lower than the web process workers run (0-19)."""

_GOLDS: dict[str, Gold] = {}  # in a worker: benchmark -> the last gold loaded
_GOLD_FILES: dict[str, str] = {}  # in a worker: benchmark -> the pickle it came from


ORPHAN_CHECK_SECONDS = 1.0
"""How often a worker checks that the process that started it is still alive."""


def _start_worker(nice: int, plugins: tuple[str, ...]) -> None:
    if nice:
        os.nice(nice)
    load_plugins(plugins)  # a spawned worker knows only the built-in benchmarks until it loads the parent's
    parent = os.getppid()
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True, name="orphan-watch").start()


def _exit_when_orphaned(parent: int) -> None:
    """End this worker once its parent is gone (killed, crashed, restarted without ``close``).

    A worker blocks on the pool's call queue, whose pipe it holds itself, so it never sees the
    parent go: without this, every killed app left its workers (~200 MB each, holding a gold)
    running forever, reparented to init."""
    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK_SECONDS)
    os._exit(0)


def _worker_gold(benchmark: str, gold_file: str, version: str) -> Gold:
    gold = _GOLDS.get(benchmark)
    if gold is None or gold.version != version or _GOLD_FILES.get(benchmark) != gold_file:
        with open(gold_file, "rb") as f:
            gold = _GOLDS[benchmark] = pickle.load(f)
        _GOLD_FILES[benchmark] = gold_file
    return gold


def _evaluate_in_worker(
    meta: SubmissionMeta, gold_file: str, version: str, source: bytes, limits: Limits, seeds: Seeds
) -> SubmitAnswer:
    return evaluate(meta, _worker_gold(meta.benchmark, gold_file, version), source, limits, seeds)


def _check_in_worker(check: Callable[..., T], benchmark: str, gold_file: str, version: str, args: tuple) -> T:
    return check(_worker_gold(benchmark, gold_file, version), *args)


class WorkerPool:
    """``workers`` spawned, niced processes that know the parent's benchmarks and end with it;
    :meth:`run` calls a module-level function in one and waits, starting a new pool if one died."""

    def __init__(self, workers: int = 1, nice: int = NICE) -> None:
        if workers < 1:
            raise ValueError(f"a worker pool needs at least one worker, got {workers}")
        self.workers, self.nice = workers, nice
        self._lock = threading.Lock()
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(self.nice, loaded_plugins()),
        )

    def run(self, what: str, fn: Callable[..., T], *args: object) -> T:
        """``fn(*args)`` in a worker (``fn`` travels by name); ``what`` names it in the log if the worker dies."""
        try:
            return self._pool.submit(fn, *args).result()
        except BrokenProcessPool:
            log.error("a worker died while %s; starting a new pool", what)
            with self._lock:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = self._new_pool()
            raise

    def start(self) -> None:
        """Start the workers now rather than on the first call (a spawn takes a second or so)."""
        self._pool.submit(os.getpid)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class ScoringPool(WorkerPool):
    """Evaluates uploads in worker processes; ``evaluate`` has the signature of the lifecycle's."""

    def __init__(self, workers: int = 1, nice: int = NICE) -> None:
        if workers < 1:
            raise ValueError(f"a scoring pool needs at least one worker, got {workers}")
        self._folder = tempfile.TemporaryDirectory(prefix="scoring-pool-")
        self._gold_files: dict[tuple[str, str, frozenset], str] = {}
        super().__init__(workers, nice)

    def _gold_file(self, gold: Gold) -> str:
        """The pickle of this gold version, written once (and the previous one of its benchmark
        removed); again when its retired questions grew (another gold was added: scoring.gold)."""
        key = (gold.benchmark, gold.version, gold.retired)
        with self._lock:
            if key not in self._gold_files:
                tag = hashlib.sha256(repr(sorted(map(str, gold.retired))).encode()).hexdigest()[:12]
                path = Path(self._folder.name) / f"{gold.benchmark}-{gold.version}-{tag}.pickle"
                with open(path, "wb") as f:
                    pickle.dump(gold, f, protocol=pickle.HIGHEST_PROTOCOL)
                for old in [k for k in self._gold_files if k[0] == gold.benchmark]:
                    Path(self._gold_files.pop(old)).unlink(missing_ok=True)
                self._gold_files[key] = str(path)
            return self._gold_files[key]

    def evaluate(
        self, meta: SubmissionMeta, gold: Gold, source: Path | bytes, limits: Limits, seeds: Seeds = FIXED_SEEDS
    ) -> SubmitAnswer:
        """:func:`submissions.lifecycle.evaluate` in a worker; waits for the answer."""
        data = source.read_bytes() if isinstance(source, Path) else source
        job = (meta, self._gold_file(gold), gold.version, data, limits, seeds.resolved())  # the key, not the store
        return self.run(f"scoring {meta.id}", _evaluate_in_worker, *job)

    def run_check(self, check: Callable[..., T], gold: Gold, *args: object) -> T:
        """``check(gold, *args)`` in a worker (a module-level function: it travels by name);
        the web process only waits. Validate-only and upload pre-checks run here (attacks.md #10)."""
        return self.run(f"checking a {gold.benchmark} file", _check_in_worker, check, gold.benchmark,
                         self._gold_file(gold), gold.version, args)  # fmt: skip

    def close(self) -> None:
        super().close()
        self._folder.cleanup()
