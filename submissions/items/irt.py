"""A two-parameter logistic (2PL) item response model in numpy, and abilities without one question.

Model: submission ``m`` answers question ``i`` right with probability ``sigmoid(a_i * theta_m + d_i)``
(discrimination ``a_i``, difficulty ``b_i = -d_i / a_i``). :func:`fit_2pl` fits abilities and item
parameters jointly (joint maximum a posteriori: Gaussian priors keep perfect and null rows
finite), alternating one vectorised Newton step for every ability and one 2x2 Newton step for
every item. Missing answers are left out of the likelihood.

:func:`loo_abilities` gives every submission's ability *without* each question in turn (an S x Q
matrix): one Newton step from the joint fit's ability on the log posterior with that question's
term removed (near the optimum the gradient is nearly zero, so the step is minus that term's
gradient over the remaining curvature; tests compare it with a refit without the question).
:func:`fit_columns` then fits an item's (or a letter's) curve against those abilities, so that a
question's own answers never inflate its discrimination (the classic "corrected item-total" rule).

Why not a library: py-irt needs PyTorch and Pyro; girth needs SciPy and fits items one at a time
in Python loops (thousands of ``fminbound`` calls for 3,178 questions); neither gives abilities
with one question left out. This is ~100 lines of array code, each step vectorised over every
submission and question: O(rounds x S x Q) time, O(S x Q) memory.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ABILITY_SD = 1.0
"""Prior of the abilities: N(0, 1); each round also rescales them to mean 0, sd 1."""
SLOPE_PRIOR = (1.0, 1.0)
"""Joint fit: discriminations ~ N(1, 1) (negative ones stay possible: a wrong key shows that way)."""
INTERCEPT_SD = 3.0
REFIT_SLOPE_SD = 2.0
"""Per-question refit against leave-one-out abilities: slopes ~ N(0, 2), no pull towards positive."""
ROUNDS = 40
TOLERANCE = 1e-3
MAX_STEP = 1.0
"""Newton steps are clipped to this (logit units): the first rounds start far from the optimum."""


@dataclass(frozen=True, eq=False)
class Fit:
    ability: np.ndarray  # (S,)
    slope: np.ndarray  # (Q,) discrimination a
    intercept: np.ndarray  # (Q,) d; difficulty b = -d / a

    def logits(self) -> np.ndarray:
        return self.ability[:, None] * self.slope[None, :] + self.intercept[None, :]


def sigmoid(z: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-z)) without overflow warnings."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 0.02, 0.98)
    return np.log(p / (1.0 - p))


def _start(right: np.ndarray, answered: np.ndarray) -> Fit:
    """Abilities from each submission's share right, items from each question's, slopes 1."""
    per_model = right.sum(axis=1) / np.maximum(answered.sum(axis=1), 1)
    per_item = right.sum(axis=0) / np.maximum(answered.sum(axis=0), 1)
    theta = _logit(per_model)
    if theta.size > 1 and theta.std() > 0:
        theta = (theta - theta.mean()) / theta.std()
    return Fit(theta, np.ones(right.shape[1]), _logit(per_item))


def _ability_step(fit: Fit, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    p = sigmoid(fit.logits())
    gradient = (w * (y - p)) @ fit.slope - fit.ability / ABILITY_SD**2
    curvature = (w * p * (1.0 - p)) @ (fit.slope**2) + 1.0 / ABILITY_SD**2
    return np.clip(gradient / curvature, -MAX_STEP, MAX_STEP)


def _newton_2x2(ga, gd, haa, had, hdd) -> tuple[np.ndarray, np.ndarray]:
    """Solve [[haa, had], [had, hdd]] @ (da, dd) = (ga, gd) for every column; steps clipped."""
    det = haa * hdd - had * had
    da = (hdd * ga - had * gd) / det
    dd = (haa * gd - had * ga) / det
    return np.clip(da, -MAX_STEP, MAX_STEP), np.clip(dd, -MAX_STEP, MAX_STEP)


def _item_step(fit: Fit, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = sigmoid(fit.logits())
    r, v = w * (y - p), w * p * (1.0 - p)
    mean_a, sd_a = SLOPE_PRIOR
    ga = fit.ability @ r - (fit.slope - mean_a) / sd_a**2
    gd = r.sum(axis=0) - fit.intercept / INTERCEPT_SD**2
    haa = (fit.ability**2) @ v + 1.0 / sd_a**2
    return _newton_2x2(ga, gd, haa, fit.ability @ v, v.sum(axis=0) + 1.0 / INTERCEPT_SD**2)


def _standardised(fit: Fit) -> Fit:
    """The same logits with abilities of mean 0 and sd 1: alternating steps drift along the
    model's scale (abilities spread, slopes shrink) for hundreds of rounds; fixing it converges."""
    if fit.ability.size < 2 or fit.ability.std() == 0:
        return fit
    mean, sd = fit.ability.mean(), fit.ability.std()
    return Fit((fit.ability - mean) / sd, fit.slope * sd, fit.intercept + fit.slope * mean)


