"""What happens to a stored submission: read, score, record; resume; rescore.

Every step writes an immutable file (see store/layout.py) before the next begins, so a
crash at any point leaves a state from which :func:`resume` finishes the job: a submission is
never lost (raw + meta are stored first) and never scored twice (result files are create-only;
a second writer finds the first one's file and keeps it).

An upload is read once (submissions.reading): its reading is kept beside it, and every later
evaluation (a new gold, a resume, a rescore, a preview) scores that reading; only an upload
without a reading that answers for the gold is read again, and the new reading is kept. The
evaluation runs where the caller says (``evaluator``: the app's and the CLI's bounded scoring
pool), never unbounded in the caller. An upload stopped at a job bound while it was read is
marked unreadable (``unreadable.json``): every gold rejects it from that record, no one reads it again.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from scoring import SCORER_VERSION, Gold, Limits
from store.base import AlreadyExists, NotFound, Store, Unavailable
from store.layout import Kind, SubmissionFile
from store.records import StoredFailure, StoredRejection, StoredResult, Unreadable, Validated
from submissions import reading as reading_jobs
from submissions.answer import SubmitAnswer
from submissions.catalog import Catalog, SubmissionState
from submissions.reading import Evaluated, Source
from submissions.records import Status, SubmissionMeta
from submissions.seeds import FIXED_SEEDS, Seeds

log = logging.getLogger(__name__)
MAX_FAILURES = 3
_COMMIT_VERB = {Kind.REJECTED: "Reject", Kind.VALIDATED: "Validate", Kind.RESULT: "Score"}
__all__ = ["Evaluated", "Source"]


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
    """Read and score a raw upload, by path or bytes (pure: no store), in this process: the
    reference every stored reading is checked against. ``seeds`` gives the submission's bootstrap seed."""
    data = source.read_bytes() if isinstance(source, Path) else source
    return reading_jobs.evaluate(meta, gold, Source(raw=data), limits, seeds).answer


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
    """Store an evaluated answer as files; returns the answer as stored (another writer may have won),
    with the reader's notes (files set aside) it was given."""
    stored = {}
    for file, data in outcome_files(meta, gold.version, answer, now_iso()).items():
        stored[file] = _put(store, catalog, file, data, f"{_COMMIT_VERB[file.kind]} {meta.id}")
    if answer.status is Status.REJECTED:
        return answer
    (file,) = (f for f in stored if f.kind is Kind.RESULT)
    result = StoredResult.from_bytes(stored[file], file.path).result
    return replace(SubmitAnswer.of(Status.SCORED, meta.id, result=result), warnings=answer.warnings)


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


