"""Item analysis against planted gold errors: the kept simulation of issue 43 (docs/items.md).

Plants ``answer`` errors in the K-Viscuit gold and ``answer`` and ``mask`` errors in the SCB
development gold, lets ~20 simulated models of spread ability answer relative to the TRUE gold,
and runs :func:`submissions.items.analyse` on the planted (corrupted) gold only. Reports, per
kind and over several seeds (mean and minimum), precision at k and recall at k (k = planted of
that kind; with k equal to the planted count the two are the same number), the precision and
recall of the whole listed suspects, and how many attractive-distractor items (answer) and
hard-to-ground items (mask) rank among the top k (they must not).

    SHARED_DATA_DIR=../shared/data .venv/bin/python perf/items_simulation.py            # 5 seeds
    SHARED_DATA_DIR=../shared/data .venv/bin/python perf/items_simulation.py --first-seed 100  # held out
    SHARED_DATA_DIR=../shared/data .venv/bin/python perf/items_simulation.py --lures any
    SHARED_DATA_DIR=../shared/data .venv/bin/python perf/items_simulation.py --timing 200 500
    .venv/bin/python perf/items_simulation.py --demo-job      # the background job on the demo's SCB board

The simulation, fixed before any result was looked at and the same for every seed:

- models: abilities evenly spread over [-2, 2] (plus noise); a model knows an item with the 2PL
  probability ``sigmoid(a_i (theta - b_i))`` (b_i ~ N(0, 1), SCB N(0.3, 1); a_i ~ lognormal),
  otherwise it guesses; 2 % of answers are missing;
- attractive distractors: on 10 % of the items, a guess picks one wrong letter with weight 6 of 9
  (so the weak, who guess most, are drawn to it, and the able are still right);
- boxes (SCB): on the true object's bounding box, each corner moved by normal noise of a
  model-dependent size (the abler, the smaller) times an item-dependent hardness (lognormal, so a
  few items scatter every model's boxes); 4 models carry a systematic offset of 15-30 % of the
  box, 2 models give no boxes, each model puts some boxes on a random place (the weaker, the more);
- planted errors (disjoint from each other and from the distractor items): 5 % of K-Viscuit's
  questions and 3 % of SCB's get an ``answer`` error (the gold letter replaced by another at
  random); 3 % of SCB's get a ``mask`` error (the gold region moved by its own width or height plus
  10 %, to where it does not overlap the true object: questions whose region fits nowhere so are
  not eligible).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring.benchmarks.kviscuit import declaration as kviscuit  # noqa: E402
from scoring.benchmarks.scb import declaration as scb  # noqa: E402
from scoring.geometry import MaskTable, Runs  # noqa: E402
from submissions.items import ItemGold, Responses, analyse  # noqa: E402
from submissions.items.grounding import mask_extents  # noqa: E402
from submissions.items.irt import sigmoid  # noqa: E402

SHARED = Path(os.environ.get("SHARED_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data"))
KVISCUIT_GOLD = SHARED / "k-viscuit" / "annotations.jsonl"
SCB_GOLD = SHARED / "scb-synthetic" / "gold.jsonl"
MODELS = 20
LURE_SHARE = 0.10
LURE_WEIGHT = 6.0
MISSING = 0.02
NO_BOX = 0.03
OFFSET_MODELS = 4
BOXLESS_MODELS = 2


@dataclass(frozen=True)
class Models:
    ability: np.ndarray
    noise: np.ndarray  # box corner noise, share of the box size
    offset: np.ndarray  # (S, 2) systematic shift, share of the box size
    grounds: np.ndarray  # gives boxes at all
    stray: np.ndarray  # chance a box lands on a random place


@dataclass(frozen=True)
class Items:
    truth: np.ndarray
    slope: np.ndarray
    difficulty: np.ndarray
    lure: np.ndarray  # the attractive distractor's letter, -1 for none
    hardness: np.ndarray  # multiplies box noise


@dataclass(frozen=True)
class Case:
    """One simulated board: the planted gold the analysis sees and what was planted where."""

    gold: ItemGold
    responses: Responses
    planted: dict[str, np.ndarray]  # kind -> rows
    lures: np.ndarray
    hard: np.ndarray  # the hardest tenth of items to ground


def simulated_models(rng: np.random.Generator, n: int) -> Models:
    ability = np.linspace(-2.0, 2.0, n) + rng.normal(0.0, 0.15, n)
    weak = 1.0 - (np.argsort(np.argsort(ability)) / max(n - 1, 1))  # 0 for the ablest, 1 for the weakest
    offset = np.zeros((n, 2))
    shifted = rng.choice(n, OFFSET_MODELS, replace=False)
    offset[shifted] = rng.choice([-1.0, 1.0], (OFFSET_MODELS, 2)) * rng.uniform(0.15, 0.30, (OFFSET_MODELS, 2))
    grounds = np.ones(n, dtype=bool)
    grounds[rng.choice(n, BOXLESS_MODELS, replace=False)] = False
    noise = (0.04 + 0.20 * weak) * rng.uniform(0.8, 1.2, n)
    return Models(ability, noise, offset, grounds, 0.02 + 0.25 * weak)


def simulated_items(rng: np.random.Generator, truth: np.ndarray, k: int, shift: float, lures: str = "known") -> Items:
    """Items of varied difficulty; a tenth with an attractive distractor. ``lures`` "known": those
    draw the weak but the able still know them (difficulty uniform in [-1, 0]: the top third of
    the models knows them at least 2 times in 3), the case that must not be flagged; "any": their
    difficulty is drawn like every other item's, so on the hardest the able fall for the lure too."""
    q = truth.size
    lure = np.full(q, -1)
    lured = rng.random(q) < LURE_SHARE
    lure[lured] = (truth[lured] + rng.integers(1, k, lured.sum())) % k
    difficulty = rng.normal(shift, 1.0, q)
    known = rng.uniform(-1.0, 0.0, q)
    if lures == "known":
        difficulty = np.where(lured, known, difficulty)
    return Items(
        truth=truth,
        slope=rng.lognormal(0.2, 0.3, q),
        difficulty=difficulty,
        lure=lure,
        hardness=rng.lognormal(0.0, 0.5, q),
    )


