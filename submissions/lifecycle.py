"""What happens to a stored submission: validate, score, record; resume; rescore in parallel.

Every step writes an immutable file (see store/layout.py) before the next begins, so a
crash at any point leaves a state from which :func:`resume` finishes the job: a submission is
never lost (raw + meta are stored first) and never scored twice (result files are create-only;
a second writer finds the first one's file and keeps it).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import tempfile
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from scoring import SCORER_VERSION, Gold, Limits, SubmissionError, get_benchmark
from scoring.benchmarks import load_plugins, loaded_plugins
from scoring.engine import score_predictions, validate_file
from store.base import AlreadyExists, NotFound, Store, Unavailable
from store.layout import Kind, SubmissionFile
from store.records import StoredFailure, StoredRejection, StoredResult, Validated
from submissions.answer import SubmitAnswer
from submissions.catalog import Catalog, SubmissionState
from submissions.records import Status, SubmissionMeta
from submissions.seeds import FIXED_SEEDS, Seeds

log = logging.getLogger(__name__)
MAX_FAILURES = 3
_COMMIT_VERB = {Kind.REJECTED: "Reject", Kind.VALIDATED: "Validate", Kind.RESULT: "Score"}


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def _put(store: Store, catalog: Catalog, file: SubmissionFile, data: bytes, message: str) -> bytes:
    """Create an immutable file; if another writer made it first, keep theirs. Returns what is stored."""
    try:
        store.put("submissions", {file.path: data}, message)
    except AlreadyExists:
        data = store.read("submissions", file.path)
    catalog.note(file.path, data)
    return data


def read_raw(store: Store, benchmark: str, sid: str) -> bytes:
    """The raw upload, from the sharded layout or the first one; NotFound if neither holds it."""
    file = SubmissionFile.raw(benchmark, sid)
    try:
        return store.read("submissions", file.path)
    except NotFound:
        return store.read("submissions", file.legacy_path)


def evaluate(
    meta: SubmissionMeta, gold: Gold, source: Path | bytes, limits: Limits, seeds: Seeds = FIXED_SEEDS
) -> SubmitAnswer:
    """Validate and score a raw upload, by path or bytes (pure: no store). Scored or rejected;
    failures other than format errors raise. ``seeds`` gives the submission's bootstrap seed."""
    bench = get_benchmark(meta.benchmark)
    try:
        predictions = validate_file(
            bench, gold, source, bbox_format=meta.bbox_format, limits=limits, grounding_format=meta.grounding_format
        )
    except SubmissionError as e:
        return SubmitAnswer.of(Status.REJECTED, meta.id, issues=e.issues, total_issues=e.total)
    result = score_predictions(bench, gold, predictions, seed=seeds.for_submission(meta.id))
    return SubmitAnswer.of(Status.SCORED, meta.id, result=result)


def outcome_files(
    meta: SubmissionMeta, gold_version: str, answer: SubmitAnswer, at: str
) -> dict[SubmissionFile, bytes]:
    """The files that record an evaluated answer, in the order they are written (the one
    serialiser of outcomes: ``record`` writes them, ``Leaderboard.repair`` rebuilds from them)."""
    b, sid = meta.benchmark, meta.id
    if answer.status is Status.REJECTED:
        rejection = StoredRejection(answer.issues, answer.total_issues, at)
        return {SubmissionFile.rejected(b, sid, gold_version): rejection.to_bytes()}
    result = SubmissionFile.result(b, sid, gold_version, answer.result.scorer_version)
    return {
        SubmissionFile.validated(b, sid, gold_version): Validated().to_bytes(),
        result: StoredResult(sid, at, answer.result).to_bytes(),
    }


