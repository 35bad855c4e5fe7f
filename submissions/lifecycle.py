"""What happens to a stored submission: validate, score, record; resume; rescore in parallel.

Every step writes an immutable file (see leaderboard/layout.py) before the next begins, so a
crash at any point leaves a state from which :func:`resume` finishes the job: a submission is
never lost (raw + meta are stored first) and never scored twice (result files are create-only;
a second writer finds the first one's file and keeps it).
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import pickle
import tempfile
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from scoring import SCORER_VERSION, Gold, Limits, ResultRecord, SubmissionError, get_benchmark
from scoring.benchmarks import load_plugins, loaded_plugins
from scoring.engine import score_predictions, validate_file
from scoring.errors import Issue
from store import layout
from store.base import AlreadyExists, Store
from submissions.catalog import Catalog, SubmissionState
from submissions.records import Status, SubmissionMeta

log = logging.getLogger(__name__)
MAX_FAILURES = 3


@dataclass
class Processed:
    """The outcome of processing one submission against one gold version."""

    status: Status
    result: ResultRecord | None = None
    issues: list[Issue] = field(default_factory=list)
    total_issues: int = 0


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def _put(store: Store, catalog: Catalog, path: str, data: bytes, message: str) -> bytes:
    """Create an immutable file; if another writer made it first, keep theirs. Returns what is stored."""
    try:
        store.put("submissions", {path: data}, message)
    except AlreadyExists:
        data = store.read("submissions", path)
    catalog.note(path, data)
    return data


def evaluate(meta: SubmissionMeta, gold: Gold, path: Path, limits: Limits) -> Processed:
    """Validate and score a raw file (pure: no store). Failures other than format errors raise."""
    bench = get_benchmark(meta.benchmark)
    try:
        predictions = validate_file(bench, gold, path, bbox_format=meta.bbox_format, limits=limits)
    except SubmissionError as e:
        return Processed(Status.REJECTED, issues=e.issues, total_issues=e.total)
    return Processed(Status.SCORED, result=score_predictions(bench, gold, predictions))


def record(store: Store, catalog: Catalog, meta: SubmissionMeta, gold: Gold, outcome: Processed) -> Processed:
    """Store an outcome as files; returns the outcome as stored (another writer may have won)."""
    b, sid = meta.benchmark, meta.id
    if outcome.status is Status.REJECTED:
        body = {"issues": [i.to_dict() for i in outcome.issues], "total": outcome.total_issues, "at": now_iso()}
        _put(store, catalog, layout.rejected(b, sid, gold.version), json.dumps(body).encode(), f"Reject {sid}")
        return outcome
    _put(store, catalog, layout.validated(b, sid, gold.version), b"{}", f"Validate {sid}")
    body = {"submission_id": sid, "scored_at": now_iso(), "result": outcome.result.to_dict()}
    path = layout.result(b, sid, gold.version, outcome.result.scorer_version)
    stored = json.loads(_put(store, catalog, path, json.dumps(body).encode(), f"Score {sid}"))
    return Processed(Status.SCORED, result=ResultRecord.from_dict(stored["result"]))


def process(
    store: Store, catalog: Catalog, meta: SubmissionMeta, gold: Gold, limits: Limits, raw_path: Path | None = None
) -> Processed:
    """Bring one submission to scored or rejected for ``gold`` (idempotent)."""
    state = catalog.get(meta.id)
    if state is not None:
        if (done := state.result(gold.version, SCORER_VERSION)) is not None:
            return Processed(Status.SCORED, result=done)
        if (rejection := state.rejection(gold.version)) is not None:
            return Processed(Status.REJECTED, [Issue(**i) for i in rejection["issues"]], rejection["total"])
    try:
        if raw_path is None:
            with tempfile.TemporaryDirectory() as tmp:
                raw_path = Path(tmp) / "submission.jsonl"
                raw_path.write_bytes(store.read("submissions", layout.raw(meta.benchmark, meta.id)))
                outcome = evaluate(meta, gold, raw_path, limits)
        else:
            outcome = evaluate(meta, gold, raw_path, limits)
        return record(store, catalog, meta, gold, outcome)
    except Exception:
        log.exception("internal error while scoring %s", meta.id)
        _record_failure(store, catalog, meta, gold, traceback.format_exc(limit=3)[-2000:])
        return Processed(Status.FAILED)


def _record_failure(store: Store, catalog: Catalog, meta: SubmissionMeta, gold: Gold, error: str) -> None:
    """One more internal error on this gold (counted per gold: a new gold tries again)."""
    state = catalog.get(meta.id)
    n = (state.failures.get(gold.version[: layout.GOLD_KEY], 0) if state else 0) + 1
    body = json.dumps({"at": now_iso(), "error": error}).encode()
    _put(store, catalog, layout.failure(meta.benchmark, meta.id, gold.version, n), body, f"Failure {n} of {meta.id}")


def unfinished(states: Iterable[SubmissionState], gold: Gold) -> list[SubmissionState]:
    """Submissions still owing a result or rejection for ``gold`` (and not given up on)."""
    return [
        s for s in states if s.status(gold.version, SCORER_VERSION, MAX_FAILURES) in (Status.RECEIVED, Status.VALIDATED)
    ]


def resume(store: Store, catalog: Catalog, gold: Gold, limits: Limits) -> int:
    """Finish every unfinished submission of ``gold``'s benchmark; returns how many."""
    todo = unfinished(catalog.all(gold.benchmark), gold)
    for state in todo:
        process(store, catalog, state.meta, gold, limits)
    return len(todo)


