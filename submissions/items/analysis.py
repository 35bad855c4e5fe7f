"""The item analysis in one call, and its JSON form (what ``python -m leaderboard items --json``
prints): pure, no I/O; run where the scoring worker runs, never in a request."""

from __future__ import annotations

import math
from itertools import zip_longest

import numpy as np

from submissions.items import grounding, letters
from submissions.items.irt import Fit, fit_2pl, fit_columns, loo_abilities
from submissions.items.records import (
    Grounding,
    ItemAnalysis,
    ItemGold,
    MaskEvidence,
    QuestionStats,
    Responses,
    Suspect,
)

DIFFICULTY_LIMIT = 6.0
"""Difficulty is clipped to +-this: with a discrimination near 0 it means nothing beyond."""


def _item_curves(fit: Fit, loo: np.ndarray, right: np.ndarray, answered: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(difficulty, discrimination) of every question against the abilities without it."""
    w = answered.astype(np.float64)
    slope, intercept = fit_columns(loo, right * w, w)
    with np.errstate(divide="ignore", invalid="ignore"):
        difficulty = np.where(np.abs(slope) > 1e-9, -intercept / slope, np.sign(-intercept) * DIFFICULTY_LIMIT)
    return np.clip(np.nan_to_num(difficulty, nan=0.0), -DIFFICULTY_LIMIT, DIFFICULTY_LIMIT), slope


def _finite(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def _grounding_record(table: grounding.GroundingTable, row: int) -> Grounding:
    consensus = table.consensus[row]
    return Grounding(
        boxes=int(table.boxes[row]),
        iou_quartiles=tuple(float(v) for v in table.quartiles[row]) if table.boxes[row] else None,
        hit50=_finite(table.hit50[row]),
        agreement=_finite(table.agreement[row]),
        consensus=tuple(float(v) for v in consensus) if np.isfinite(consensus).all() else None,
        consensus_iou=_finite(table.consensus_iou[row]),
    )


def _question(gold: ItemGold, row: int, counts: np.ndarray, curves, table) -> QuestionStats:
    n, right = int(counts[:, row].sum()), int(counts[gold.answers[row], row])
    wrong = n - right
    shares = {
        letter: counts[k, row] / wrong for k, letter in enumerate(gold.choices) if k != gold.answers[row] and wrong
    }
    return QuestionStats(
        question_id=gold.question_ids[row],
        n=n,
        share_right=right / n if n else None,
        difficulty=float(curves[0][row]) if n else None,
        discrimination=float(curves[1][row]) if n else None,
        letter_counts=tuple(int(c) for c in counts[:, row]),
        wrong_shares={k: float(v) for k, v in shares.items()},
        grounding=None if table is None else _grounding_record(table, row),
    )


def _mask_suspect(gold: ItemGold, table: grounding.GroundingTable, row: int, score: float) -> Suspect:
    evidence = MaskEvidence(
        able=int(table.able[row]),
        against=int(table.against[row]),
        agreement=float(table.agreement[row]),
        usual_iou=float(table.usual[row]),
        relative_iou=float(table.relative[row]),
        consensus_iou=float(np.nan_to_num(table.consensus_iou[row])),
    )
    box = tuple(float(v) for v in table.consensus[row])
    return Suspect(gold.question_ids[row], row, "mask", score, box, evidence)


def _interleave(*rankings: list[Suspect]) -> tuple[Suspect, ...]:
    """Each kind ranked by its own score, then taken in turns: the first of each kind, the second..."""
    ordered = [sorted(r, key=lambda s: (-s.score, s.row)) for r in rankings]
    return tuple(s for group in zip_longest(*ordered) for s in group if s is not None)


def analyse(
    gold: ItemGold,
    responses: Responses,
    max_boxes: int = grounding.MAX_BOXES,
    answer_min_score: float = letters.ANSWER_MIN_SCORE,
    mask_min_score: float = grounding.MASK_MIN_SCORE,
) -> ItemAnalysis:
    """Item statistics of every question and the ranked suspects (docs/items.md).

    Time O(S x Q x K) for the answers plus O(Q x max_boxes x box width) for the boxes; memory
    O(S x Q) floats plus O(Q x max_boxes) (S submissions, Q questions, K letters).
    """
    responses.check(gold)
    choices = np.asarray(responses.choices, dtype=np.int64)
    answered = choices >= 0
    right = (choices == gold.answers[None, :]).astype(np.float64)
    fit = fit_2pl(right, answered)
    loo = loo_abilities(fit, right, answered)
    curves = _item_curves(fit, loo, right, answered)
    table = letters.letter_table(choices, right, loo, len(gold.choices))
    bands = letters.ability_bands(fit.ability)
    answer = [
        Suspect(
            gold.question_ids[row], row, "answer", score, gold.choices[letter],
            letters.answer_evidence(choices, table, gold.answers, bands, row, letter, gold.choices),
        )
        for row, letter, score in letters.answer_candidates(choices, table, gold.answers, bands, answer_min_score)
    ]  # fmt: skip
    boxes, masks = [], None
    if responses.boxes is not None and gold.masks is not None and choices.shape[0]:
        slots = grounding.pickers(choices, gold.answers, responses.boxes, fit.ability, min(max_boxes, choices.shape[0]))
        masks = grounding.grounding_table(gold.masks, slots, choices.shape[0])
        wrong_image = {s.row for s in answer}  # its boxes were read on an image that is likely not the right one
        candidates = grounding.mask_candidates(masks, mask_min_score)
        boxes = [_mask_suspect(gold, masks, row, s) for row, s in candidates if row not in wrong_image]
    questions = tuple(_question(gold, row, table.counts, curves, masks) for row in range(gold.size))
    return ItemAnalysis(questions, _interleave(answer, boxes), choices.shape[0], fit.ability)