Evaluator = Callable[[SubmissionMeta, Gold, Source, Limits, Seeds], Evaluated]
"""Where an evaluation runs (:func:`submissions.reading.evaluate`): in process, or a bounded
worker pool (submissions/worker.py)."""


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
    reading back the upload a writer has just stored; ``evaluator`` replaces :func:`submissions.reading.evaluate`."""
    state = catalog.get(meta.id)
    known = known_answer(state, gold.version) if state is not None else None
    if known is not None and known.status in (Status.SCORED, Status.REJECTED) and not stale_rejection(state, gold):
        return known
    try:
        evaluated = _evaluated(store, state, meta, gold, limits, raw, evaluator, seeds)
        if evaluated is None:  # a copy still arriving, not an error of the submission: never a failure record
            log.warning("raw upload of %s not in the store yet; scoring it later", meta.id)
            return SubmitAnswer.of(Status.RECEIVED, meta.id)
        keep_reading(store, catalog, meta, gold, limits, evaluated)
        return record(store, catalog, meta, gold, evaluated.answer)
    except Unavailable as err:  # the outcome did not fit (a full disk): the upload stands, resume scores it
        log.warning("outcome of %s not stored (%s); scoring it later", meta.id, err)
        return SubmitAnswer.of(Status.RECEIVED, meta.id)
    except Exception:
        log.exception("internal error while scoring %s", meta.id)
        _record_failure(store, catalog, meta, gold, traceback.format_exc(limit=3)[-2000:])
        return SubmitAnswer.of(Status.FAILED, meta.id)


def _evaluated(
    store: Store,
    state: SubmissionState | None,
    meta: SubmissionMeta,
    gold: Gold,
    limits: Limits,
    raw: bytes | None,
    evaluator: Evaluator | None,
    seeds: Seeds,
) -> Evaluated | None:
    """The evaluation of ``meta`` on ``gold``: from the unreadable mark, a stored reading, or the
    upload read now; None when the upload is not in the store yet."""
    if state is not None and state.unreadable is not None:
        mark = state.unreadable
        return Evaluated(SubmitAnswer.of(Status.REJECTED, meta.id, issues=mark.issues, total_issues=mark.total))
    source = source_of(store, state, meta, gold, limits, raw)
    if source is None:
        return None
    evaluate = evaluator or reading_jobs.evaluate
    try:
        return evaluate(meta, gold, source, limits, seeds)
    except reading_jobs.UnusableReading as e:
        if source.reading is None:
            raise
        log.error("%s; reading the upload again", e)
        try:
            again = Source(raw=raw if raw is not None else read_raw(store, meta.benchmark, meta.id))
        except NotFound:
            return None
        return dataclasses.replace(evaluate(meta, gold, again, limits, seeds), replaces=True)


def evaluate_stored(
    store: Store,
    catalog: Catalog,
    state: SubmissionState,
    gold: Gold,
    limits: Limits,
    evaluator: Evaluator | None = None,
    seeds: Seeds = FIXED_SEEDS,
) -> Evaluated | None:
    """A stored upload evaluated on ``gold`` without recording the outcome (a preview: the caller
    records it once the gold is stored); what reading it gave is kept all the same (a reading, or
    the mark of an upload stopped at a job bound: both hold for any gold). None when the upload is
    not in the store yet."""
    evaluated = _evaluated(store, state, state.meta, gold, limits, None, evaluator, seeds)
    if evaluated is not None:
        keep_reading(store, catalog, state.meta, gold, limits, evaluated)
    return evaluated


def source_of(
    store: Store, state: SubmissionState | None, meta: SubmissionMeta, gold: Gold, limits: Limits, raw: bytes | None
) -> Source | None:
    """What an evaluation on ``gold`` reads: a stored reading that answers for it, else the raw
    upload (None when it is not in the store yet)."""
    stored = reading_jobs.stored_reading(store, state, gold, limits)
    if stored is not None:
        return Source(reading=stored)
    try:
        return Source(raw=raw if raw is not None else read_raw(store, meta.benchmark, meta.id))
    except NotFound:
        return None


def keep_reading(
    store: Store, catalog: Catalog, meta: SubmissionMeta, gold: Gold, limits: Limits, evaluated: Evaluated
) -> None:
    """Keep what reading the upload gave: the new reading, or the mark of an upload stopped at a
    job bound while it was read (create-only: another writer's stands)."""
    if evaluated.over_bound:
        answer = evaluated.answer
        mark = Unreadable(answer.issues, answer.total_issues, now_iso())
        _put(
            store, catalog, SubmissionFile.unreadable(meta.benchmark, meta.id), mark.to_bytes(), f"Unreadable {meta.id}"
        )
    elif evaluated.reading is not None and evaluated.replaces:  # derived, rebuilt: as repair rewrites
        file = reading_jobs.reading_file(meta, gold, limits)
        store.put("submissions", {file.path: evaluated.reading}, f"Read {meta.id} again", overwrite=True)
    elif evaluated.reading is not None:
        file = reading_jobs.reading_file(meta, gold, limits)
        _put(store, catalog, file, evaluated.reading, f"Read {meta.id}")


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


def unread(states: Iterable[SubmissionState]) -> list[SubmissionState]:
    """Stored uploads with no reading of the current reader and no unreadable mark: uploads from
    before readings (or a new reader), read once in the pool by :func:`read_unread`."""
    current = reading_jobs.READER_VERSION
    return [s for s in states if s.unreadable is None and not any(r == current for _, r in s.readings)]


def read_unread(
    store: Store,
    catalog: Catalog,
    gold: Gold,
    limits: Limits,
    evaluator: Evaluator | None,
    seeds: Seeds = FIXED_SEEDS,
    skip: set[str] | None = None,
) -> int:
    """Read every stored upload of ``gold``'s benchmark that has no reading yet (:func:`unread`),
    where ``evaluator`` runs, and keep the readings (an outcome still owed on ``gold`` is recorded
    too); returns how many were read. ``skip``: ids tried before whose reading could not be kept."""
    done = 0
    for state in unread(catalog.all(gold.benchmark)):
        if skip is not None and state.meta.id in skip:
            continue
        try:
            raw = read_raw(store, state.meta.benchmark, state.meta.id)
        except NotFound:
            continue
        try:
            evaluated = (evaluator or reading_jobs.evaluate)(state.meta, gold, Source(raw=raw), limits, seeds)
            keep_reading(store, catalog, state.meta, gold, limits, evaluated)
        except Exception:  # an internal error: the upload stays unread; scoring it records the failure
            log.exception("reading %s failed", state.meta.id)
            evaluated = None
        if skip is not None and (evaluated is None or (evaluated.reading is None and not evaluated.over_bound)):
            skip.add(state.meta.id)
        if evaluated is not None and unfinished([catalog.get(state.meta.id)], gold):
            record(store, catalog, state.meta, gold, evaluated.answer)
        done += 1
    return done


def has_raw(store: Store, meta: SubmissionMeta) -> bool:
    file = SubmissionFile.raw(meta.benchmark, meta.id)
    return store.exists("submissions", file.path) or store.exists("submissions", file.legacy_path)


# ---- rescoring: every stored upload on a gold, each job bounded, all within a deadline ----


@dataclass(frozen=True)
class Rescored:
    """What a rescore did: outcomes by status, the uploads stopped at a job bound (their ids), and
    how many the deadline left (a later rescore or resume finishes them)."""

    counts: dict[str, int]
    over_bound: tuple[str, ...] = ()
    left: int = 0


def rescore(
    store: Store,
    catalog: Catalog,
    gold: Gold,
    limits: Limits,
    workers: int | None = None,
    on_done: Callable[[int, int], None] | None = None,
    seeds: Seeds = FIXED_SEEDS,
    evaluator: Evaluator | None = None,
    deadline: float | None = None,
) -> Rescored:
    """Score every submission of ``gold``'s benchmark that has no outcome for it, ``workers`` at a
    time, each where ``evaluator`` runs (a bounded pool; None: in this process), none started
    after ``deadline`` seconds. Most are scored from their stored readings; the rest are read once."""
    todo = [s for s in unfinished(catalog.all(gold.benchmark), gold) if s.readings or has_raw(store, s.meta)]
    stopped: list[str] = []
    job = _Rescoring(store, catalog, gold, limits, seeds.resolved(), evaluator, stopped)  # workers get the key
    done = for_each(todo, job, workers or 1, deadline, on_done)
    counts = {"scored": 0, "rejected": 0, "failed": 0}
    for answer in done.values():
        counts[answer.status.value] = counts.get(answer.status.value, 0) + 1
    return Rescored(counts, tuple(stopped), len(todo) - len(done))


class _Rescoring:
    """One submission of a rescore: :func:`process`, noting the uploads stopped at a job bound."""

    def __init__(self, store, catalog, gold, limits, seeds, evaluator, stopped: list[str]) -> None:
        self.store, self.catalog, self.gold, self.limits, self.seeds = store, catalog, gold, limits, seeds
        self.evaluator, self.stopped = evaluator, stopped

    def __call__(self, state: SubmissionState) -> SubmitAnswer:
        evaluator = self.evaluator or reading_jobs.evaluate

        def noted(*args) -> Evaluated:
            evaluated = evaluator(*args)
            if evaluated.over_bound:
                self.stopped.append(state.meta.id)
            return evaluated

        args = (self.store, self.catalog, state.meta, self.gold, self.limits)
        return process(*args, evaluator=noted, seeds=self.seeds)


JOBS_PER_WORKER = 16
"""Items each worker of :func:`for_each` is given at least: a pool worker's start (~1 s of CPU, its
imports and the gold) pays for itself only over several evaluations from readings (~0.1 s each)."""


def for_each(
    items: list, job: Callable, workers: int, deadline: float | None, on_done: Callable[[int, int], None] | None
) -> dict:
    """``job(item)`` of every item, ``workers`` at a time (threads: each waits on a bounded
    worker process; at most one per :data:`JOBS_PER_WORKER` items), none started after ``deadline``
    seconds; returns item id -> result for the items done (``item.meta.id``), telling
    ``on_done(done, total)`` as they end."""
    stop_at = None if deadline is None else time.monotonic() + deadline
    workers = min(workers, -(-len(items) // JOBS_PER_WORKER))  # few items: fewer workers to start
    results: dict = {}
    lock = threading.Lock()

    def run(item) -> None:
        if stop_at is not None and time.monotonic() > stop_at:
            return
        result = job(item)
        with lock:
            results[item.meta.id] = result
            n = len(results)
        if on_done:
            on_done(n, len(items))

    if workers <= 1:
        for item in items:
            run(item)
        return results
    with ThreadPoolExecutor(workers, thread_name_prefix="rescore") as pool:
        list(pool.map(run, items))
    return results
