"""Read once, in the bounded worker: the jobs that turn an upload into its reading and answer from
it, and the parent's side that finds the stored reading that answers for a gold.

An upload is read once (scoring.reading): :func:`read_upload` reads a new one, answers its pre-check
and scores it in one job, in its account's fair turn; :func:`evaluate` scores a stored one from its
stored reading, or reads it when none answers for the gold (a stored upload from before readings, a
gold whose public facts changed, a new reader) and hands the new reading back to be kept. These are
module-level functions: the scoring pool sends them to a worker by name (submissions/worker.py),
and without a pool they run in the calling process, alike. The parent (the web process, a CLI)
only moves bytes and decodes readings (numpy arrays and a JSON header): it never parses a team's file.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from scoring import Gold, Limits, SubmissionError, get_benchmark
from scoring.engine import finish, score_predictions
from scoring.reading import READER_VERSION, FileReading, ReadAnswers, read, reading_basis
from store.base import NotFound, Store
from store.layout import SubmissionFile, gold_key
from store.records import CorruptRecord, StoredReading
from submissions.answer import SubmitAnswer
from submissions.catalog import SubmissionState
from submissions.records import Status, SubmissionForm, SubmissionMeta
from submissions.seeds import FIXED_SEEDS, Seeds

log = logging.getLogger(__name__)

PRE_CHECKS = frozenset({"too_few_answers", "suspect_bbox_format", "suspect_grounding_format"})
"""Whole-file issues found before a scored slot is spent: such a file is turned away, not stored."""


class UnusableReading(ValueError):
    """A stored reading that cannot be decoded (derived: the upload is read again, and the new
    reading kept). Raised in a worker, it reaches the parent by its message alone."""


@dataclass(frozen=True)
class Source:
    """What an evaluation reads: a stored reading that answers for the gold, else the raw upload."""

    reading: bytes | None = None
    raw: bytes | None = None


@dataclass(frozen=True)
class Evaluated:
    """An evaluation's answer, and the reading made on the way (the upload was read: keep it).
    ``over_bound``: the job was stopped at its bound (the answer says so; the upload is unreadable)."""

    answer: SubmitAnswer | None
    reading: bytes | None = None
    over_bound: bool = False
    replaces: bool = False  # the reading replaces a stored one that could not be decoded


@dataclass(frozen=True)
class UploadRead:
    """What reading a new upload gave: the pre-check's refusal (nothing is stored), or its reading
    (to store beside it) and its answer (None if scoring raised: the lifecycle records that)."""

    refusal: SubmitAnswer | None = None
    reading: bytes | None = None
    answer: SubmitAnswer | None = None


def encoded(reading: FileReading) -> bytes | None:
    """The reading's stored bytes; None for one the codec cannot keep (a plugin's keys of another type)."""
    try:
        return StoredReading.to_bytes(reading)
    except ValueError:
        log.warning("a reading of %s could not be kept (its keys are not text or integers)", reading.benchmark)
        return None


def answer_from(sid: str, gold: Gold, reading: FileReading, limits: Limits, seed: int) -> SubmitAnswer:
    """Scored or rejected on ``gold``, from a reading that answers for it (:meth:`FileReading.fits`)."""
    if reading.rejected:
        answer = SubmitAnswer.of(Status.REJECTED, sid, issues=reading.issues, total_issues=reading.total)
        return replace(answer, warnings=reading.notes)
    predictions = reading.predictions(gold, limits)
    if predictions is None:
        raise ValueError(f"the reading of {sid} does not answer for gold {gold.version[:12]}")
    result = score_predictions(get_benchmark(gold.benchmark), gold, predictions, seed=seed)
    return replace(SubmitAnswer.of(Status.SCORED, sid, result=result), warnings=reading.notes)


# ---- jobs: module-level, run in a worker (or in process without a pool) ----


def evaluate(meta: SubmissionMeta, gold: Gold, source: Source, limits: Limits, seeds: Seeds = FIXED_SEEDS) -> Evaluated:
    """A stored upload scored or rejected on ``gold``: from its reading, or read now (its new
    reading comes back to be kept). Failures other than the file's raise."""
    seed = seeds.for_submission(meta.id)
    if source.reading is not None:
        try:
            reading = StoredReading.from_bytes(source.reading, meta.id)
        except CorruptRecord as e:  # derived: the caller reads the upload again
            raise UnusableReading(str(e)) from None
        return Evaluated(answer_from(meta.id, gold, reading, limits, seed))
    bench = get_benchmark(meta.benchmark)
    reading, _ = read(bench, gold, source.raw, meta.bbox_format, meta.grounding_format, limits)
    return Evaluated(answer_from(meta.id, gold, reading, limits, seed), encoded(reading))