# ---- parallel rescoring: workers load the compiled gold once, the parent writes files ----

_WORKER_GOLD: Gold | None = None


def _init_worker(gold_pickle: str, plugins: tuple[str, ...] = ()) -> None:
    global _WORKER_GOLD
    load_plugins(plugins)  # a spawned worker knows only the built-in benchmarks until it loads the parent's plugins
    with open(gold_pickle, "rb") as f:
        _WORKER_GOLD = pickle.load(f)


def _work(job: tuple[SubmissionMeta, bytes, Limits]) -> tuple[str, Processed | str]:
    meta, data, limits = job
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "submission.jsonl"
            path.write_bytes(data)
            return meta.id, evaluate(meta, _WORKER_GOLD, path, limits)
    except Exception:
        return meta.id, traceback.format_exc(limit=3)[-2000:]


def rescore(
    store: Store,
    catalog: Catalog,
    gold: Gold,
    limits: Limits,
    workers: int | None = None,
    on_done: Callable[[int, int], None] | None = None,
) -> dict[str, int]:
    """Score every submission of ``gold``'s benchmark that has no outcome for it, on all cores.

    Returns counts by status. Workers get the compiled gold through a pickle file.
    """
    todo = unfinished(catalog.all(gold.benchmark), gold)
    counts = {"scored": 0, "rejected": 0, "failed": 0}
    if not todo:
        return counts
    workers = workers or os.cpu_count() or 1
    metas = {s.meta.id: s.meta for s in todo}
    jobs = ((s.meta, store.read("submissions", layout.raw(s.meta.benchmark, s.meta.id)), limits) for s in todo)
    with tempfile.TemporaryDirectory() as tmp:
        gold_pickle = os.path.join(tmp, "gold.pickle")
        with open(gold_pickle, "wb") as f:
            pickle.dump(gold, f, protocol=pickle.HIGHEST_PROTOCOL)
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(
            workers, mp_context=context, initializer=_init_worker, initargs=(gold_pickle, loaded_plugins())
        ) as pool:
            for done, (sid, outcome) in enumerate(pool.map(_work, jobs, chunksize=4), 1):
                meta = metas[sid]
                if isinstance(outcome, str):
                    _record_failure(store, catalog, meta, gold, outcome)
                    counts["failed"] += 1
                else:
                    stored = record(store, catalog, meta, gold, outcome)
                    counts[stored.status.value] += 1
                if on_done:
                    on_done(done, len(todo))
    return counts