def fit_2pl(right: np.ndarray, answered: np.ndarray, rounds: int = ROUNDS) -> Fit:
    """Joint MAP fit of a 2PL model to S x Q 0/1 ``right`` where ``answered`` (S x Q booleans)."""
    w = answered.astype(np.float64)
    y = right.astype(np.float64) * w
    fit = _start(y, w)
    for _ in range(rounds):
        step = _ability_step(fit, y, w)
        moved = _standardised(Fit(fit.ability + step, fit.slope, fit.intercept))
        da, dd = _item_step(moved, y, w)
        moved = Fit(moved.ability, moved.slope + da, moved.intercept + dd)
        change = max(
            _largest(moved.ability - fit.ability),
            _largest(moved.slope - fit.slope),
            _largest(moved.intercept - fit.intercept),
        )
        fit = moved
        if change < TOLERANCE:
            break
    return fit


def _largest(v: np.ndarray) -> float:
    return float(np.abs(v).max(initial=0.0))


def loo_abilities(fit: Fit, right: np.ndarray, answered: np.ndarray) -> np.ndarray:
    """S x Q: each submission's ability estimated without question ``i`` (column ``i``): one
    Newton step, from the joint fit's ability, on the log posterior without that question's term."""
    w = answered.astype(np.float64)
    p = sigmoid(fit.logits())
    own = w * fit.slope * (right * w - p)  # each question's term of the gradient
    gradient = own.sum(axis=1, keepdims=True) - fit.ability[:, None] / ABILITY_SD**2
    info = w * p * (1.0 - p) * fit.slope**2
    curvature = info.sum(axis=1, keepdims=True) + 1.0 / ABILITY_SD**2 - info
    return fit.ability[:, None] + (gradient - own) / curvature


def fit_columns(x: np.ndarray, y: np.ndarray, w: np.ndarray, iterations: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """MAP (slope, intercept) of ``P(y) = sigmoid(slope * x + intercept)`` for every column of
    the S x C arrays, weights ``w`` (0 leaves an entry out); priors N(0, REFIT_SLOPE_SD) and
    N(0, INTERCEPT_SD), so a negative slope is as likely as a positive one."""
    n = np.maximum(w.sum(axis=0), 1.0)
    a, d = np.zeros(x.shape[1]), _logit((y * w).sum(axis=0) / n)
    pa, pd = 1.0 / REFIT_SLOPE_SD**2, 1.0 / INTERCEPT_SD**2
    for _ in range(iterations):
        p = sigmoid(x * a + d)
        r, v = w * (y - p), w * p * (1.0 - p)
        xv = x * v
        ga, gd = (x * r).sum(axis=0) - a * pa, r.sum(axis=0) - d * pd
        da, dd = _newton_2x2(ga, gd, (x * xv).sum(axis=0) + pa, xv.sum(axis=0), v.sum(axis=0) + pd)
        a, d = a + da, d + dd
    return a, d


def signed_association(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per column, the score-test statistic of a slope in a logistic regression of 0/1 ``y`` on
    ``x`` (weights ``w``): ``sqrt(n) * corr(x, y)``, in standard errors; 0 where ``y`` or ``x`` is
    constant. Positive when the higher ``x`` (the abler submission) chooses ``y`` more often."""
    n = w.sum(axis=0)
    safe = np.maximum(n, 1.0)
    mx = (w * x).sum(axis=0) / safe
    my = (w * y).sum(axis=0) / safe
    xc = (x - mx) * w
    cov = (xc * (y - my)).sum(axis=0)
    vx = (xc * (x - mx)).sum(axis=0)
    vy = my * (1.0 - my) * n
    denom = np.sqrt(vx * vy)
    z = np.zeros_like(cov)
    np.divide(cov * np.sqrt(n), denom, out=z, where=denom > 1e-12)
    return z