def read_upload(
    gold: Gold,
    data: bytes,
    form: SubmissionForm,
    limits: Limits,
    min_coverage: float | None,
    confirm: bool,
    sid: str,
    seed: int,
) -> UploadRead:
    """A new upload read once: turned away by its pre-check (too few answers, a box format its
    boxes do not fit), or its reading and its answer (scored as ``sid`` with ``seed``, or rejected)."""
    reading, draft = read(get_benchmark(gold.benchmark), gold, data, form.bbox_format, form.grounding_format, limits)
    try:
        finish(draft, min_coverage, check_box_format=not confirm)
    except SubmissionError as e:
        if e.total == len(e.issues) and all(i.code in PRE_CHECKS for i in e.issues):
            return UploadRead(refusal=SubmitAnswer.not_valid(tuple(e.issues), e.total))
    try:
        answer = answer_from(sid, gold, reading, limits, seed)
    except Exception:  # an internal error: the upload is stored, the lifecycle retries and records it
        log.exception("scoring %s failed while it was read", sid)
        answer = None
    return UploadRead(reading=encoded(reading), answer=answer)


# ---- the parent's side: which stored reading answers for a gold ----


def stored_reading(store: Store, state: SubmissionState | None, gold: Gold, limits: Limits) -> bytes | None:
    """The bytes of a stored reading of ``state`` that answers for ``gold`` (the one read on its
    basis, else one that can be rebased to it), None when the upload must be read (again)."""
    if state is None or not state.readings:
        return None
    basis = gold_key(reading_basis(gold, limits))
    if (basis, READER_VERSION) in state.readings:  # read on this basis: it answers as it stands
        try:
            return store.read(
                "submissions", SubmissionFile.reading(state.meta.benchmark, state.meta.id, basis, READER_VERSION).path
            )
        except NotFound:
            pass
    for key, reader in sorted(state.readings):
        if reader != READER_VERSION or key == basis:
            continue
        data, reading = _load(store, state.meta, key, reader)
        if reading is not None and reading.fits(gold, limits):
            return data
    return None


def read_answers(store: Store, state: SubmissionState) -> ReadAnswers | None:
    """What the upload answered, from any stored reading of the current reader (None if it has
    none): what the probe detector and item analysis take (they map keys to the gold themselves).
    Only the answers' arrays are decoded: cheap for every upload of a benchmark."""
    for key, reader in sorted(state.readings, reverse=True):
        if reader != READER_VERSION:
            continue
        path = SubmissionFile.reading(state.meta.benchmark, state.meta.id, key, reader).path
        try:
            return StoredReading.answers(store.read("submissions", path), path)
        except NotFound:
            continue
        except CorruptRecord as e:
            log.error("unreadable stored reading: %s", e)
    return None


def _load(store: Store, meta: SubmissionMeta, key: str, reader: str) -> tuple[bytes, FileReading | None]:
    path = SubmissionFile.reading(meta.benchmark, meta.id, key, reader).path
    try:
        data = store.read("submissions", path)
        return data, StoredReading.from_bytes(data, path)
    except NotFound:
        return b"", None
    except CorruptRecord as e:  # derived: the upload is read again, and the reading made anew is kept
        log.error("unreadable stored reading: %s", e)
        return b"", None


def reading_file(meta: SubmissionMeta, gold: Gold, limits: Limits) -> SubmissionFile:
    """Where the reading of ``meta``'s upload made on ``gold`` is kept."""
    return SubmissionFile.reading(meta.benchmark, meta.id, reading_basis(gold, limits), READER_VERSION)
