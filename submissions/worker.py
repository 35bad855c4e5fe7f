"""Reading, scoring and checking off the web process: a small pool of spawned, lower-priority workers.

Reading and scoring a file is pure CPU under the GIL; in the web process it starves every
page being served (page-performance.md 1.4: a cheap request's p95 went from 5 to 74 ms while
two polygon files scored), and it inherits none of the bounds below (the red team's workbook
re-read by the probe detector cost the web process 252 s of CPU: red.md N1). :class:`ScoringPool`
runs the reading jobs of submissions/reading.py in ``workers`` spawned processes that lower their
own priority (``os.nice``) and load the parent's benchmark plugins, so browsing keeps the CPU when
both want it: a new upload's one reading (:meth:`ScoringPool.run_check`, in turns from
submissions.fair_queue, as validate-only), and every later evaluation of a stored one
(:meth:`ScoringPool.evaluate`: rescoring, resume, gold previews). The caller still waits for the
answer (same contract); only where the CPU work happens changes. The parent keeps writing files.
(Compare runs in the visitor's browser, from the board page's own data: no worker of its own.)

A gold reaches the workers once per version, through a pickle file in the pool's folder (as
rescoring does); each worker keeps the last gold it loaded per benchmark.

Every job is bounded by the pool, not by the code it runs (:class:`JobBounds`): a deadline and a
memory cap. The parent watches the worker's clock and resident memory while it waits, and a job
over either is stopped by killing its worker, which is replaced; the caller gets
:class:`JobOverBound`, whose message tells the team plainly what happened. Each worker is its own
process, so stopping one job ends no other (one line of ``\\boxed{`` and spaces held the only
worker for 114 s while another account's check waited 106 s: attacks.md #1, issue 30 item 2).
"""

from __future__ import annotations

import hashlib
import logging
import multiprocessing
import os
import pickle
import queue
import resource
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from pathlib import Path
from typing import TypeVar

from scoring import Gold, Limits
from scoring.benchmarks import load_plugins, loaded_plugins
from submissions.answer import SubmitAnswer
from submissions.job_bounds import JobBounds, JobOverBound
from submissions.reading import Evaluated, Source, evaluate
from submissions.records import Status, SubmissionMeta
from submissions.seeds import FIXED_SEEDS, Seeds

log = logging.getLogger(__name__)
T = TypeVar("T")
NICE = 10
"""How much lower than the web process workers run (0-19)."""

_GOLDS: dict[str, Gold] = {}  # in a worker: benchmark -> the last gold loaded
_GOLD_FILES: dict[str, str] = {}  # in a worker: benchmark -> the pickle it came from


ORPHAN_CHECK_SECONDS = 1.0
"""How often a worker checks that the process that started it is still alive."""
WATCH_SECONDS = 0.05
"""How often the pool looks at a running job's clock and its worker's resident memory."""


def _start_worker(nice: int, plugins: tuple[str, ...], memory_bytes: int = 0) -> None:
    if nice:
        os.nice(nice)
    if memory_bytes:
        _cap_address_space(memory_bytes)
    load_plugins(plugins)  # a spawned worker knows only the built-in benchmarks until it loads the parent's
    parent = os.getppid()
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True, name="orphan-watch").start()


def _cap_address_space(memory_bytes: int) -> None:
    """A backstop under the pool's watch (which samples every :data:`WATCH_SECONDS`): the kernel
    refuses this worker more than four job caps of address space beyond what it has now, so even an
    allocation faster than the watch ends in MemoryError, answered as :class:`JobOverBound` (and
    the worker replaced: what ran out of memory may have left it in any state)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return
    cap = pages * os.sysconf("SC_PAGE_SIZE") + 4 * memory_bytes
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


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
    meta: SubmissionMeta, gold_file: str, version: str, source: Source, limits: Limits, seeds: Seeds
) -> Evaluated:
    return evaluate(meta, _worker_gold(meta.benchmark, gold_file, version), source, limits, seeds)


def _check_in_worker(check: Callable[..., T], benchmark: str, gold_file: str, version: str, args: tuple) -> T:
    return check(_worker_gold(benchmark, gold_file, version), *args)


def _resident_bytes(pid: int) -> int:
    """A process's resident memory (0 where /proc cannot tell)."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class _Worker:
    """One spawned worker process (a one-process executor), which can be killed without ending another job."""

    def __init__(self, nice: int, memory_bytes: int) -> None:
        self.executor = ProcessPoolExecutor(
            1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(nice, loaded_plugins(), memory_bytes),
        )
        self._pid: int | None = None
        self._started: Future[int] | None = None

    def start(self) -> None:
        """Spawn the process now, without waiting for it."""
        if self._started is None:
            self._started = self.executor.submit(os.getpid)

    @property
    def pid(self) -> int:
        """The process's id (it is spawned on the first call)."""
        if self._pid is None:
            self.start()
            self._pid = self._started.result()
        return self._pid

    def kill(self) -> None:
        """End the process now, whatever it runs, and let its executor go; returns once it is gone
        (its memory given back before a new worker starts), or after :data:`KILL_WAIT_SECONDS`."""
        if self._pid is not None:
            with suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGKILL)
            gone_by = time.monotonic() + KILL_WAIT_SECONDS
            while _alive(self._pid) and time.monotonic() < gone_by:
                time.sleep(0.01)
        self.executor.shutdown(wait=False, cancel_futures=True)


KILL_WAIT_SECONDS = 5.0


