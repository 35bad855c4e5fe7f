"""A synthetic "real model" and an honest team's ablations of it, for the probe detector's tests
and perf/probe_attack.py.

A model has an ability per question (some questions are easy for every model, some hard) and a
letter bias; a variant (another prompt, checkpoint or temperature) redraws its answer on a share
of the questions, more often on the hard ones, as real variants disagree mostly where they are
unsure. Answers are letter indexes (-1 missing), one per gold row.
"""

from __future__ import annotations

import numpy as np


def honest_model(answers: np.ndarray, choices: int, accuracy: float, rng: np.random.Generator) -> np.ndarray:
    """Answers right with a per-question probability around ``accuracy`` (Beta-spread
    difficulty), wrong ones biased towards one letter."""
    n = answers.size
    ability = rng.beta(4 * accuracy, 4 * (1 - accuracy), size=n)
    right = rng.random(n) < ability
    bias = rng.dirichlet(np.full(choices, 2.0))
    wrong = rng.choice(choices, size=n, p=bias)
    wrong = np.where(wrong == answers, (wrong + 1 + rng.integers(0, choices - 1, n)) % choices, wrong)
    return np.where(right, answers, wrong).astype(np.int8)


def ablation(base: np.ndarray, answers: np.ndarray, choices: int, share: float, rng: np.random.Generator) -> np.ndarray:
    """A variant answering ``share`` of the questions differently from ``base``: the changed
    questions are drawn with weight on those ``base`` gets wrong (where a model is unsure), and
    each gets a new letter, right about as often as chance plus a little skill."""
    n = base.size
    weight = np.where(base == answers, 1.0, 3.0)
    changed = rng.choice(n, size=max(1, round(share * n)), replace=False, p=weight / weight.sum())
    variant = base.copy()
    for q in changed:
        others = [c for c in range(choices) if c != base[q]]
        right_first = answers[q] in others and rng.random() < 0.4
        variant[q] = answers[q] if right_first else rng.choice(others)
    return variant
