"""The answer side: which letter each question's submissions chose, and the ``answer`` suspects.

Two figures per letter of a question, both leaving the question itself out of every ability:

- its *vote*: the accuracy-weighted votes of the submissions that chose it, each weighing
  ``log((K - 1) p / (1 - p))`` with ``p`` its share right on the other questions (clipped to
  [1/K, 0.99]: no worse than a guess, never certain). Under Dawid and Skene's one-coin model a
  letter's vote minus the gold's is the log-odds (nats) that it rather than the gold is the key.
  It sees the *level*: on an easy wrong key nearly everyone chooses the true letter.
- its *discrimination*: :func:`~submissions.items.irt.signed_association` of "chose it" with the
  abilities without the question, in standard errors. It sees the *slope*: the key of a working
  question is chosen more by the able; a distractor, however attractive, draws the weak.

A question is listed as an ``answer`` suspect, with score = vote(L) - vote(gold), when for its
best-voted other letter L (i) the score is at least :data:`ANSWER_MIN_SCORE`, (ii) L
discriminates better than the gold letter, and (iii) the top ability band chose L more often than
the gold. A hard question with an attractive distractor D collects many votes for D, but from
the weak, while its few right answers come from the able: D's discrimination is below the gold's
and the top band keeps the gold, so it is not listed (docs/items.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from submissions.items.irt import signed_association
from submissions.items.records import AnswerEvidence, Band

BANDS = ("top", "middle", "bottom")
ANSWER_MIN_SCORE = 5.0
"""A question is listed as an ``answer`` suspect from this score (nats, ~150 to 1 under the
one-coin model, whose independence overstates the odds) on."""
MAX_ACCURACY = 0.99


@dataclass(frozen=True, eq=False)
class LetterTable:
    """Per letter and question (K x Q): how many chose it, its discrimination in standard
    errors, and its accuracy-weighted vote (module doc)."""

    counts: np.ndarray
    association: np.ndarray
    votes: np.ndarray


def vote_weights(right: np.ndarray, answered: np.ndarray, k: int) -> np.ndarray:
    """S x Q: each submission's one-coin weight on each question, from its share right on the
    other questions it answered."""
    rights = right.sum(axis=1, keepdims=True) - right
    counted = answered.sum(axis=1, keepdims=True) - answered
    share = np.clip(rights / np.maximum(counted, 1), 1.0 / k, MAX_ACCURACY)
    return np.log((k - 1) * share / (1.0 - share))


def letter_table(choices: np.ndarray, right: np.ndarray, loo: np.ndarray, k: int) -> LetterTable:
    """Counts, discrimination and votes of every letter of every question (K passes over S x Q)."""
    answered = choices >= 0
    weights = vote_weights(right, answered, k) * answered
    shape = (k, choices.shape[1])
    counts, association, votes = np.empty(shape, dtype=np.int64), np.empty(shape), np.empty(shape)
    for letter in range(k):
        chose = (choices == letter).astype(np.float64)
        counts[letter] = chose.sum(axis=0)
        association[letter] = signed_association(loo, chose, answered.astype(np.float64))
        votes[letter] = (chose * weights).sum(axis=0)
    return LetterTable(counts, association, votes)


def ability_bands(ability: np.ndarray) -> np.ndarray:
    """Band index (0 top, 1 middle, 2 bottom third) of each submission by ability."""
    order = np.argsort(-ability, kind="stable")
    bands = np.empty(ability.size, dtype=np.int64)
    bands[order] = np.minimum(np.arange(ability.size) * len(BANDS) // max(ability.size, 1), len(BANDS) - 1)
    return bands


def _rivals(table: LetterTable, gold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per question, the best-voted other letter and its vote minus the gold letter's."""
    cols = np.arange(gold.size)
    others = table.votes.copy()
    others[gold, cols] = -np.inf
    rival = others.argmax(axis=0)
    return rival, others[rival, cols] - table.votes[gold, cols]


def _band_counts(choices: np.ndarray, bands: np.ndarray, band: int, rows: np.ndarray, letters: np.ndarray):
    """How many of ``band`` chose ``letters[j]`` on question ``rows[j]``."""
    inside = choices[bands == band][:, rows]
    return (inside == letters[None, :]).sum(axis=0)


def answer_candidates(
    choices: np.ndarray, table: LetterTable, gold: np.ndarray, bands: np.ndarray, min_score: float
) -> list[tuple[int, int, float]]:
    """(question row, suggested letter, score) of every listed ``answer`` suspect (module doc)."""
    rival, score = _rivals(table, gold)
    rows = np.flatnonzero(score >= min_score)
    better = table.association[rival[rows], rows] > table.association[gold[rows], rows]
    top_rival = _band_counts(choices, bands, 0, rows, rival[rows])
    top_gold = _band_counts(choices, bands, 0, rows, gold[rows])
    keep = better & (top_rival > top_gold)
    return [(int(r), int(rival[r]), float(score[r])) for r in rows[keep]]


def answer_evidence(
    choices: np.ndarray, table: LetterTable, gold: np.ndarray, bands: np.ndarray, row: int, letter: int, names: str
) -> AnswerEvidence:
    """The evidence shown beside one suspect: each band's answers to the gold and suggested letter."""
    column = choices[:, row]
    out = []
    for index, name in enumerate(BANDS):
        mine = column[bands == index]
        answered = mine[mine >= 0]
        chose_gold, chose_letter = int((answered == gold[row]).sum()), int((answered == letter).sum())
        out.append(Band(name, mine.size, answered.size, chose_gold, chose_letter))
    return AnswerEvidence(
        gold=names[gold[row]],
        suggestion_discrimination=float(table.association[letter, row]),
        gold_discrimination=float(table.association[gold[row], row]),
        bands=tuple(out),
    )
