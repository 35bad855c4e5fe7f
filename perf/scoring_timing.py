"""Scoring time of a correct against a wrong heavy grounding, old rule and new, in one run.

attacks.md #11: with the old rule (overlaps computed for the correct answers only) a correct
20k-vertex polygon line cost +12 ms and a correct 3M-run mask line +35-45 ms over a wrong one,
so a file's scoring time told how many of its heavy lines were right, withheld or held files
included. The new rule (scoring.engine.overlap_rows: every grounded line, then select) costs the
same either way, and Runs.intersect searches once per gold run instead of once per submitted
run. "old" is this checkout with both set back (``old_rows``, ``old_intersect``).

    .venv/bin/python perf/scoring_timing.py            # the shared synthetic gold, else the demo gold
    .venv/bin/python perf/scoring_timing.py --repeat 9

Each file is validated once (validation never depended on the answers); ``score_predictions``
is timed ``--repeat`` times per (rule, file), interleaved, and the fastest reported, with the difference
correct - wrong. Figures go into docs/reliability.md and docs/scoring-speed.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import scoring  # noqa: E402
from scoring import engine  # noqa: E402
from scoring.geometry import Runs  # noqa: E402

SHARED_GOLD = Path(os.environ.get("SHARED_DATA_DIR", "/work/shared/data"))
CHOICES = "ABCD"


def _gold() -> scoring.Gold:
    path = SHARED_GOLD / "scb-synthetic" / "gold.jsonl"
    if not path.is_file():
        from tests.support import demo

        path = demo.write_jsonl(Path(tempfile.mkdtemp()) / "gold.jsonl", demo.scb_gold())
    print(f"gold: {path}")
    return scoring.load_gold("scb", path)


def _polygon(width: int, height: int, vertices: int) -> list[float]:
    t = np.linspace(0, 2 * np.pi, vertices, endpoint=False)
    r = 0.35 * min(width, height) * (1 + 0.05 * np.sin(40 * t))
    xs, ys = width / 2 + r * np.cos(t), height / 2 + r * np.sin(t)
    return np.stack([xs, ys], axis=1).ravel().round(2).tolist()


def _mask(width: int, height: int, runs: int) -> dict:
    """Plain RLE counts of ``runs`` foreground runs (1 px each) spread over the image."""
    total = width * height
    gap = max(1, total // runs - 1)
    counts = [gap, 1] * min(runs, total // (gap + 1))
    counts.append(total - sum(counts))
    return {"size": [height, width], "counts": counts}


def _rows(gold: scoring.Gold, count: int, min_pixels: int) -> list[int]:
    """Rows whose gold image and one decoy are both at least ``min_pixels``."""
    sizes = gold.extra["option_sizes"]
    out = []
    for row in range(gold.size):
        truth = int(gold.answers[row])
        w, h = sizes[row, truth]
        wrong = (truth + 1) % 4
        if w * h >= min_pixels and sizes[row, wrong][0] * sizes[row, wrong][1] >= min_pixels:
            out.append(row)
        if len(out) == count:
            break
    return out


def _file(gold: scoring.Gold, rows: list[int], right: bool, kind: str, amount: int) -> bytes:
    """Every question answered (right answers elsewhere); the heavy lines right or wrong."""
    sizes = gold.extra["option_sizes"]
    heavy = set(rows)
    lines = []
    for row, qid in enumerate(gold.keys):
        truth = int(gold.answers[row])
        letter = truth if (right or row not in heavy) else (truth + 1) % 4
        line: dict = {"question_id": qid, "answer": CHOICES[letter]}
        if row in heavy:
            w, h = (int(v) for v in sizes[row, letter])  # the answered option's frame
            line["polygon" if kind == "polygon" else "mask"] = (
                [_polygon(w, h, amount)] if kind == "polygon" else _mask(w, h, amount)
            )
        lines.append(json.dumps(line))
    return ("\n".join(lines) + "\n").encode()


def _times(gold: scoring.Gold, predictions: dict, rules: dict, repeat: int) -> dict:
    """Fastest of ``repeat`` runs per (rule, right), interleaved so that the load of a shared
    machine falls on every case alike."""
    times: dict = {(name, right): [] for name in rules for right in predictions}
    for _ in range(repeat):
        for name, rule in rules.items():
            for right, prediction in predictions.items():
                use(rule)
                try:
                    start = time.perf_counter()
                    engine.score_predictions("scb", gold, prediction)
                    times[name, right].append(time.perf_counter() - start)
                finally:
                    use(NEW)
    return {key: 1000 * min(values) for key, values in times.items()}


def old_rows(groundings, correct):
    """The old rule: overlaps of the correct rows only."""
    return np.flatnonzero(correct)


def old_intersect(self: Runs, other: Runs) -> int:
    """The old Runs.intersect: one search per run of the submitted mask."""
    if not self.starts.size or not other.starts.size:
        return 0
    ends = other.starts + other.lengths
    return int((self._covered_before(ends) - self._covered_before(other.starts)).sum())


OLD = {"overlap_rows": old_rows, "intersect": old_intersect}
NEW = {"overlap_rows": engine.overlap_rows, "intersect": Runs.intersect}


def use(rule: dict) -> None:
    engine.overlap_rows, Runs.intersect = rule["overlap_rows"], rule["intersect"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--lines", type=int, default=4, help="heavy lines per file")
    args = parser.parse_args()
    gold = _gold()
    limits = scoring.Limits(max_bytes=2**31, max_line_bytes=2**31)
    cases = [("polygon", 20_000, 0), ("mask", 3_000_000, 6_100_000)]
    print(f"{'grounding':<22}{'rule':<5}{'correct ms':>12}{'wrong ms':>10}{'per line':>10}")
    for kind, amount, min_pixels in cases:
        rows = _rows(gold, args.lines, min_pixels)
        if len(rows) < args.lines:
            print(f"{kind}: only {len(rows)} rows with images of {min_pixels:,} px")
        predictions = {
            right: engine.validate_file("scb", gold, _file(gold, rows, right, kind, amount), limits=limits)
            for right in (True, False)
        }
        ms = _times(gold, predictions, {"old": OLD, "new": NEW}, args.repeat)
        for name in ("old", "new"):
            label = f"{len(rows)} x {amount:,} {'vertices' if kind == 'polygon' else 'runs'}"
            diff = (ms[name, True] - ms[name, False]) / max(len(rows), 1)
            print(f"{label:<22}{name:<5}{ms[name, True]:>12.1f}{ms[name, False]:>10.1f}{diff:>+10.1f}")
        same = engine.score_predictions("scb", gold, predictions[True]).to_dict()
        use(OLD)
        try:
            assert engine.score_predictions("scb", gold, predictions[True]).to_dict() == same, "figures moved"
        finally:
            use(NEW)
    print("per line: (correct - wrong) / heavy lines, fastest of", args.repeat, "runs; figures identical old/new")


if __name__ == "__main__":
    main()
