"""Tests of the deterministic demo data generator (scoring/benchmarks/demo.py and each folder's demo.py)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from pycocotools import mask as mask_utils
from shapely.geometry import Polygon
from shapely.ops import unary_union

from tests.support import demo

SCB_N = sum(demo.SCB_TYPE_SIZES)
KV_N = 657


@pytest.fixture(scope="module")
def gold() -> list[dict]:
    return demo.scb_gold(options=True)  # as the embedded default serves it


@pytest.fixture(scope="module")
def kv_gold() -> list[dict]:
    return demo.kviscuit_gold()


def _letter(line: dict) -> str:
    if "answer" in line:
        return line["answer"]
    match = re.fullmatch(r"The answer is \(([A-D])\)\.", line["response"])
    assert match, line
    return match.group(1)


def _to_xywh(bbox: list[float], fmt: str, width: int, height: int) -> list[float]:
    """Independent reading of the SPEC box formats, in pixels [x, y, w, h]."""
    if fmt == "xywh":
        return [float(v) for v in bbox]
    if fmt == "xyxy":
        x1, y1, x2, y2 = bbox
    elif fmt == "xyxy_norm":
        x1, y1, x2, y2 = (
            bbox[0] * width,
            bbox[1] * height,
            bbox[2] * width,
            bbox[3] * height,
        )
    elif fmt == "xyxy_1000":
        x1, y1 = bbox[0] / 1000 * width, bbox[1] / 1000 * height
        x2, y2 = bbox[2] / 1000 * width, bbox[3] / 1000 * height
    elif fmt == "yxyx_1000":
        y1, x1 = bbox[0] / 1000 * height, bbox[1] / 1000 * width
        y2, x2 = bbox[2] / 1000 * height, bbox[3] / 1000 * width
    else:
        raise AssertionError(fmt)
    return [x1, y1, x2 - x1, y2 - y1]


def _gold_rle(record: dict) -> dict:
    seg, h, w = record["segmentation"], record["height"], record["width"]
    if isinstance(seg, dict):
        return {"size": seg["size"], "counts": seg["counts"].encode("ascii")}
    return mask_utils.merge(mask_utils.frPyObjects(seg, h, w))


def _iou_box(record: dict, bbox: list[float], fmt: str) -> float:
    h, w = record["height"], record["width"]
    box = mask_utils.frPyObjects(np.array([_to_xywh(bbox, fmt, w, h)], dtype=float), h, w)[0]
    return float(mask_utils.iou([box], [_gold_rle(record)], [0])[0, 0])


# --------------------------------------------------------------------------- determinism


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    small = (30, 30, 40)
    assert demo.dumps_jsonl(demo.scb_gold(7, small)) == demo.dumps_jsonl(demo.scb_gold(7, small))
    assert demo.dumps_jsonl(demo.scb_gold(7, small)) != demo.dumps_jsonl(demo.scb_gold(8, small))
    assert demo.dumps_jsonl(demo.kviscuit_gold(3)) == demo.dumps_jsonl(demo.kviscuit_gold(3))


def test_write_demo_is_byte_identical(tmp_path: Path) -> None:
    first = demo.write_demo(tmp_path / "a")
    second = demo.write_demo(tmp_path / "b")
    assert first.keys() == second.keys()
    assert {"scb_gold", "scb_questions", "kviscuit_gold"} <= first.keys()
    examples = [p for p in first.values() if p.parent.name == "examples"]
    assert len(examples) == len(demo.demo_teams())  # every registered benchmark's, computed from the declarations
    for name, path in first.items():
        data = path.read_bytes()
        assert data == second[name].read_bytes(), name
        assert data.endswith(b"\n") and not data.endswith(b"\n\n")
        data.decode("utf-8")
    gold_lines = first["scb_gold"].read_bytes().splitlines()
    assert len(gold_lines) == SCB_N
    assert b", " not in gold_lines[0] and b'": ' not in gold_lines[0]


def test_main_writes_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert demo.main([str(tmp_path)]) == 0
    assert (tmp_path / "scb_gold.jsonl").is_file()
    assert (tmp_path / "examples").is_dir()
    assert demo.main([]) == 2


# --------------------------------------------------------------------------- SCB gold


def test_scb_gold_shape(gold: list[dict]) -> None:
    assert len(gold) == SCB_N
    ids = [r["question_id"] for r in gold]
    assert sorted(ids) == [f"scb-{i:05d}" for i in range(SCB_N)]
    assert ids != sorted(ids)  # shuffled
    assert Counter(r["type"] for r in gold) == {1: 840, 2: 834, 3: 1504}
    assert {r["country"] for r in gold} == set(demo.COUNTRIES)
    assert {r["category"] for r in gold} == set(demo.SCB_CATEGORIES)
    assert {r["answer"] for r in gold} == set("ABCD")
    keys = {
        "question_id",
        "type",
        "country",
        "category",
        "concept",
        "answer",
        "image_id",
    }
    public = {"question", "grounding_prompt", "options"}
    for r in gold:
        assert keys | {"width", "height", "segmentation"} | public == r.keys()
        assert 240 <= r["width"] <= 2400 and 240 <= r["height"] <= 2400
        assert r["concept"]


def test_scb_decoys_are_other_questions_gold_images(gold: list[dict]) -> None:
    """As in the benchmark (and the shared synthetic gold): the answer's option is the gold image,
    each decoy another question's gold image with its real size, so neither an id pattern nor a
    size names the answer; type 1 decoys share the country, type 2 decoys do not."""
    images = {r["image_id"]: (r["width"], r["height"], r["country"]) for r in gold}
    for r in gold:
        options = r["options"]
        assert len(options) == 4 and len({o["image_id"] for o in options}) == 4
        answer = options["ABCD".index(r["answer"])]
        assert (answer["image_id"], answer["width"], answer["height"]) == (r["image_id"], r["width"], r["height"])
        for o in options:
            assert o["image_id"] in images and (o["width"], o["height"]) == images[o["image_id"]][:2]
        countries = {images[o["image_id"]][2] for o in options if o is not answer}
        if r["type"] == 1:
            assert countries == {r["country"]}
        elif r["type"] == 2:
            assert r["country"] not in countries
    # sizes say nothing: "the largest image" is the answer about as often as chance (25 %)
    largest = sum(max(r["options"], key=lambda o: o["width"] * o["height"])["image_id"] == r["image_id"] for r in gold)
    assert 0.20 < largest / len(gold) < 0.30


def test_scb_questions_are_public(gold: list[dict]) -> None:
    questions = demo.scb_questions(gold)
    assert [q["question_id"] for q in questions] == [r["question_id"] for r in gold]
    for q in questions:
        assert q.keys() == {
            "question_id",
            "type",
            "country",
            "category",
            "concept",
            "question",
            "grounding_prompt",
            "options",
        }
        assert not {"answer", "image_id", "width", "height", "segmentation"} & q.keys()


def test_polygons_inside_valid_sensible(gold: list[dict]) -> None:
    shares = []
    for r in gold:
        seg, w, h = r["segmentation"], r["width"], r["height"]
        if isinstance(seg, dict):
            continue
        assert 1 <= len(seg) <= 3
        parts = []
        for part in seg:
            assert len(part) % 2 == 0 and 8 <= len(part) // 2 <= 40
            assert all(isinstance(v, float) for v in part)
            xs, ys = part[0::2], part[1::2]
            assert min(xs) >= 0 and max(xs) <= w and min(ys) >= 0 and max(ys) <= h
            poly = Polygon(list(zip(xs, ys)))
            assert poly.is_valid and poly.area > 0, r["question_id"]
            parts.append(poly)
        shares.append(unary_union(parts).area / (w * h))
    assert min(shares) > 0.005 and max(shares) < 0.5
    assert 0.05 < sorted(shares)[len(shares) // 2] < 0.2  # median


def test_rle_share_and_size(gold: list[dict]) -> None:
    rles = [r for r in gold if isinstance(r["segmentation"], dict)]
    assert abs(len(rles) / len(gold) - 0.05) < 0.01
    for r in rles:
        seg = r["segmentation"]
        assert seg["size"] == [r["height"], r["width"]]
        assert isinstance(seg["counts"], str)
        area = mask_utils.area({"size": seg["size"], "counts": seg["counts"].encode()})
        assert 0.005 < area / (r["width"] * r["height"]) < 0.5


# --------------------------------------------------------------------------- K-Viscuit gold


def test_kviscuit_gold_shape(kv_gold: list[dict]) -> None:
    assert len(kv_gold) == KV_N
    assert Counter(r["question_type"] for r in kv_gold) == {1: 237, 2: 420}
    assert {r["category"] for r in kv_gold} == set(demo.KVISCUIT_CATEGORIES)
    assert len(demo.KVISCUIT_CATEGORIES) == 10
    ids = Counter(r["id_"] for r in kv_gold)
    assert len(ids) == 593 and max(ids.values()) > 1
    keys = {"question", "options", "answer", "category", "id_", "question_type"}
    for r in kv_gold:
        assert r.keys() == keys | {"image_path", "image_url"}
        assert len(r["options"]) == 4 and all(isinstance(o, str) for o in r["options"])
        assert r["answer"] in (0, 1, 2, 3)
        assert re.fullmatch(rf"{r['category']}\.\d+\.\d+", r["id_"])
        assert r["image_url"].startswith("https://example.org/")
    assert {r["answer"] for r in kv_gold} == {0, 1, 2, 3}


# --------------------------------------------------------------------------- submissions


@pytest.mark.parametrize("accuracy", [0.0, 0.25, 0.54, 0.85, 1.0])
def test_scb_submission_accuracy(gold: list[dict], accuracy: float) -> None:
    answers = {r["question_id"]: r["answer"] for r in gold}
    lines = demo.scb_submission(gold, accuracy, "none", seed=5)
    assert len(lines) == len(gold)
    assert all(set(line) == {"question_id", "answer"} for line in lines)
    correct = sum(_letter(line) == answers[line["question_id"]] for line in lines)
    assert abs(correct - accuracy * len(gold)) <= 1


def test_scb_submission_missing_and_response(gold: list[dict]) -> None:
    answers = {r["question_id"]: r["answer"] for r in gold}
    lines = demo.scb_submission(
        gold,
        0.6,
        "bbox_good",
        seed=9,
        box_format="xyxy_1000",
        missing=30,
        as_response=0.2,
    )
    assert len(lines) == len(gold) - 30
    assert len({line["question_id"] for line in lines}) == len(lines)
    wordy = [line for line in lines if "response" in line]
    assert abs(len(wordy) / len(gold) - 0.2) < 0.02
    assert all("answer" not in line and "bbox" in line for line in wordy)
    correct = sum(_letter(line) == answers[line["question_id"]] for line in lines)
    assert abs(correct / len(gold) - 0.6) < 0.02
    assert lines == demo.scb_submission(
        gold,
        0.6,
        "bbox_good",
        seed=9,
        box_format="xyxy_1000",
        missing=30,
        as_response=0.2,
    )


@pytest.mark.parametrize("fmt", demo.BOX_FORMATS)
@pytest.mark.parametrize("grounding", ["bbox_good", "bbox_poor"])
def test_boxes_valid_in_range(gold: list[dict], fmt: str, grounding: str) -> None:
    by_id = {r["question_id"]: r for r in gold}
    for line in demo.scb_submission(gold, 0.5, grounding, seed=11, box_format=fmt):
        r = _answered_image(by_id[line["question_id"]], line["answer"])  # a box is in the image it answers
        box = line["bbox"]
        assert len(box) == 4
        if fmt == "xywh":
            x, y, w, h = box
            assert w > 0 and h > 0 and x >= 0 and y >= 0
            assert x + w <= r["width"] + 1e-6 and y + h <= r["height"] + 1e-6
            continue
        a, b, c, d = box
        assert c > a and d > b
        if fmt == "xyxy":
            assert a >= 0 and b >= 0 and c <= r["width"] and d <= r["height"]
        elif fmt == "xyxy_norm":
            assert a >= 0 and b >= 0 and c <= 1 and d <= 1
        else:
            assert all(isinstance(v, int) and 0 <= v <= 1000 for v in box)


@pytest.mark.parametrize("fmt", demo.BOX_FORMATS)
def test_box_iou_good_vs_poor(gold: list[dict], fmt: str) -> None:
    by_id = {r["question_id"]: r for r in gold}
    sample = gold[:600]
    good = demo.scb_submission(sample, 1.0, "bbox_good", seed=21, box_format=fmt)
    poor = demo.scb_submission(sample, 1.0, "bbox_poor", seed=22, box_format=fmt)
    good_iou = [_iou_box(by_id[x["question_id"]], x["bbox"], fmt) for x in good]
    poor_iou = [_iou_box(by_id[x["question_id"]], x["bbox"], fmt) for x in poor]
    assert sum(v >= 0.5 for v in good_iou) / len(good_iou) > 0.85
    assert sum(v < 0.5 for v in poor_iou) / len(poor_iou) > 0.95


def _answered_image(record: dict, letter: str) -> dict:
    """The size of the image a line answers: the gold image, or the decoy it chose."""
    option = record["options"]["ABCD".index(letter)]
    return record | {"width": option["width"], "height": option["height"]}


def test_polygon_grounding(gold: list[dict]) -> None:
    by_id = {r["question_id"]: r for r in gold}
    lines = demo.scb_submission(gold, 0.7, "polygon", seed=3)
    ious = []
    for line in lines:
        r = by_id[line["question_id"]]
        if isinstance(r["segmentation"], dict):
            assert "bbox" in line and "polygon" not in line
            continue
        assert "bbox" not in line
        parts = line["polygon"]
        assert len(parts) == len(r["segmentation"])
        frame = _answered_image(r, line["answer"])
        for part in parts:
            assert len(part) >= 6 and len(part) % 2 == 0
            assert all(0 <= v <= frame["width"] for v in part[0::2])
            assert all(0 <= v <= frame["height"] for v in part[1::2])
        if line["answer"] != r["answer"]:
            continue  # a wrong answer's grounding is not scored (SPEC)
        pred = mask_utils.merge(mask_utils.frPyObjects(parts, r["height"], r["width"]))
        ious.append(float(mask_utils.iou([pred], [_gold_rle(r)], [0])[0, 0]))
    assert sum(v >= 0.5 for v in ious) / len(ious) > 0.9


def test_bad_arguments(gold: list[dict]) -> None:
    with pytest.raises(ValueError):
        demo.scb_submission(gold[:5], 0.5, "bbox_good", seed=1, box_format="cxcywh")
    with pytest.raises(ValueError):
        demo.scb_submission(gold[:5], 0.5, "mask", seed=1)


@pytest.mark.parametrize("accuracy", [0.0, 0.5708, 1.0])
def test_kviscuit_submission(kv_gold: list[dict], accuracy: float) -> None:
    lines = demo.kviscuit_submission(kv_gold, accuracy, seed=4)
    assert [line["question_id"] for line in lines] == list(range(KV_N))
    correct = sum("ABCD"[r["answer"]] == line["answer"] for r, line in zip(kv_gold, lines))
    assert abs(correct - accuracy * KV_N) <= 1


def test_demo_teams(gold: list[dict], kv_gold: list[dict]) -> None:
    for benchmark in ("scb", "kviscuit"):
        teams = [t for t in demo.DEMO_TEAMS if t.benchmark == benchmark]
        assert 5 <= len(teams) <= 8
        assert len({t.accuracy for t in teams}) == len(teams)
    assert len({t.filename for t in demo.DEMO_TEAMS}) == len(demo.DEMO_TEAMS)
    scb_teams = [t for t in demo.DEMO_TEAMS if t.benchmark == "scb"]
    assert {t.box_format for t in scb_teams if t.grounding != "none"} == set(demo.BOX_FORMATS)
    assert {t.model_type for t in demo.DEMO_TEAMS} == {"open", "closed", "API"}
    for t in demo.DEMO_TEAMS:
        assert t.team == "demo" and t.name.endswith("(synthetic)")
        assert t.grounding in demo.GROUNDINGS and t.box_format in demo.BOX_FORMATS
    team = next(t for t in scb_teams if t.slug == "qwen2.5-vl-7b")
    assert demo.team_submission(team, gold) == demo.team_submission(team, gold)
    kv_team = next(t for t in demo.DEMO_TEAMS if t.benchmark == "kviscuit")
    assert len(demo.team_submission(kv_team, kv_gold)) == KV_N - kv_team.missing