def answers(rng: np.random.Generator, models: Models, items: Items, k: int) -> np.ndarray:
    """S x Q letter indices: the true letter when the model knows, else a (lured) guess."""
    know = rng.random((models.ability.size, items.truth.size)) < sigmoid(
        items.slope * (models.ability[:, None] - items.difficulty)
    )
    weights = np.ones((items.truth.size, k))
    lured = np.flatnonzero(items.lure >= 0)
    weights[lured, items.lure[lured]] = LURE_WEIGHT
    cumulative = np.cumsum(weights / weights.sum(axis=1, keepdims=True), axis=1)
    guess = (rng.random((*know.shape, 1)) > cumulative[None]).sum(axis=2)
    choices = np.where(know, items.truth[None, :], np.minimum(guess, k - 1))
    choices[rng.random(choices.shape) < MISSING] = -1
    return choices.astype(np.int8)


def boxes(rng: np.random.Generator, models: Models, items: Items, extents: np.ndarray, sizes: np.ndarray, choices):
    """S x Q x 4 boxes: near the true object for a model that chose the true image, anywhere else."""
    s, q = choices.shape
    x0, y0, x1, y1 = extents.T
    span = np.stack([x1 - x0, y1 - y0, x1 - x0, y1 - y0], axis=1)
    scale = models.noise[:, None, None] * items.hardness[None, :, None]
    shift = np.concatenate([models.offset, models.offset], axis=1)[:, None, :] * span[None]
    near = extents[None] + rng.normal(0.0, 1.0, (s, q, 4)) * scale * span[None] + shift
    size = np.stack([sizes[:, 0], sizes[:, 1], sizes[:, 0], sizes[:, 1]], axis=1)
    corner = rng.uniform(0.0, 1.0, (s, q, 2)) * (size[None, :, :2] - span[None, :, :2])
    anywhere = np.concatenate([corner, corner + span[None, :, :2]], axis=2)
    stray = rng.random((s, q)) < models.stray[:, None]
    on_truth = (choices == items.truth[None, :]) & ~stray
    out = np.where(on_truth[..., None], near, anywhere)
    out = np.clip(out, 0.0, size[None])
    out[..., 2:] = np.maximum(out[..., 2:], out[..., :2] + 1.0)
    none = (choices < 0) | ~models.grounds[:, None] | (rng.random((s, q)) < NO_BOX)
    out[none] = np.nan
    return out


