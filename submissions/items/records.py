"""Typed records of the item analysis: what it reads (:class:`ItemGold`, :class:`Responses`) and
what it returns (:class:`ItemAnalysis` with a :class:`QuestionStats` per question and ranked
:class:`Suspect` s). Maintainer-only data: nothing here may reach a team or a public page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scoring.geometry import MaskTable

MISSING = -1
"""The choice code of a question a submission left unanswered or that could not be read."""


@dataclass(frozen=True, eq=False)
class ItemGold:
    """The gold the analysis judges against: one entry per question, in one order.

    ``answers`` is each question's gold letter as an index into ``choices``; ``masks`` (grounding
    benchmarks only) holds each question's gold region on its gold image, whose size the table
    carries too (``masks.widths``/``masks.heights``), as :func:`scoring.benchmarks.scb.load_gold`
    compiles it.
    """

    question_ids: Sequence
    choices: str
    answers: np.ndarray
    masks: MaskTable | None = None

    def __post_init__(self) -> None:
        n, k = len(self.question_ids), len(self.choices)
        answers = np.asarray(self.answers, dtype=np.int64)
        object.__setattr__(self, "answers", answers)
        if answers.shape != (n,):
            raise ValueError(f"gold answers: expected one per question ({n}), got shape {answers.shape}")
        if n and (answers.min() < 0 or answers.max() >= k):
            raise ValueError(f"gold answers: every answer must index one of the {k} choices {self.choices!r}")
        if self.masks is not None and len(self.masks) != n:
            raise ValueError(f"gold masks: expected one per question ({n}), got {len(self.masks)}")

    @property
    def size(self) -> int:
        return len(self.question_ids)


@dataclass(frozen=True, eq=False)
class Responses:
    """Every scored submission's reading of every question (one row per submission).

    ``choices`` (S x Q, integers) holds the index of the letter chosen, or :data:`MISSING`.
    ``boxes`` (S x Q x 4, floats; grounding benchmarks) holds the box given for the answered
    image as ``(x0, y0, x1, y1)`` pixels of that image, NaN where there is none. Only the boxes of
    answers that chose the gold image are read: they are in the gold image's pixels.
    """

    choices: np.ndarray
    boxes: np.ndarray | None = None

    @property
    def submissions(self) -> int:
        return int(self.choices.shape[0])

    def check(self, gold: ItemGold) -> None:
        """ValueError naming what is wrong, before any work is done."""
        s, q, k = self.choices.shape[0] if self.choices.ndim == 2 else -1, gold.size, len(gold.choices)
        if self.choices.ndim != 2 or self.choices.shape[1] != q:
            raise ValueError(f"choices: expected submissions x {q} questions, got shape {self.choices.shape}")
        if self.choices.size and (self.choices.min() < MISSING or self.choices.max() >= k):
            raise ValueError(f"choices: each entry must be {MISSING} (missing) or a letter index 0-{k - 1}")
        if self.boxes is None:
            return
        if gold.masks is None:
            raise ValueError("boxes given for a benchmark whose gold has no masks")
        if self.boxes.shape != (s, q, 4):
            raise ValueError(f"boxes: expected shape {(s, q, 4)} (x0, y0, x1, y1 per answer), got {self.boxes.shape}")


@dataclass(frozen=True)
class Grounding:
    """How the submissions that chose the gold image placed their boxes on it (SCB)."""

    boxes: int
    """Boxes read (at most the analysis' ``max_boxes``, the ablest pickers first)."""
    iou_quartiles: tuple[float, float, float] | None
    """25th, 50th and 75th percentile of their IoU with the gold region."""
    hit50: float | None
    """Share of them with IoU >= 0.5."""
    agreement: float | None
    """Median IoU of the able grounders' boxes with their consensus box (how much they agree)."""
    consensus: tuple[float, float, float, float] | None
    """Coordinate-wise median of the able grounders' boxes, pixels of the gold image."""
    consensus_iou: float | None
    """IoU of the consensus box with the gold region."""


@dataclass(frozen=True)
class QuestionStats:
    """One question's item statistics under the current gold."""

    question_id: object
    n: int
    """Submissions that answered it."""
    share_right: float | None
    difficulty: float | None
    """2PL difficulty b: the ability at which half the submissions get it right (clipped to +-6);
    None when nobody answered."""
    discrimination: float | None
    """2PL discrimination a against abilities estimated without this question; < 0 means the
    able submissions get it wrong more often than the weak ones."""
    letter_counts: tuple[int, ...]
    """How many chose each letter, in the benchmark's letter order."""
    wrong_shares: dict[str, float]
    """Each wrong letter's share of the wrong answers."""
    grounding: Grounding | None = None


@dataclass(frozen=True)
class Band:
    """How one ability band of the submissions answered a suspect question."""

    name: str
    """``top``, ``middle`` or ``bottom`` third by estimated ability."""
    submissions: int
    answered: int
    chose_gold: int
    chose_suggestion: int


@dataclass(frozen=True)
class AnswerEvidence:
    gold: str
    suggestion_discrimination: float
    """The suggested letter's discrimination in standard errors (> 0: the able choose it)."""
    gold_discrimination: float
    bands: tuple[Band, ...]


@dataclass(frozen=True)
class MaskEvidence:
    able: int
    """Able grounders who chose the gold image and gave a box."""
    against: int
    """Of them, how many agree with the consensus box (IoU >= 0.5) while scoring less than half
    their usual IoU against the gold region."""
    agreement: float
    usual_iou: float
    """The able grounders' median usual IoU (relative to the best a box can do on each mask)."""
    relative_iou: float
    """Their median IoU on this question, relative the same way."""
    consensus_iou: float


@dataclass(frozen=True)
class Suspect:
    """A question whose gold looks wrong: ``kind`` ``answer`` (with a suggested letter) or
    ``mask`` (with a consensus box); ``score`` orders suspects of one kind."""

    question_id: object
    row: int
    kind: str
    score: float
    suggestion: str | tuple[float, float, float, float]
    evidence: AnswerEvidence | MaskEvidence


@dataclass(frozen=True)
class ItemAnalysis:
    """Per-question statistics in gold order, and suspects most suspect first (the two kinds'
    rankings interleaved: their scores are on different scales)."""

    questions: tuple[QuestionStats, ...]
    suspects: tuple[Suspect, ...]
    submissions: int
    abilities: np.ndarray
    """Each submission's estimated ability (2PL, all questions), in row order."""