def record(store: Store, catalog: Catalog, meta: SubmissionMeta, gold: Gold, answer: SubmitAnswer) -> SubmitAnswer:
    """Store an evaluated answer as files; returns the answer as stored (another writer may have won)."""
    stored = {}
    for file, data in outcome_files(meta, gold.version, answer, now_iso()).items():
        stored[file] = _put(store, catalog, file, data, f"{_COMMIT_VERB[file.kind]} {meta.id}")
    if answer.status is Status.REJECTED:
        return answer
    (file,) = (f for f in stored if f.kind is Kind.RESULT)
    return SubmitAnswer.of(Status.SCORED, meta.id, result=StoredResult.from_bytes(stored[file], file.path).result)


def known_answer(state: SubmissionState, gold_version: str) -> SubmitAnswer:
    """What the stored files say of a submission on that gold: scored, rejected, pending or given up."""
    status = state.status(gold_version, SCORER_VERSION, MAX_FAILURES)
    rejection = state.rejection(gold_version) if status is Status.REJECTED else None
    return SubmitAnswer.of(
        status,
        state.meta.id,
        result=state.result(gold_version, SCORER_VERSION),
        issues=rejection.issues if rejection else (),
        total_issues=rejection.total if rejection else 0,
    )


Evaluator = Callable[[SubmissionMeta, Gold, Path | bytes, Limits, Seeds], SubmitAnswer]
"""Where the CPU work of :func:`evaluate` runs: in process, or a worker pool (submissions/worker.py)."""


def process(
    store: Store,
    catalog: Catalog,
    meta: SubmissionMeta,
    gold: Gold,
    limits: Limits,
    raw: bytes | None = None,
    evaluator: Evaluator | None = None,
    seeds: Seeds = FIXED_SEEDS,
) -> SubmitAnswer:
    """Bring one submission to scored or rejected for ``gold`` (idempotent). ``raw`` saves
    reading back the upload a writer has just stored; ``evaluator`` replaces :func:`evaluate`."""
    state = catalog.get(meta.id)
    known = known_answer(state, gold.version) if state is not None else None
    if known is not None and known.status in (Status.SCORED, Status.REJECTED) and not stale_rejection(state, gold):
        return known
    try:
        source = raw if raw is not None else read_raw(store, meta.benchmark, meta.id)
    except NotFound:  # a copy still arriving, not an error of the submission: never a failure record
        log.warning("raw upload of %s not in the store yet; scoring it later", meta.id)
        return SubmitAnswer.of(Status.RECEIVED, meta.id)
    try:
        return record(store, catalog, meta, gold, (evaluator or evaluate)(meta, gold, source, limits, seeds))
    except Unavailable as err:  # the outcome did not fit (a full disk): the upload stands, resume scores it
        log.warning("outcome of %s not stored (%s); scoring it later", meta.id, err)
        return SubmitAnswer.of(Status.RECEIVED, meta.id)
    except Exception:
        log.exception("internal error while scoring %s", meta.id)
        _record_failure(store, catalog, meta, gold, traceback.format_exc(limit=3)[-2000:])
        return SubmitAnswer.of(Status.FAILED, meta.id)


def _record_failure(store: Store, catalog: Catalog, meta: SubmissionMeta, gold: Gold, error: str) -> None:
    """One more internal error on this gold (counted per gold: a new gold tries again)."""
    state = catalog.get(meta.id)
    n = (state.failures_on(gold.version) if state else 0) + 1
    file = SubmissionFile.failure(meta.benchmark, meta.id, gold.version, n)
    _put(store, catalog, file, StoredFailure(error, now_iso()).to_bytes(), f"Failure {n} of {meta.id}")


def unfinished(states: Iterable[SubmissionState], gold: Gold) -> list[SubmissionState]:
    """Submissions still owing a result or rejection for ``gold`` (and not given up on), and
    those an earlier scorer rejected only for answering questions ``gold`` retired."""
    owing = (Status.RECEIVED, Status.VALIDATED)
    return [
        s for s in states if s.status(gold.version, SCORER_VERSION, MAX_FAILURES) in owing or stale_rejection(s, gold)
    ]


