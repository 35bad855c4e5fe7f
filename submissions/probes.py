"""Probe detection: series of submissions that look like questions to the hidden test, not models.

An adaptive attack on the answer key (docs/integrity.md) sends files that differ from an earlier
one in only a few answers (each difference is a probe), or files with degenerate patterns (one
letter everywhere, answers on a subset only). A real model's variants differ in many answers
(5-20 % for ablations) and answer with a spread of letters. So each submission is compared with
the closest earlier submission of the same submitter and with the closest earlier one of anyone.

A *series* is a set of submitters joined by near-duplicate files: a suspicious file that is a
near-copy of another account's file links the two accounts, so a probe series spread over fresh
accounts (and fresh team names) is one series. A series is flagged once :data:`FLAG_AFTER` of its
submissions look like probes; with the automatic hold on, that submission and every later
suspicious one of the series are held as they arrive (:func:`to_hold`).

The evidence (which submissions, how many answers differ, pattern statistics) is for maintainers
only: it derives from the files alone, never from the gold, yet it says which questions a team
is probing, so it is shown on the Maintainers tab and by ``python -m leaderboard probes``, never
to the team. A *hold* is a moderation record (store.records.Moderation, reason ``held: ...``)
that takes the results off the board and out of the feedback; ``unhide`` releases it.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from scoring.answers import extract_answer, normalize_answer
from scoring.benchmarks import Benchmark, get_benchmark
from scoring.gold import Gold
from scoring.readers import harness_files as harness
from submissions.catalog import SubmissionState

NEAR_DUPLICATE_SHARE = 0.02
"""At most this share of the questions answered differently from an earlier file: a probe (SCB:
63 of 3,178; ablations of a real model differ in 5-20 %)."""
ONE_LETTER_SHARE = 0.8
"""At least this share of the answered questions given one letter: degenerate."""
LOW_COVERAGE_SHARE = 0.95
"""Fewer questions answered than this share: a partial file (the leaderboard's minimum coverage)."""
FLAG_AFTER = 3
"""Suspicious submissions of one series before it is flagged (one all-"A" test of the example
file, or one resubmission with a few fixes, is ordinary)."""
BOX_MOVED_IOU = 0.8
"""A box moved when its IoU with the same question's box in the other file is below this (or
one file grounds the question and the other does not): a grounding ablation moves most boxes,
a probe of the masks a few."""
MISSING, UNREAD = -1, -2
"""Codes in a row of letters: no line for the question; a line whose answer states no letter
(a refusal, an unparsed response). An unread line is answered (and wrong), as the scorer
counts it: a refusing model is no partial file."""
SIGNALS = {
    "near_copy": "near-copies of an earlier file: it differs from one in only a few answers",
    "box_probe": "the same answers as an earlier file with only a few boxes moved",
    "one_letter": "one letter in most answers",
    "no_letter": "most lines state no answer",
    "low_coverage": "answers for fewer than 95 % of the questions",
}
"""The kinds of evidence, each with the words a team is told when its file is held for them
(never which files or questions: the evidence itself stays with maintainers)."""


@dataclass(frozen=True)
class Answers:
    """One file's answers as a row of letters (index into the benchmark's choices, :data:`MISSING`
    or :data:`UNREAD`) and its groundings as a box per question (x0, y0, x1, y1 in the file's own
    numbers, NaN when it grounds nothing there)."""

    letters: np.ndarray
    boxes: np.ndarray | None = None


@dataclass(frozen=True)
class Pattern:
    """The evidence on one submission (for maintainers only)."""

    submission_id: str
    submitter: str
    team: str
    model: str
    submitted_at: str
    answered: int
    questions: int
    top_letter: str
    top_share: float  # of the answered questions
    closest_own: str  # the closest earlier submission of the same submitter ("" if none)
    differ_own: int | None  # answers that differ from it
    closest_any: str  # the closest earlier submission of another submitter ("" if none)
    differ_any: int | None
    reasons: tuple[str, ...]
    linked: str = ""  # closest_any when it is a near-duplicate: the series joins its submitter
    signals: tuple[str, ...] = ()  # the kinds of its reasons (keys of SIGNALS), what a team may be told

    @property
    def suspicious(self) -> bool:
        return bool(self.reasons)


@dataclass(frozen=True)
class ProbeFlag:
    """A flagged series: its suspicious submissions, oldest first, and which are held."""

    submitter: str  # the series' submitter with the most suspicious submissions
    benchmark: str
    submissions: int  # all parsed submissions of its submitters on the benchmark
    flagged_at: int  # the 1-based number of the series' submission that raised the flag
    evidence: tuple[Pattern, ...]
    held: tuple[str, ...]
    submitters: tuple[str, ...] = ()  # every account of the series, in order of first submission


def read_answers(bench: Benchmark, gold: Gold, raw: bytes) -> Answers:
    """The letters and boxes of a stored upload, line by line (a line the scorer would refuse is
    skipped: the detector looks at patterns, the scorer judges validity)."""
    letters = np.full(gold.size, MISSING, dtype=np.int8)
    boxes = np.full((gold.size, 4), np.nan, dtype=np.float64)
    try:  # a harness file (lmms-eval samples, VLMEvalKit predictions) is read as the scorer reads it
        shaped = harness.as_submission(bench, gold, raw, max(len(raw), 1))
    except harness.ShapeError:
        shaped = raw
    raw = shaped.data if isinstance(shaped, harness.Converted) else raw
    for line in raw.splitlines():
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: a hostile line nested too deep
            continue
        if not isinstance(obj, dict) or bench.key_field not in obj:
            continue
        key = bench.parse_key(obj[bench.key_field])
        row = gold.index.get(key) if key is not None else None
        if row is None or letters[row] != MISSING:
            continue
        if "answer" in obj:
            letter = normalize_answer(obj["answer"], bench.choices)
        elif isinstance(obj.get("response"), str):
            letter = extract_answer(obj["response"], bench.choices)
        else:
            continue
        letters[row] = bench.choices.index(letter) if letter is not None else UNREAD
        if bench.grounding:
            boxes[row] = _box(obj)
    return Answers(letters, boxes if bench.grounding else None)


def _box(obj: dict) -> tuple[float, float, float, float]:
    """A line's grounding as one box in its own numbers: the box, the extent of its polygon
    points, or its mask's bounding box; NaN when it has none the detector can read."""
    nan = (np.nan,) * 4
    try:
        if isinstance(obj.get("bbox"), list) and len(obj["bbox"]) == 4:
            x0, y0, x1, y1 = (float(v) for v in obj["bbox"])
        elif isinstance(obj.get("polygon"), list):
            flat = np.asarray([v for part in obj["polygon"] for v in np.ravel(part)], dtype=np.float64)
            xs, ys = flat[0::2], flat[1::2]
            x0, y0, x1, y1 = xs.min(), ys.min(), xs.max(), ys.max()
        elif isinstance(obj.get("mask"), dict):
            from pycocotools import mask as mask_utils

            x, y, w, h = (float(v) for v in mask_utils.toBbox(dict(obj["mask"])))
            x0, y0, x1, y1 = x, y, x + w, y + h
        else:
            return nan
    except (TypeError, ValueError, KeyError, IndexError):
        return nan
    box = (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
    return box if np.isfinite(box).all() else nan


def moved_boxes(a: np.ndarray, b: np.ndarray) -> int:
    """Questions whose box moved between two files' boxes (:data:`BOX_MOVED_IOU`)."""
    has_a, has_b = ~np.isnan(a[:, 0]), ~np.isnan(b[:, 0])
    both = has_a & has_b
    ix = np.clip(np.minimum(a[both, 2], b[both, 2]) - np.maximum(a[both, 0], b[both, 0]), 0, None)
    iy = np.clip(np.minimum(a[both, 3], b[both, 3]) - np.maximum(a[both, 1], b[both, 1]), 0, None)
    inter = ix * iy
    area = lambda x: (x[both, 2] - x[both, 0]) * (x[both, 3] - x[both, 1])  # noqa: E731
    union = area(a) + area(b) - inter
    same = np.where(union > 0, inter / np.where(union > 0, union, 1), 1.0) >= BOX_MOVED_IOU
    return int((has_a != has_b).sum() + (~same).sum())


def patterns(states: list[SubmissionState], answers: list[Answers], bench: Benchmark) -> list[Pattern]:
    """The evidence on every submission (``states`` in submission order, ``answers`` alike)."""
    if not states:
        return []
    matrix = np.stack([a.letters for a in answers])
    boxes = _stack_boxes(answers)
    submitters = np.array([s.meta.submitter for s in states])
    return [pattern(states, matrix, submitters, i, bench, boxes) for i in range(len(states))]


def _stack_boxes(answers: list[Answers]) -> np.ndarray | None:
    if not answers or any(a.boxes is None for a in answers):
        return None
    return np.stack([a.boxes for a in answers])


def _copy_evidence(reasons: list[str], signals: list[str], closest: tuple, moved_boxes: Callable[[], int]) -> None:
    """What the closest earlier file (``closest``: whose, its id, answers differing, the bound of
    near) says: a near copy, or the same answers with a few boxes moved (``moved_boxes``)."""
    whose, sid, count, near = closest
    if count is None or count > near:
        return
    if count > 0:
        reasons.append(f"differs from {whose} {sid} in {count} answers")
        signals.append("near_copy")
        return
    moved = moved_boxes()
    if 0 < moved <= near:
        reasons.append(f"the same answers as {whose} {sid} with {moved} boxes moved")
        signals.append("box_probe")


def pattern(
    states: list[SubmissionState],
    matrix: np.ndarray,
    submitters: np.ndarray,
    i: int,
    bench: Benchmark,
    boxes: np.ndarray | None = None,
) -> Pattern:
    """The evidence on submission ``i``, against the ones before it (rows of ``matrix``, and of
    ``boxes`` for a grounding benchmark).

    A file with the same answers as an earlier one tells nothing new about the answer key: it
    is a copy (the same model sent again, by its team or by another) when its boxes match too,
    a grounding ablation when it moves many boxes, and a probe of the masks only when it moves
    a few. Unread lines (refusals) are answers of their own, equal to each other."""
    state, row, n = states[i], matrix[i], matrix.shape[1]
    near = max(1, int(NEAR_DUPLICATE_SHARE * n))
    answered = int((row != MISSING).sum())
    symbols = np.where(row == UNREAD, len(bench.choices), row)[row != MISSING]
    counts = np.bincount(symbols.astype(np.int64), minlength=len(bench.choices) + 1)
    top_symbol = int(counts.argmax())
    letters = counts[: len(bench.choices)]
    top = int(letters.argmax())
    share = float(counts[top_symbol] / answered) if answered else 0.0
    differ = (matrix[:i] != row).sum(axis=1)
    mine = submitters[:i] == state.meta.submitter
    own_id, own = _closest(states, differ, mine)
    any_id, other = _closest(states, differ, ~mine)
    reasons, signals = [], []
    for whose, among, sid, count in (("own", mine, own_id, own), ("another submitter's", ~mine, any_id, other)):
        _copy_evidence(
            reasons,
            signals,
            (whose, sid, count, near),
            lambda among=among: _fewest_moved(boxes, i, among & (differ == 0)),
        )
    linked = any_id if other is not None and other <= near else ""
    if answered and share >= ONE_LETTER_SHARE:
        no_letter = top_symbol == len(bench.choices)
        reasons.append(f"{share:.0%} of answers " + ("state no letter" if no_letter else f"are {bench.choices[top]}"))
        signals.append("no_letter" if no_letter else "one_letter")
    if answered < LOW_COVERAGE_SHARE * n:
        reasons.append(f"answers only {answered} of {n} questions")
        signals.append("low_coverage")
    top_share = float(letters[top] / answered) if answered else 0.0
    m = state.meta
    who, closest = (m.id, m.submitter, m.team, m.model, m.submitted_at), (own_id, own, any_id, other)
    evidence = (tuple(reasons), linked, tuple(dict.fromkeys(signals)))
    return Pattern(*who, answered, n, bench.choices[top], top_share, *closest, *evidence)


def _fewest_moved(boxes: np.ndarray | None, i: int, among: np.ndarray) -> int:
    """The fewest boxes file ``i`` moved against any of the earlier files ``among`` (0 without boxes)."""
    if boxes is None or not among.any():
        return 0
    return min(moved_boxes(boxes[i], boxes[j]) for j in np.flatnonzero(among))


def _closest(states: list[SubmissionState], differ: np.ndarray, among: np.ndarray) -> tuple[str, int | None]:
    if not among.any():
        return "", None
    j = int(np.flatnonzero(among)[differ[among].argmin()])
    return states[j].meta.id, int(differ[j])


def series(found: list[Pattern]) -> list[list[Pattern]]:
    """Submitters joined by their near-duplicate links, each series' patterns in submission order."""
    owner = {p.submission_id: p.submitter for p in found}
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for p in found:
        if p.linked in owner:
            a, b = root(p.submitter), root(owner[p.linked])
            parent[max(a, b)] = min(a, b)
    groups: dict[str, list[Pattern]] = {}
    for p in found:
        groups.setdefault(root(p.submitter), []).append(p)
    return list(groups.values())


def _flagged(mine: list[Pattern]) -> int | None:
    """The index (in ``mine``) of the submission that flags the series, or None."""
    suspicious = [i for i, p in enumerate(mine) if p.suspicious]
    return suspicious[FLAG_AFTER - 1] if len(suspicious) >= FLAG_AFTER else None


def to_hold(found: list[Pattern]) -> set[str]:
    """The submissions the automatic hold takes: in a flagged series, the suspicious ones from
    the one that raised the flag on."""
    out = set()
    for mine in series(found):
        at = _flagged(mine)
        if at is not None:
            out |= {p.submission_id for p in mine[at:] if p.suspicious}
    return out


def flags(benchmark: str, found: list[Pattern], held: Callable[[str], bool]) -> list[ProbeFlag]:
    """Series with at least :data:`FLAG_AFTER` suspicious submissions, most evidence first."""
    out = []
    for mine in series(found):
        at = _flagged(mine)
        if at is None:
            continue
        suspicious = [p for p in mine if p.suspicious]
        counts = Counter(p.submitter for p in suspicious)
        main = max(counts, key=lambda name: counts[name])  # the first of the most active on a tie
        held_ids = tuple(p.submission_id for p in mine if held(p.submission_id))
        submitters = tuple(dict.fromkeys(p.submitter for p in mine))
        out.append(ProbeFlag(main, benchmark, len(mine), at + 1, tuple(suspicious), held_ids, submitters))
    return sorted(out, key=lambda f: (-len(f.evidence), f.submitter))


def held_queue(states: Iterable[SubmissionState]) -> list[SubmissionState]:
    """Submissions held for review (automatically or by hand), oldest hold first: the maintainers'
    queue (``python -m leaderboard held``, the Maintainers tab)."""
    held = [s for s in states if s.held]
    return sorted(held, key=lambda s: (s.moderation.at, s.meta.id))


class ProbeDetector:
    """Reads each stored upload once (uploads never change) and reports flags per benchmark."""

    def __init__(self, read_raw: Callable[[SubmissionState], bytes]) -> None:
        self.read_raw = read_raw
        self._answers: dict[tuple[str, str], Answers] = {}  # (submission id, gold version) -> answers
        self._patterns: dict[tuple[str, str], Pattern] = {}  # the same key -> pattern when first seen
        self._lock = threading.Lock()

    def answers(self, state: SubmissionState, gold: Gold) -> Answers:
        key = (state.meta.id, gold.version)
        with self._lock:
            if key in self._answers:
                return self._answers[key]
        found = read_answers(get_benchmark(gold.benchmark), gold, self.read_raw(state))
        with self._lock:
            self._answers[key] = found
        return found

    def report(self, states: Iterable[SubmissionState], gold: Gold, held: Callable[[str], bool]) -> list[ProbeFlag]:
        """Flags over the benchmark's submissions (every upload counts, rejected ones too: a
        partial probe file is refused by the minimum coverage but still says what it was)."""
        states = list(states)
        bench = get_benchmark(gold.benchmark)
        found = patterns(states, [self.answers(s, gold) for s in states], bench)
        return flags(gold.benchmark, found, held)

    def signals(self, states: Iterable[SubmissionState], gold: Gold, submission_id: str) -> tuple[str, ...]:
        """The kinds of evidence on ``submission_id`` (after :meth:`should_hold` computed it)."""
        with self._lock:
            found = self._patterns.get((submission_id, gold.version))
        return found.signals if found else ()

    def should_hold(self, states: Iterable[SubmissionState], gold: Gold, submission_id: str) -> bool:
        """Whether the automatic hold takes ``submission_id`` (one of ``states``). Each pattern is
        computed once, against the submissions stored before it when first asked, so a new upload
        costs one comparison with every earlier file, not all of them with each other."""
        states = list(states)
        missing = [i for i, s in enumerate(states) if (s.meta.id, gold.version) not in self._patterns]
        if missing:
            bench = get_benchmark(gold.benchmark)
            answers = [self.answers(s, gold) for s in states]
            matrix, boxes = np.stack([a.letters for a in answers]), _stack_boxes(answers)
            submitters = np.array([s.meta.submitter for s in states])
            for i in missing:
                found = pattern(states, matrix, submitters, i, bench, boxes)
                with self._lock:
                    self._patterns.setdefault((states[i].meta.id, gold.version), found)
        with self._lock:
            found = [self._patterns[(s.meta.id, gold.version)] for s in states]
        return submission_id in to_hold(found)