def _alive(pid: int) -> bool:
    """Whether a process still runs (a zombie, dead and waiting to be reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


class WorkerPool:
    """``workers`` spawned, niced processes that know the parent's benchmarks and end with it;
    :meth:`run` calls a module-level function in a free one and waits, within ``bounds``; a worker
    that dies or runs over is replaced."""

    def __init__(self, workers: int = 1, nice: int = NICE, bounds: JobBounds = JobBounds()) -> None:
        if workers < 1:
            raise ValueError(f"a worker pool needs at least one worker, got {workers}")
        self.workers, self.nice, self.bounds = workers, nice, bounds
        self._lock = threading.Lock()
        # last in, first out: jobs one after another go to the one warm worker (its gold loaded),
        # and a worker nothing needs at once is never spawned (~0.3 s of CPU each)
        self._free: queue.LifoQueue[_Worker] = queue.LifoQueue()
        self._all = [self._new_worker() for _ in range(workers)]
        self._spare: _Worker | None = None  # started once a job has run half its time bound
        for worker in self._all:
            self._free.put(worker)

    def _new_worker(self) -> _Worker:
        return _Worker(self.nice, self.bounds.memory_bytes)

    def run(self, what: str, fn: Callable[..., T], *args: object) -> T:
        """``fn(*args)`` in a free worker (``fn`` travels by name); ``what`` names it in the log.
        Raises :class:`JobOverBound` when the job ran over its bounds, BrokenProcessPool when the
        worker died (both: the worker is replaced)."""
        worker = self._free.get()
        try:
            return self._bounded(worker, fn, args)
        except (JobOverBound, MemoryError, BrokenProcessPool) as e:
            log.error("%s while %s; starting a new worker", _stopped(e), what)
            worker = self._replace(worker)
            if isinstance(e, MemoryError):  # the job hit its worker's address-space cap
                raise JobOverBound.of_memory(self.bounds) from None
            raise
        finally:
            self._free.put(worker)

    def _bounded(self, worker: _Worker, fn: Callable[..., T], args: tuple) -> T:
        """The job's result, or JobOverBound once it passes its deadline or its memory cap (the
        parent looks every :data:`WATCH_SECONDS`; it does not trust the job to stop itself)."""
        pid = worker.pid  # before the job: the worker has spawned, and its clock starts with the job
        baseline = _resident_bytes(pid)
        future = worker.executor.submit(fn, *args)
        deadline = time.monotonic() + self.bounds.seconds
        while True:
            left = deadline - time.monotonic()
            if left < self.bounds.seconds / 2:
                self._start_spare()
            try:
                return future.result(timeout=max(0.0, min(WATCH_SECONDS, left)))
            except FutureTimeout:
                pass
            if time.monotonic() >= deadline:
                raise JobOverBound.of_time(self.bounds)
            if _resident_bytes(pid) - baseline > self.bounds.memory_bytes:
                raise JobOverBound.of_memory(self.bounds)

    def _start_spare(self) -> None:
        """Start a spare worker, once: a job past half its bound may be stopped, and the next job
        (another account's, waiting its turn) should not wait for a spawn as well (2-3 s here)."""
        with self._lock:
            if self._spare is None:
                self._spare = self._new_worker()
                self._spare.start()

    def _replace(self, worker: _Worker) -> _Worker:
        worker.kill()
        with self._lock:
            fresh, self._spare = self._spare or self._new_worker(), None
            self._all = [fresh if w is worker else w for w in self._all]
        return fresh

    def pids(self) -> list[int]:
        """The workers' process ids (each is spawned if it has not run yet)."""
        with self._lock:
            workers = list(self._all)
        return [w.pid for w in workers]

    def start(self) -> None:
        """Start the workers now rather than on the first call (a spawn takes a second or so)."""
        for worker in list(self._all):
            worker.start()

    def close(self) -> None:
        with self._lock:
            workers = [*self._all, *([self._spare] if self._spare else [])]
        for worker in workers:
            worker.executor.shutdown(wait=True, cancel_futures=True)


def _stopped(error: BaseException) -> str:
    if isinstance(error, BrokenProcessPool):
        return "a worker died"
    return f"a job was stopped ({error})" if isinstance(error, JobOverBound) else "a job ran out of memory"


class ScoringPool(WorkerPool):
    """Evaluates uploads in worker processes; ``evaluate`` has the signature of the lifecycle's."""

    def __init__(self, workers: int = 1, nice: int = NICE, bounds: JobBounds = JobBounds()) -> None:
        if workers < 1:
            raise ValueError(f"a scoring pool needs at least one worker, got {workers}")
        self._folder = tempfile.TemporaryDirectory(prefix="scoring-pool-")
        self._gold_files: dict[tuple[str, str, frozenset], str] = {}
        super().__init__(workers, nice, bounds)

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
        self, meta: SubmissionMeta, gold: Gold, source: Source, limits: Limits, seeds: Seeds = FIXED_SEEDS
    ) -> Evaluated:
        """:func:`submissions.reading.evaluate` in a worker; waits for the answer. A job over its
        bounds is a rejection that says so, ``over_bound`` (the upload stays stored, unreadable)."""
        job = (meta, self._gold_file(gold), gold.version, source, limits, seeds.resolved())  # the key, not the store
        try:
            return self.run(f"scoring {meta.id}", _evaluate_in_worker, *job)
        except JobOverBound as e:
            answer = SubmitAnswer.of(Status.REJECTED, meta.id, issues=(e.issue,), total_issues=1)
            return Evaluated(answer, over_bound=True)

    def run_check(self, check: Callable[..., T], gold: Gold, *args: object) -> T:
        """``check(gold, *args)`` in a worker (a module-level function: it travels by name);
        the web process only waits. Validate-only and upload pre-checks run here (attacks.md #10)."""
        return self.run(
            f"checking a {gold.benchmark} file",
            _check_in_worker,
            check,
            gold.benchmark,
            self._gold_file(gold),
            gold.version,
            args,
        )

    def close(self) -> None:
        super().close()
        self._folder.cleanup()