def stale_rejection(state: SubmissionState, gold: Gold) -> bool:
    """Rejected on ``gold`` (before issue 29) only for lines answering questions it retired: such
    a file is accepted now, its lines set aside. Its result file, written next to the immutable
    rejection, decides its status (a result comes first)."""
    rejection = state.rejection(gold.version)
    if rejection is None or not gold.retired or state.result(gold.version, SCORER_VERSION) is not None:
        return False
    keys = [_quoted(i.message) for i in rejection.issues if i.code == "unknown_question_id"]
    complete = rejection.total == len(rejection.issues) == len(keys)  # every issue listed, each a retired id
    return complete and all(k is not None and (k in gold.retired or _as_int(k) in gold.retired) for k in keys)


def _quoted(message: str) -> str | None:
    """The id an ``unknown question_id 'x'`` message quotes."""
    start = message.find("'")
    end = message.find("'", start + 1)
    return message[start + 1 : end] if 0 <= start < end else None


def _as_int(key: str) -> int | None:
    return int(key) if key.isdigit() else None


def unsettled(states: Iterable[SubmissionState], gold: Gold) -> list[SubmissionState]:
    """Submissions with neither an outcome nor a recorded failure on ``gold``: a staged gold
    becomes current only when there is none (a failure is retried by :func:`resume` later)."""
    return [s for s in unfinished(states, gold) if s.failures_on(gold.version) == 0]


def resume(
    store: Store,
    catalog: Catalog,
    gold: Gold,
    limits: Limits,
    seeds: Seeds = FIXED_SEEDS,
    evaluator: Evaluator | None = None,
) -> int:
    """Finish every unfinished submission of ``gold``'s benchmark; returns how many. ``evaluator``:
    where each is evaluated (the app's bounded scoring pool; None: in this process)."""
    todo = unfinished(catalog.all(gold.benchmark), gold)
    for state in todo:
        process(store, catalog, state.meta, gold, limits, seeds=seeds, evaluator=evaluator)
    return len(todo)


def has_raw(store: Store, meta: SubmissionMeta) -> bool:
    file = SubmissionFile.raw(meta.benchmark, meta.id)
    return store.exists("submissions", file.path) or store.exists("submissions", file.legacy_path)


# ---- parallel rescoring: workers load the compiled gold once, the parent writes files ----

_WORKER_GOLD: Gold | None = None


def _init_worker(gold_pickle: str, plugins: tuple[str, ...] = ()) -> None:
    global _WORKER_GOLD
    load_plugins(plugins)  # a spawned worker knows only the built-in benchmarks until it loads the parent's plugins
    with open(gold_pickle, "rb") as f:
        _WORKER_GOLD = pickle.load(f)


def _work(job: tuple[SubmissionMeta, bytes, Limits, Seeds]) -> tuple[str, SubmitAnswer | str]:
    meta, data, limits, seeds = job
    try:
        return meta.id, evaluate(meta, _WORKER_GOLD, data, limits, seeds)
    except Exception:
        return meta.id, traceback.format_exc(limit=3)[-2000:]


def rescore(
    store: Store,
    catalog: Catalog,
    gold: Gold,
    limits: Limits,
    workers: int | None = None,
    on_done: Callable[[int, int], None] | None = None,
    seeds: Seeds = FIXED_SEEDS,
) -> dict[str, int]:
    """Score every submission of ``gold``'s benchmark that has no outcome for it, on all cores.

    Returns counts by status. Workers get the compiled gold through a pickle file.
    """
    todo = unfinished(catalog.all(gold.benchmark), gold)
    counts = {"scored": 0, "rejected": 0, "failed": 0}
    if not todo:
        return counts
    todo = [s for s in todo if has_raw(store, s.meta)]
    workers = workers or os.cpu_count() or 1
    seeds = seeds.resolved()  # workers get the key, not the store
    metas = {s.meta.id: s.meta for s in todo}
    jobs = ((s.meta, read_raw(store, s.meta.benchmark, s.meta.id), limits, seeds) for s in todo)
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