def plant_answers(rng: np.random.Generator, truth: np.ndarray, eligible: np.ndarray, n: int, k: int):
    rows = np.sort(rng.choice(eligible, n, replace=False))
    planted = truth.copy()
    planted[rows] = (truth[rows] + rng.integers(1, k, n)) % k
    return planted, rows


def _moves(extent: np.ndarray, width: int, height: int) -> list[tuple[int, int]]:
    """Shifts that put the region's bounding box clear of itself and still inside the image."""
    x0, y0, x1, y1 = extent
    dx, dy = int(np.ceil(1.1 * (x1 - x0))), int(np.ceil(1.1 * (y1 - y0)))
    out = []
    if x1 + dx <= width:
        out.append((dx, 0))
    if x0 - dx >= 0:
        out.append((-dx, 0))
    if y1 + dy <= height:
        out.append((0, dy))
    if y0 - dy >= 0:
        out.append((0, -dy))
    return out


def moved(mask: Runs, dx: int, dy: int) -> Runs:
    """The same region moved by whole pixels (every run lies within one column: MaskTable rows)."""
    h = mask.height
    column, top = mask.starts // h + dx, mask.starts % h + dy
    starts = column * h + top
    before = np.concatenate(([0], np.cumsum(mask.lengths)[:-1])) if mask.lengths.size else mask.lengths
    return Runs(h, mask.width, starts, mask.lengths.copy(), before)


def plant_masks(rng: np.random.Generator, masks: MaskTable, taken: np.ndarray, n: int) -> tuple[MaskTable, np.ndarray]:
    extents, _ = mask_extents(masks)
    busy = set(taken.tolist())
    options = {
        row: _moves(extents[row], int(masks.widths[row]), int(masks.heights[row]))
        for row in range(len(masks))
        if row not in busy
    }
    eligible = np.array(sorted(row for row, moves in options.items() if moves))
    rows = np.sort(rng.choice(eligible, n, replace=False))
    chosen = {int(row): options[int(row)][rng.integers(len(options[int(row)]))] for row in rows}
    table = MaskTable.of(moved(masks[i], *chosen[i]) if i in chosen else masks[i] for i in range(len(masks)))
    return table, rows


def kviscuit_case(gold, seed: int, models: int = MODELS, share: float = 0.05, lures: str = "known") -> Case:
    rng = np.random.default_rng(seed)
    truth = gold.answers.astype(np.int64)
    items = simulated_items(rng, truth, 4, 0.0, lures)
    choices = answers(rng, simulated_models(rng, models), items, 4)
    planted, rows = plant_answers(rng, truth, np.flatnonzero(items.lure < 0), round(share * truth.size), 4)
    seen = ItemGold(gold.keys, kviscuit.CHOICES, planted)
    return Case(seen, Responses(choices), {"answer": rows}, np.flatnonzero(items.lure >= 0), np.array([], int))


