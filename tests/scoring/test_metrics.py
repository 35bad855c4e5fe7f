"""Metric reducers: null rules, hand-computed mIoU / GAcc@0.5 / cIoU, bootstrap intervals.

Hand-made gold: the square gold (3 questions on 200 x 100 images, gold square [10, 10]-[50, 50]
= 1,600 pixels, answers q1 A / q2 B / q3 C, one question per type). Independent figures for the
demo gold come from pycocotools masks decoded to numpy arrays.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pycocotools import mask as coco_mask

import scoring
from scoring import metrics
from scoring.benchmarks import get_benchmark
from scoring.metrics import group_figures, question_stats
from tests.support import demo
from tests.support.scoring import write_lines

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")

GROUNDING_FIGURES = ("miou", "miou_ci", "gacc50", "ciou")


def score(gold, tmp_path, lines, **kwargs):
    return scoring.score_file("scb", gold, write_lines(tmp_path / "sub.jsonl", lines), **kwargs)


def all_stats(result) -> list[dict]:
    return [result.overall] + [s for groups in result.groups.values() for s in groups.values()]


def test_square_gold_area_matches_pycocotools(scb_square_gold, scb_square_records):
    rec = scb_square_records[0]
    area = int(coco_mask.area(coco_mask.frPyObjects(rec["segmentation"], rec["height"], rec["width"]))[0])
    assert area == 1600
    assert all(m.area == area for m in scb_square_gold.extra["masks"])


def test_no_grounding_anywhere_gives_null_grounding_figures(scb_square_gold, tmp_path):
    lines = [{"question_id": "q1", "answer": "A"}, {"question_id": "q2", "answer": "B"}]
    result = score(scb_square_gold, tmp_path, lines)
    assert result.overall["acc"] == pytest.approx(200 / 3)
    for stats in all_stats(result):
        assert all(stats[f] is None for f in GROUNDING_FIGURES), stats
    assert result.counts["grounded"] == 0


def test_grounding_rules_by_hand(scb_square_gold, tmp_path):
    """q1 right, box [0, 0, 50, 50]: inter 1,600, union 2,500, IoU 0.64;
    q2 right, no grounding: IoU 0 (inter 0, union 1,600);
    q3 wrong, exact gold box: excluded from mIoU and cIoU, not counted in GAcc@0.5."""
    lines = [
        {"question_id": "q1", "answer": "A", "bbox": [0, 0, 50, 50]},
        {"question_id": "q2", "answer": "B"},
        {"question_id": "q3", "answer": "A", "bbox": [10, 10, 50, 50]},
    ]
    result = score(scb_square_gold, tmp_path, lines)
    o, t = result.overall, result.groups["type"]
    assert o["acc"] == pytest.approx(200 / 3)
    assert o["miou"] == pytest.approx(100 * (0.64 + 0.0) / 2)
    assert o["ciou"] == pytest.approx(100 * 1600 / (2500 + 1600))
    assert o["gacc50"] == pytest.approx(100 / 3)  # over all 3 questions of the group
    assert (t["1"]["miou"], t["1"]["gacc50"], t["1"]["ciou"]) == pytest.approx((64.0, 100.0, 64.0))
    assert (t["2"]["miou"], t["2"]["gacc50"], t["2"]["ciou"]) == (0.0, 0.0, 0.0)
    assert t["3"]["acc"] == 0.0
    assert t["3"]["miou"] is None and t["3"]["ciou"] is None  # no correct answer in the group
    assert t["3"]["gacc50"] == 0.0  # the group has a question: 0 of 1
    assert result.counts["grounded"] == 1


def test_gacc50_threshold_is_inclusive(scb_square_gold, tmp_path):
    """Box [10, 10, 50, 30] covers half the square: IoU exactly 0.5 counts as grounded."""
    lines = [{"question_id": "q1", "answer": "A", "bbox": [10, 10, 50, 30]}]
    result = score(scb_square_gold, tmp_path, lines)
    assert result.groups["type"]["1"]["miou"] == 50.0
    assert result.groups["type"]["1"]["gacc50"] == 100.0
    lines = [{"question_id": "q1", "answer": "A", "bbox": [10, 10, 50, 29]}]
    assert score(scb_square_gold, tmp_path, lines).groups["type"]["1"]["gacc50"] == 0.0


def test_missing_questions_are_wrong_and_outside_miou(scb_square_gold, tmp_path):
    lines = [{"question_id": "q1", "answer": "A", "bbox": [10, 10, 50, 50]}]
    result = score(scb_square_gold, tmp_path, lines)
    assert result.overall["acc"] == pytest.approx(100 / 3)
    assert result.overall["miou"] == 100.0
    assert result.overall["gacc50"] == pytest.approx(100 / 3)
    assert result.counts["missing"] == 2


def coco_dense(segmentation, height: int, width: int) -> np.ndarray:
    if isinstance(segmentation, dict):
        return coco_mask.decode(segmentation).astype(bool)
    return coco_mask.decode(coco_mask.merge(coco_mask.frPyObjects(segmentation, height, width))).astype(bool)


def independent_figures(records: list[dict], lines: list[dict]) -> dict:
    """Overall acc / mIoU / GAcc@0.5 / cIoU from pycocotools masks and numpy, xyxy boxes or polygons."""
    by_id = {line["question_id"]: line for line in lines}
    correct = inter_sum = union_sum = hits = 0
    ious = []
    for rec in records:
        line = by_id.get(rec["question_id"])
        if line is None or line["answer"] != rec["answer"]:
            continue
        correct += 1
        h, w = rec["height"], rec["width"]
        seg = rec["segmentation"]
        if isinstance(seg, dict):
            seg = {"size": seg["size"], "counts": seg["counts"].encode("ascii")}
        g = coco_dense(seg, h, w)
        if "bbox" in line:
            x0, y0, x1, y1 = line["bbox"]
            p = coco_mask.decode(coco_mask.frPyObjects(np.array([[x0, y0, x1 - x0, y1 - y0]], dtype=float), h, w))
            p = p[:, :, 0].astype(bool)
        elif "polygon" in line:
            p = coco_dense(line["polygon"], h, w)
        else:
            p = np.zeros_like(g)
        inter, union = int((g & p).sum()), int((g | p).sum())
        ious.append(inter / union)
        inter_sum, union_sum = inter_sum + inter, union_sum + union
        hits += inter / union >= 0.5
    return {
        "acc": 100 * correct / len(records),
        "miou": 100 * float(np.mean(ious)),
        "gacc50": 100 * hits / len(records),
        "ciou": 100 * inter_sum / union_sum,
    }


@pytest.mark.parametrize(("accuracy", "grounding"), [(1.0, "bbox_good"), (0.6, "bbox_poor"), (0.8, "polygon")])
def test_demo_figures_equal_an_independent_pycocotools_computation(
    scb_small_records, scb_small_gold, tmp_path, accuracy, grounding
):
    lines = demo.scb_submission(scb_small_records, accuracy, grounding, seed=11)
    result = score(scb_small_gold, tmp_path, lines)
    expected = independent_figures(scb_small_records, lines)
    for name, value in expected.items():
        assert result.overall[name] == pytest.approx(value, abs=1e-9), name


# --------------------------------------------------------------------------- bootstrap


def ci_contains(stats: dict, name: str) -> bool:
    """Resampled IoU sums are on a 24-bit grid (scoring.metrics), so a degenerate interval may sit
    ~1e-6 away from the float64 point estimate: compare at that precision."""
    lo, hi = stats[f"{name}_ci"]
    slack = 1e-5 * max(1.0, abs(stats[name]))
    return lo - slack <= stats[name] <= hi + slack


@pytest.mark.parametrize(("accuracy", "grounding"), [(0.85, "bbox_good"), (0.54, "bbox_poor"), (0.3, "polygon")])
def test_bootstrap_interval_contains_the_point_estimate(scb_full_records, scb_full_gold, tmp_path, accuracy, grounding):
    lines = demo.scb_submission(scb_full_records, accuracy, grounding, seed=3)
    result = score(scb_full_gold, tmp_path, lines)
    for stats in all_stats(result):
        assert ci_contains(stats, "acc"), stats
        assert ci_contains(stats, "miou"), stats
    lo, hi = result.overall["acc_ci"]
    assert hi - lo < 4  # 3,178 questions: a 95% interval about +-1.7 points wide


def test_bootstrap_is_deterministic(scb_full_records, scb_full_gold, tmp_path):
    lines = demo.scb_submission(scb_full_records, 0.6, "bbox_good", seed=5)
    first = score(scb_full_gold, tmp_path, lines).to_dict()
    metrics._draw_counts.cache_clear()  # rebuilt from the fixed seed, not reused
    second = score(scb_full_gold, tmp_path, lines).to_dict()
    assert first == second


def test_perfect_submission_has_a_degenerate_interval(scb_small_records, scb_small_gold, tmp_path):
    lines = [{"question_id": r["question_id"], "answer": r["answer"]} for r in scb_small_records]
    result = score(scb_small_gold, tmp_path, lines)
    assert result.overall["acc"] == 100.0
    assert result.overall["acc_ci"] == [100.0, 100.0]


@st.composite
def question_arrays(draw):
    n = draw(st.integers(1, 60))
    correct = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    union = np.array(draw(st.lists(st.integers(1, 1000), min_size=n, max_size=n)), dtype=np.float64)
    share = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    inter = np.floor(share * union)
    codes = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.int32)
    return correct, inter, union, codes


@settings(max_examples=40, deadline=None)
@given(question_arrays())
def test_group_figures_against_plain_python(arrays):
    correct, inter, union, codes = arrays
    labels = ["x", "y", "z"]
    groups = {"g": (labels, codes)}
    metrics = get_benchmark("scb").metrics
    figures = group_figures(question_stats(correct, inter, union), groups, metrics)
    again = group_figures(question_stats(correct, inter, union), groups, metrics)
    assert figures == again
    members = {"": list(range(correct.size))} | {
        label: [i for i in range(correct.size) if codes[i] == k] for k, label in enumerate(labels)
    }
    for label, rows in members.items():
        stats = figures["overall"][""] if label == "" else figures["g"].get(label)
        if not rows:
            assert stats is None or stats["acc"] is None
            continue
        right = [i for i in rows if correct[i]]
        assert stats["acc"] == pytest.approx(100 * len(right) / len(rows))
        assert stats["gacc50"] == pytest.approx(100 * sum(inter[i] / union[i] >= 0.5 for i in right) / len(rows))
        if right:
            assert stats["miou"] == pytest.approx(100 * sum(inter[i] / union[i] for i in right) / len(right))
            assert stats["ciou"] == pytest.approx(100 * sum(inter[i] for i in right) / sum(union[i] for i in right))
            assert ci_contains(stats, "miou")
        else:
            assert stats["miou"] is None and stats["ciou"] is None
        assert ci_contains(stats, "acc")
