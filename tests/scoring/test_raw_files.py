"""Whole raw files (SPEC "Raw model outputs"): a team's correct pixel-box file on the synthetic SCB
gold, rewritten as three model families would print it, scores with its declared grounding_format
to the same accuracy and mIoU (to 0.01) as the pixel file.

Each text is what the family prints for those boxes: Qwen2.5-VL whole pixels of its resized input
(smart_resize under the lmms-eval preset), Gemini ``box_2d`` y first on 0-1000, Florence-2
``<loc_k>`` bins (floor quantisation, as its BoxQuantizer encodes). A fifth of the answers are
wrong, and their boxes are written in the frame of the option they answer.
"""

from __future__ import annotations

import json
import math
import random

import pytest

import scoring
from scoring.engine import score_file
from scoring.grounding_formats import parse_format
from tests.support.scoring import SYNTHETIC_SCB, gold_box

QWEN = "qwen2_5_vl:lmms-eval"


@pytest.fixture(scope="module")
def synthetic():
    if not SYNTHETIC_SCB.is_file():
        pytest.skip(f"synthetic SCB gold not found at {SYNTHETIC_SCB}")
    records = [json.loads(t) for t in SYNTHETIC_SCB.read_text(encoding="utf-8").splitlines() if t.strip()]
    return records, scoring.load_gold("scb", SYNTHETIC_SCB)


def answered(records: list[dict], seed: int = 5) -> list[tuple[dict, str, tuple[int, int]]]:
    """(record, the letter answered, the answered option's size): a fifth answered wrong."""
    rng = random.Random(seed)
    out = []
    for r in records:
        letter = r["answer"] if rng.random() < 0.8 else rng.choice([c for c in "ABCD" if c != r["answer"]])
        option = r["options"]["ABCD".index(letter)]
        out.append((r, letter, (option["width"], option["height"])))
    return out


def in_frame(box: list[float], gold_size: tuple[int, int], frame: tuple[int, int]) -> list[float]:
    """The box where the model saw it: the same share of the answered image."""
    (gw, gh), (w, h) = gold_size, frame
    return [box[0] / gw * w, box[1] / gh * h, box[2] / gw * w, box[3] / gh * h]


def qwen_text(box: list[float], frame: tuple[int, int]) -> str:
    fw, fh = parse_format(QWEN).frame(*frame)
    w, h = frame
    pixels = [round(box[0] * fw / w), round(box[1] * fh / h), round(box[2] * fw / w), round(box[3] * fh / h)]
    return "```json\n" + json.dumps([{"bbox_2d": pixels, "label": "artifact"}], indent=2) + "\n```"


def gemini_text(box: list[float], frame: tuple[int, int]) -> str:
    w, h = frame
    y_first = [round(box[1] / h * 1000), round(box[0] / w * 1000), round(box[3] / h * 1000), round(box[2] / w * 1000)]
    return json.dumps([{"box_2d": y_first, "label": "artifact"}])


def florence_text(box: list[float], frame: tuple[int, int]) -> str:
    w, h = frame
    sides = (w, h, w, h)
    bins = [min(999, max(0, math.floor(v / side * 1000))) for v, side in zip(box, sides, strict=True)]
    return "artifact" + "".join(f"<loc_{k}>" for k in bins)


WRITERS = {QWEN: qwen_text, "gemini": gemini_text, "florence2": florence_text}


def _bytes(lines: list[dict]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


@pytest.fixture(scope="module")
def pixel_result(synthetic):
    records, gold = synthetic
    lines = [
        {
            "question_id": r["question_id"],
            "answer": letter,
            "bbox": in_frame(gold_box(r), (r["width"], r["height"]), frame),
        }
        for r, letter, frame in answered(records)
    ]
    return score_file("scb", gold, _bytes(lines))


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_a_raw_file_scores_as_the_pixel_file(synthetic, pixel_result, fmt):
    records, gold = synthetic
    write = WRITERS[fmt]
    lines = [
        {
            "question_id": r["question_id"],
            "answer": letter,
            "grounding_response": write(in_frame(gold_box(r), (r["width"], r["height"]), frame), frame),
        }
        for r, letter, frame in answered(records)
    ]
    result = score_file("scb", gold, _bytes(lines), grounding_format=fmt)
    assert result.counts["grounding_unparsed"] == 0
    assert result.overall["acc"] == pixel_result.overall["acc"]
    assert 75 < result.overall["acc"] < 85 and pixel_result.overall["miou"] > 40
    assert result.overall["miou"] == pytest.approx(pixel_result.overall["miou"], abs=0.01)


@pytest.mark.parametrize(
    ("written", "declared", "named"),
    [("gemini", "qwen3_vl", "gemini"), ("florence2", "kosmos2", "florence2"), (QWEN, "gemini", "qwen2_5_vl")],
)
def test_the_wrong_declaration_gets_the_hint(synthetic, written, declared, named):
    """The same raw files declared as another family: one whole-file hint naming the family that
    reads them, before a slot is spent (validate only and the pre-check run the box checks)."""
    records, gold = synthetic
    write = WRITERS[written]
    lines = [
        {
            "question_id": r["question_id"],
            "answer": letter,
            "grounding_response": write(in_frame(gold_box(r), (r["width"], r["height"]), frame), frame),
        }
        for r, letter, frame in answered(records)
    ]
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("scb", gold, _bytes(lines), grounding_format=declared, check_box_format=True)
    (issue,) = e.value.issues
    assert issue.code == "suspect_grounding_format"
    assert f"Did you mean grounding_format {named}" in issue.message
