"""An honest-iteration corpus on the small SCB gold: what real teams send while they work, which
the probe detector must never hold (issue 19) and the Ladder must answer fairly.

Each series is a list of (submitter, team, model, lines) in submission order:

- ``grounding``: one team, the same answers, boxes redrawn by a grounding-prompt ablation
  (each file moves every box: shrunk, grown, shifted) -- "differs in 0 answers", many boxes;
- ``refusals``: prompt variants of an API model that refuses about 7 % of the questions, some
  in raw ``response`` text the reader cannot map to a letter ("I'm not able to determine..."),
  others "Image C"-style lines;
- ``checkpoints``: checkpoints of one model, each a few percent of the answers away from the
  one before (an honest training run), with boxes;
- ``same_model``: a few teams sending the same open model's greedy answers (identical answers,
  each team its own boxes from its own harness), and one run of the same model whose sampling
  changed a few answers.

Answers come from ``tests.support.models`` (a per-question ability and a letter bias), boxes from
the gold's polygons as a team's grounding would approximate them; the gold is used only to make
the models good or bad, as in the reviews.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from scoring import get_benchmark
from scoring.benchmarks.scb.demo import gold_bbox
from tests.support.models import ablation, honest_model
from tests.support.submissions import small_gold

LETTERS = get_benchmark("scb").choices
REFUSALS = (
    "I'm not able to determine which image shows this with confidence.",
    "I cannot identify the cultural artifact in these images.",
    "Sorry, I can't help with identifying that.",
)
Line = dict
Series = list[tuple[str, str, str, list[Line]]]


def gold_answers() -> np.ndarray:
    return np.array([LETTERS.index(r["answer"]) for r in small_gold()], dtype=np.int8)


def boxes(rng: np.random.Generator, scale: float, shift: float = 0.0) -> list[list[float]]:
    """A grounding of every question: the gold region's bounding box, scaled about its centre
    and shifted by ``shift`` of its size, with a little noise (xyxy pixels)."""
    out = []
    for r in small_gold():
        x0, y0, x1, y1 = gold_bbox(r)
        cx, cy, w, h = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) * scale, (y1 - y0) * scale
        cx, cy = cx + shift * w + rng.normal(0, 0.01 * w), cy + shift * h + rng.normal(0, 0.01 * h)
        box = [max(0.0, cx - w / 2), max(0.0, cy - h / 2), min(r["width"], cx + w / 2), min(r["height"], cy + h / 2)]
        out.append([round(v, 1) for v in box])
    return out


def lines(letters: np.ndarray, grounding: list[list[float]] | None = None, refusals: np.ndarray | None = None,
          image_style: np.ndarray | None = None) -> list[Line]:  # fmt: skip
    """One line per question: an answer letter, or a refusal / "Image C" response where asked."""
    out = []
    for i, (r, c) in enumerate(zip(small_gold(), letters, strict=True)):
        if c < 0:
            continue
        line: Line = {"question_id": r["question_id"]}
        if refusals is not None and refusals[i]:
            line["response"] = REFUSALS[i % len(REFUSALS)]
        elif image_style is not None and image_style[i]:
            line["response"] = f"Image {LETTERS[c]}"
        else:
            line["answer"] = LETTERS[c]
        if grounding is not None:
            line["bbox"] = grounding[i]
        out.append(line)
    return out


def grounding(seed: int = 0) -> Series:
    rng = np.random.default_rng(seed)
    answers = honest_model(gold_answers(), len(LETTERS), 0.55, rng)
    steps = [(1.0, 0.0), (0.9, 0.0), (0.8, 0.05), (1.15, 0.0), (0.95, 0.1), (1.05, -0.05)]
    return [("grounder", "Honest Grounders", "G", lines(answers, boxes(rng, s, d))) for s, d in steps]


def refusals(seed: int = 0) -> Series:
    rng = np.random.default_rng(100 + seed)
    gold = gold_answers()
    base = honest_model(gold, len(LETTERS), 0.6, rng)
    out = []
    for v in range(5):
        variant = base if v == 0 else ablation(base, gold, len(LETTERS), 0.06, rng)
        refused = rng.random(gold.size) < 0.07
        image = rng.random(gold.size) < 0.15
        out.append(("openeval", "OpenEval Co", f"GPT-4.1 prompt {v}", lines(variant, boxes(rng, 1.3), refused, image)))
    return out


def checkpoints(seed: int = 0) -> Series:
    rng = np.random.default_rng(200 + seed)
    gold = gold_answers()
    current = honest_model(gold, len(LETTERS), 0.45, rng)
    out = []
    for step in range(6):
        if step:
            current = ablation(current, gold, len(LETTERS), 0.04, rng)
        out.append(("trainer", "Train Lab", f"ckpt-{step}", lines(current, boxes(rng, 1.1 - 0.03 * step))))
    return out


def same_model(seed: int = 0) -> Series:
    rng = np.random.default_rng(300 + seed)
    gold = gold_answers()
    greedy = honest_model(gold, len(LETTERS), 0.5, rng)
    out = [(f"team{t}", f"Open Team {t}", "Qwen2.5-VL-7B", lines(greedy, boxes(rng, 1.0 + 0.1 * t))) for t in range(3)]
    sampled = greedy.copy()
    sampled[rng.choice(gold.size, 2, replace=False)] = (sampled[:2] + 1) % len(LETTERS)
    out.append(("team3", "Open Team 3", "Qwen2.5-VL-7B (sampled)", lines(sampled, boxes(rng, 0.85))))
    return out


SERIES = {"grounding": grounding, "refusals": refusals, "checkpoints": checkpoints, "same_model": same_model}


def corpus(seeds: range = range(3)) -> Iterator[tuple[str, int, Series]]:
    for name, make in SERIES.items():
        for seed in seeds:
            yield name, seed, make(seed)


def write(path: Path, body: list[Line]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in body), encoding="utf-8")
    return path
