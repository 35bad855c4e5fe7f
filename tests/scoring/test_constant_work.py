"""Scoring does the same geometry work whether answers are right or wrong (attacks.md #11): a
heavy correct grounding used to cost +12..45 ms and a wrong one nothing, even for withheld or
held files. Every grounded line is now rasterised and intersected against the gold mask, then
only the correct lines' overlaps are kept. This pins the work (geometry evaluations, the
vertices rasterised, the mask runs intersected, the boxes overlapped), not wall time: time is
measured by perf/scoring_timing.py."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

import scoring
from scoring.benchmarks.scb import declaration as scb
from scoring.geometry import MaskTable, Runs
from tests.support.scoring import compile_gold, rect_polygon, scb_record, with_options

W, H = 300, 200
N = 12


@pytest.fixture(scope="module")
def gold(tmp_path_factory) -> scoring.Gold:
    records = [
        scb_record(f"q{i:02d}", "ABCD"[i % 4], W, H, [rect_polygon(20 + i, 20, 150 + i, 120)], type=1 + i % 3)
        for i in range(N)
    ]
    return compile_gold("scb", tmp_path_factory.mktemp("work") / "gold.jsonl", with_options(records, same_size=1.0))


def _polygon(i: int) -> list[float]:
    t = np.linspace(0, 2 * np.pi, 400, endpoint=False)
    xs, ys = 100 + 60 * np.cos(t) + i, 100 + 60 * np.sin(t)
    return np.stack([xs, ys], axis=1).ravel().round(2).tolist()


def _mask() -> dict:
    counts = [0] + [7, 3] * (W * H // 10)  # many runs: a heavy mask
    return {"size": [H, W], "counts": counts}


def _lines(gold: scoring.Gold, right: bool, kind: str) -> bytes:
    lines = []
    for row, qid in enumerate(gold.keys):
        truth = int(gold.answers[row])
        letter = "ABCD"[truth if right else (truth + 1) % 4]
        line = {"question_id": qid, "answer": letter}
        grounding = kind if kind != "mixed" else ("polygon", "mask", "bbox")[row % 3]
        if grounding == "polygon":
            line["polygon"] = [_polygon(row)]
        elif grounding == "mask":
            line["mask"] = _mask()
        elif grounding == "bbox":
            line["bbox"] = [10 + row, 15, 200, 150]
        lines.append(json.dumps(line))
    return ("\n".join(lines) + "\n").encode()


class Work:
    """Counts the geometry the scorer does, by kind."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count: Counter[str] = Counter()
        one, rle, intersect, boxes = scb.intersection_and_union, scb.coco_rle, Runs.intersect, MaskTable.box_overlaps

        def counted_one(grounding, gold, row):
            self.count["evaluations"] += grounding is not None
            return one(grounding, gold, row)

        def counted_rle(parts, height, width):
            self.count["vertices"] += sum(len(p) // 2 for p in parts)
            return rle(parts, height, width)

        def counted_intersect(runs, other):
            self.count["mask runs"] += other.starts.size
            return intersect(runs, other)

        def counted_boxes(table, rows, corners):
            self.count["boxes"] += len(rows)
            return boxes(table, rows, corners)

        monkeypatch.setattr(scb, "intersection_and_union", counted_one)
        monkeypatch.setattr(scb, "coco_rle", counted_rle)
        monkeypatch.setattr(Runs, "intersect", counted_intersect)
        monkeypatch.setattr(MaskTable, "box_overlaps", counted_boxes)


@pytest.mark.parametrize("kind", ["polygon", "mask", "bbox", "mixed"])
def test_the_geometry_work_does_not_depend_on_which_answers_are_right(gold, monkeypatch, kind):
    done = {}
    results = {}
    for right in (True, False):
        work = Work(monkeypatch)
        results[right] = scoring.score_file("scb", gold, _lines(gold, right, kind))
        done[right] = dict(work.count)
        monkeypatch.undo()
    assert results[True].overall["acc"] == 100.0 and results[False].overall["acc"] == 0.0
    assert done[True] == done[False], done
    expected = {"polygon": "vertices", "mask": "mask runs", "bbox": "boxes", "mixed": "vertices"}[kind]
    assert done[True].get(expected, 0) > 0, done  # the work is there, on both sides


def test_half_right_does_the_same_work_as_all_right(gold, monkeypatch):
    data_right = _lines(gold, True, "mixed").splitlines()
    data_wrong = _lines(gold, False, "mixed").splitlines()
    half = b"\n".join(r if k % 2 else w for k, (r, w) in enumerate(zip(data_right, data_wrong, strict=True))) + b"\n"
    counts = []
    for data in (half, _lines(gold, True, "mixed")):
        work = Work(monkeypatch)
        scoring.score_file("scb", gold, data)
        counts.append(dict(work.count))
        monkeypatch.undo()
    assert counts[0] == counts[1]
