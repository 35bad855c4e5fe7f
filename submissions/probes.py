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

The detector reads no upload: it takes each one's stored reading (scoring.reading, made once in
the bounded worker), its letters and its boxes' extents by question key. An upload without one
(stopped at a job bound, or stored before readings and not read yet) is left out: it says
nothing about answers (it did: a compressed zip read as raw bytes was "0 of 3,178 answers", and
a workbook the worker stopped at 60 s was parsed again here, unbounded: red.md N1).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from scoring.benchmarks import Benchmark, get_benchmark
from scoring.gold import Gold
from scoring.reading import ReadAnswers
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


def answers_of(reading: ReadAnswers, gold: Gold) -> Answers:
    """The letters and boxes of a file's reading as a row per question of ``gold`` (a key the gold
    does not ask is left out; a line the scorer refused was read as no letter: :data:`UNREAD`)."""
    letters = np.full(gold.size, MISSING, dtype=np.int8)
    rows = np.fromiter((gold.index.get(k, -1) for k in reading.keys), dtype=np.int64, count=len(reading.keys))
    asked = rows >= 0
    letters[rows[asked]] = np.where(reading.letters[asked] >= 0, reading.letters[asked], UNREAD)
    if not get_benchmark(gold.benchmark).grounding:
        return Answers(letters)
    boxes = np.full((gold.size, 4), np.nan, dtype=np.float64)
    boxes[rows[asked]] = reading.extents[asked]
    return Answers(letters, boxes)


def says_something(reading: ReadAnswers | None) -> bool:
    """Whether a reading counts as evidence: it exists and answered something (a file refused as a
    whole, its shape or size, has no answers and is read by nothing)."""
    return reading is not None and reading.answered > 0


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
    """Reports flags per benchmark from the uploads' stored readings (``reading_of``: a state's
    reading or None), each turned into answers once per gold version (uploads never change)."""

    def __init__(self, reading_of: Callable[[SubmissionState], ReadAnswers | None]) -> None:
        self.reading_of = reading_of
        self._answers: dict[tuple[str, str], Answers] = {}  # (submission id, gold version) -> answers
        self._patterns: dict[tuple[str, str], Pattern] = {}  # the same key -> pattern when first seen
        self._lock = threading.Lock()

    def answers(self, state: SubmissionState, gold: Gold) -> Answers | None:
        """The upload's answers on ``gold``; None when it has no reading that says anything."""
        key = (state.meta.id, gold.version)
        with self._lock:
            if key in self._answers:
                return self._answers[key]
        reading = self.reading_of(state) if state.unreadable is None else None
        if not says_something(reading):
            return None  # not remembered: a reading made later is taken then
        found = answers_of(reading, gold)
        with self._lock:
            self._answers[key] = found
        return found

    def _read(self, states: Iterable[SubmissionState], gold: Gold) -> tuple[list[SubmissionState], list[Answers]]:
        """The states that have answers, and those answers (in submission order)."""
        pairs = [(s, self.answers(s, gold)) for s in states]
        kept = [(s, a) for s, a in pairs if a is not None]
        return [s for s, _ in kept], [a for _, a in kept]

    def report(self, states: Iterable[SubmissionState], gold: Gold, held: Callable[[str], bool]) -> list[ProbeFlag]:
        """Flags over the benchmark's submissions (every upload with a reading counts, rejected
        ones too: a partial probe file is refused by the minimum coverage but still says what it was)."""
        states, answers = self._read(states, gold)
        found = patterns(states, answers, get_benchmark(gold.benchmark))
        return flags(gold.benchmark, found, held)

    def unread(self, states: Iterable[SubmissionState], gold: Gold) -> int:
        """How many of ``states`` have no answers to compare (no reading yet, or none that says anything)."""
        return sum(self.answers(s, gold) is None for s in states)

    def signals(self, states: Iterable[SubmissionState], gold: Gold, submission_id: str) -> tuple[str, ...]:
        """The kinds of evidence on ``submission_id`` (after :meth:`should_hold` computed it)."""
        with self._lock:
            found = self._patterns.get((submission_id, gold.version))
        return found.signals if found else ()

    def should_hold(self, states: Iterable[SubmissionState], gold: Gold, submission_id: str) -> bool:
        """Whether the automatic hold takes ``submission_id`` (one of ``states``). Each pattern is
        computed once, against the submissions stored before it when first asked, so a new upload
        costs one comparison with every earlier file, not all of them with each other."""
        states, answers = self._read(states, gold)
        missing = [i for i, s in enumerate(states) if (s.meta.id, gold.version) not in self._patterns]
        if missing:
            bench = get_benchmark(gold.benchmark)
            matrix, boxes = np.stack([a.letters for a in answers]), _stack_boxes(answers)
            submitters = np.array([s.meta.submitter for s in states])
            for i in missing:
                found = pattern(states, matrix, submitters, i, bench, boxes)
                with self._lock:
                    self._patterns.setdefault((states[i].meta.id, gold.version), found)
        with self._lock:
            found = [self._patterns[(s.meta.id, gold.version)] for s in states]
        return submission_id in to_hold(found)