def scb_case(gold, seed: int, models: int = MODELS, share: float = 0.03, lures: str = "known") -> Case:
    rng = np.random.default_rng(seed)
    truth = gold.answers.astype(np.int64)
    masks: MaskTable = gold.extra["masks"]
    items = simulated_items(rng, truth, 4, 0.3, lures)
    crowd = simulated_models(rng, models)
    choices = answers(rng, crowd, items, 4)
    extents, _ = mask_extents(masks)
    sizes = np.stack([masks.widths, masks.heights], axis=1).astype(np.float64)
    given = boxes(rng, crowd, items, extents, sizes, choices)
    n = round(share * truth.size)
    planted, answer_rows = plant_answers(rng, truth, np.flatnonzero(items.lure < 0), n, 4)
    seen_masks, mask_rows = plant_masks(rng, masks, np.union1d(answer_rows, np.flatnonzero(items.lure >= 0)), n)
    hard = np.setdiff1d(np.argsort(-items.hardness)[: max(1, truth.size // 10)], mask_rows)
    seen = ItemGold(gold.keys, scb.CHOICES, planted, seen_masks)
    planted_rows = {"answer": answer_rows, "mask": mask_rows}
    return Case(seen, Responses(choices, given), planted_rows, np.flatnonzero(items.lure >= 0), hard)


def scores(case: Case) -> dict[str, dict[str, float]]:
    """Per planted kind: precision/recall at k, of the whole list, and controls in the top k."""
    result = analyse(case.gold, case.responses)
    out = {}
    for kind, rows in case.planted.items():
        ranked = [s.row for s in sorted((s for s in result.suspects if s.kind == kind), key=lambda s: -s.score)]
        k, planted = rows.size, set(rows.tolist())
        top, hits = ranked[:k], len(set(ranked[:k]) & planted)
        control = case.lures if kind == "answer" else case.hard
        out[kind] = {
            "k": k,
            "precision_at_k": hits / k,
            "recall_at_k": hits / len(planted),
            "listed": len(ranked),
            "list_precision": len(set(ranked) & planted) / len(ranked) if ranked else 0.0,
            "list_recall": len(set(ranked) & planted) / len(planted),
            "controls_in_top_k": len(set(top) & set(control.tolist())),
            "controls_listed": len(set(ranked) & set(control.tolist())),
        }
    return out


def subset_gold(path: Path, questions: int | None, folder: Path) -> Path:
    """The first ``questions`` records of a gold file (all of it for None)."""
    if questions is None:
        return path
    lines = path.read_text().splitlines()[:questions]
    out = folder / path.name
    out.write_text("\n".join(lines) + "\n")
    return out


def run(seeds: list[int], scb_questions: int | None = None, models: int = MODELS, lures: str = "known") -> dict:
    """Every seed's scores for both benchmarks (the test runs a small instance of this)."""
    with tempfile.TemporaryDirectory() as tmp:
        scb_gold = scb.load_gold(subset_gold(SCB_GOLD, scb_questions, Path(tmp)))
    kv_gold = kviscuit.load_gold(KVISCUIT_GOLD)
    out = {}
    for seed in seeds:
        out[seed] = {
            "kviscuit": scores(kviscuit_case(kv_gold, seed, models, lures=lures)),
            "scb": scores(scb_case(scb_gold, seed, models, lures=lures)),
        }
    return out


def summary(per_seed: dict) -> dict:
    """Mean and minimum over seeds of each figure, per benchmark and kind (max for controls)."""
    out: dict = {}
    for figures in per_seed.values():
        for bench, kinds in figures.items():
            for kind, values in kinds.items():
                for name, value in values.items():
                    out.setdefault(f"{bench}/{kind}", {}).setdefault(name, []).append(value)
    return {
        key: {
            name: {"mean": float(np.mean(v)), "min": float(np.min(v)), "max": float(np.max(v))}
            for name, v in values.items()
        }
        for key, values in out.items()
    }


def timing(submissions: list[int], seed: int = 0, repeats: int = 3) -> list[dict]:
    """CPU seconds (median of ``repeats``) and traced peak memory (one more run) of analyse() on
    the full SCB gold x N simulated submissions, answers alone and answers with boxes."""
    gold = scb.load_gold(SCB_GOLD)
    out = []
    for n in submissions:
        case = scb_case(gold, seed, models=n)
        for label, c in (("answers only", replace(case, responses=Responses(case.responses.choices))), ("all", case)):
            cpu = []
            for _ in range(repeats):
                start = time.process_time()
                analyse(c.gold, c.responses)
                cpu.append(time.process_time() - start)
            tracemalloc.start()
            analyse(c.gold, c.responses)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            row = {"submissions": n, "questions": gold.size, "part": label, "cpu_s": round(float(np.median(cpu)), 2)}
            out.append(row | {"peak_mb": round(peak / 2**20, 1)})
    return out


def demo_job(repeats: int = 3) -> dict:
    """The background job as the app runs it (leaderboard.items.ItemAnalyses.compute) on the demo's
    largest board (SCB), in a one-worker scoring pool with the app's default bounds: the job's CPU
    seconds in the worker (median of ``repeats``) and the web process's CPU for reading the
    submissions' stored readings and handing them over."""

    from leaderboard.config import Settings
    from leaderboard.service import Leaderboard
    from submissions.job_bounds import JobBounds

    with tempfile.TemporaryDirectory() as tmp:
        lb = Leaderboard(Settings(data_dir=Path(tmp) / "data"))
        lb.seed_demo()
        pool = lb.use_scoring_pool(1, JobBounds())
        try:
            lb.items.compute("scb")  # the worker spawns and loads the gold once: not the job's cost
            worker, parent = [], []
            for _ in range(repeats):
                start = time.process_time()
                record = lb.items.compute("scb")
                parent.append(time.process_time() - start)
                worker.append(record.cpu_seconds)
        finally:
            pool.close()
    return {
        "benchmark": "scb",
        "submissions": record.submissions,
        "questions": len(record.questions),
        "job_cpu_s": round(float(np.median(worker)), 3),
        "web_process_cpu_s": round(float(np.median(parent)), 3),
        "bounds": f"{JobBounds().seconds:.0f} s, {JobBounds().memory_mb} MB",
    }


def _print_summary(table: dict, seeds: list[int]) -> None:
    print(f"seeds {seeds[0]}..{seeds[-1]} ({len(seeds)}), {MODELS} models; mean / min over seeds")
    for key, figures in table.items():
        p, lp, lr = figures["precision_at_k"], figures["list_precision"], figures["list_recall"]
        control = figures["controls_in_top_k"]
        print(
            f"{key:16} k={figures['k']['mean']:.0f}  precision@k = recall@k {p['mean']:.3f} / {p['min']:.3f}  "
            f"list precision {lp['mean']:.3f} / {lp['min']:.3f}  list recall {lr['mean']:.3f} / {lr['min']:.3f}  "
            f"controls in top k: max {control['max']:.0f}, listed: max {figures['controls_listed']['max']:.0f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="how many seeds (default 5)")
    parser.add_argument("--first-seed", type=int, default=0, help="the first seed (default 0)")
    parser.add_argument("--scb-questions", type=int, help="the first N SCB questions only (default: all)")
    parser.add_argument("--timing", type=int, nargs="*", help="measure analyse() on SCB x these many submissions")
    parser.add_argument("--lures", choices=("known", "any"), default="known", help="attractive distractors' items")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--demo-job", action="store_true", help="CPU of the background job on the demo's SCB board")
    args = parser.parse_args(argv)
    if args.demo_job:
        print(json.dumps(demo_job(), indent=1))
        return 0
    if args.timing:
        rows = timing(args.timing)
        print(json.dumps(rows, indent=1) if args.json else "\n".join(map(str, rows)))
        print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB (whole process)")
        return 0
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    table = summary(run(seeds, args.scb_questions, lures=args.lures))
    if args.json:
        print(json.dumps(table, indent=1))
    else:
        _print_summary(table, seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
