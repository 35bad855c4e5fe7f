"""One whole-file hint when another box or grounding format fits a file better than the declared
one, judged from public facts only (the answered options' sizes and the file itself): xywh boxes
declared xyxy, Qwen2.5-VL boxes in its resized input frame sent as plain pixels, and raw texts in
another family's grammar. Every check runs against the public question list too, which has no
answer and no mask: the same hint there shows it cannot depend on the gold."""

from __future__ import annotations

import json

import pytest

import scoring
from scoring.benchmarks import get_benchmark
from scoring.grounding_formats import QWEN_PIXEL_PRESETS, parse_format
from scoring.validation import check_file
from tests.support import demo
from tests.support.scoring import gold_box, with_options, write_lines


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return with_options(demo.scb_gold(seed=3, sizes=(30, 30, 40)), seed=2, same_size=0.5)


@pytest.fixture(scope="module")
def golds(records, tmp_path_factory):
    folder = tmp_path_factory.mktemp("hints")
    gold = demo.write_jsonl(folder / "gold.jsonl", records)
    questions = demo.write_jsonl(folder / "questions.jsonl", get_benchmark("scb").public_questions(gold))
    return scoring.load_gold("scb", gold), scoring.load_questions("scb", questions)


def issues(gold, lines, tmp_path, **kw) -> list[scoring.Issue]:
    try:
        check_file("scb", gold, write_lines(tmp_path / "f.jsonl", lines), **kw)
    except scoring.SubmissionError as e:
        return e.issues
    return []


def both(golds, lines, tmp_path, **kw) -> list[scoring.Issue]:
    """The issues against the gold, checked equal to those against the public question list."""
    got = issues(golds[0], lines, tmp_path, **kw)
    assert got == issues(golds[1], lines, tmp_path, **kw)
    return got


def line(r: dict, **fields) -> dict:
    return {"question_id": r["question_id"], "answer": r["answer"], **fields}


def test_xywh_boxes_declared_xyxy_get_one_hint_before_the_capped_errors(golds, records, tmp_path):
    """A real xywh file declared xyxy: only the boxes with w < x or h < y are inverted (here about
    half), which used to give hundreds of inverted_box errors and no word of xywh."""
    fine, inverted = [], []
    for r in records:
        x0, y0, x1, y1 = gold_box(r)
        (inverted if x1 - x0 < x0 or y1 - y0 < y0 else fine).append(line(r, bbox=[x0, y0, x1 - x0, y1 - y0]))
    lines = fine + inverted[: len(fine) * 2 // 3]  # 40 % inverted under xyxy, as in a real file (48 %)
    assert len(fine) >= 20 and len(inverted) >= len(fine) * 2 // 3
    got = both(golds, lines, tmp_path, bbox_format="xyxy")
    assert got[0].code == "suspect_bbox_format" and "Did you mean xywh" in got[0].message
    assert {i.code for i in got[1:]} == {"inverted_box"} and len(got) <= scoring.errors.MAX_LISTED
    assert both(golds, lines, tmp_path, bbox_format="xywh") == []


def test_pixel_files_in_their_own_format_get_no_hint(golds, records, tmp_path):
    xyxy = [line(r, bbox=gold_box(r)) for r in records]
    assert both(golds, xyxy, tmp_path, bbox_format="xyxy") == []
    assert both(golds, xyxy, tmp_path, bbox_format="xyxy", confirm_box_format=True) == []


def qwen_lines(records: list[dict], preset: str) -> list[dict]:
    out = []
    for r in records:
        w, h = r["width"], r["height"]
        fw, fh = parse_format(f"qwen2_5_vl:{preset}").frame(w, h)
        x0, y0, x1, y1 = gold_box(r)
        out.append(line(r, bbox=[round(x0 * fw / w), round(y0 * fh / h), round(x1 * fw / w), round(y1 * fh / h)]))
    return out


@pytest.mark.parametrize("preset", ["transformers", "lmms-eval", "vlmevalkit"])
def test_qwen2_5_vl_resized_frames_sent_as_pixels_get_a_hint(golds, records, tmp_path, preset):
    lines = qwen_lines(records, preset)
    got = both(golds, lines, tmp_path, bbox_format="xyxy")
    assert [i.code for i in got] == ["suspect_bbox_format"]
    assert f"qwen2_5_vl:{preset}" in got[0].message and "bbox_ref_size" in got[0].message
    # declared the right way, the same numbers pass: per line bbox_ref_size
    with_ref = []
    for r, x in zip(records, lines, strict=True):
        with_ref.append(
            x | {"bbox_ref_size": list(parse_format(f"qwen2_5_vl:{preset}").frame(r["width"], r["height"]))}
        )
    assert both(golds, with_ref, tmp_path, bbox_format="xyxy") == []
    # or the model's own text with grounding_format
    raw = [
        line(r, grounding_response=json.dumps([{"bbox_2d": x["bbox"]}])) for r, x in zip(records, lines, strict=True)
    ]
    assert both(golds, raw, tmp_path, grounding_format=f"qwen2_5_vl:{preset}") == []


def test_grounding_texts_in_another_familys_grammar_get_a_hint(golds, records, tmp_path):
    """Gemini's box_2d texts declared as qwen3_vl name no box in its grammar: every line would
    score IoU 0. One hint names the family whose grammar reads them."""
    lines = [
        line(r, grounding_response='```json\n[{"box_2d": [100, 120, 800, 900], "label": "x"}]\n```') for r in records
    ]
    got = both(golds, lines, tmp_path, grounding_format="qwen3_vl")
    assert [i.code for i in got] == ["suspect_grounding_format"]
    assert "gemini" in got[0].message and f"{len(records):,} of {len(records):,}" in got[0].message
    assert both(golds, lines, tmp_path, grounding_format="gemini") == []
    # confirmed, the file is read as declared: every grounding unparsed, and said so
    report = check_file("scb", golds[1], write_lines(tmp_path / "g.jsonl", lines), grounding_format="qwen3_vl",
                        confirm_box_format=True)  # fmt: skip
    assert report.grounding_unparsed == len(records)


def test_a_few_unparsed_texts_get_no_hint(golds, records, tmp_path):
    lines = [line(r, grounding_response='[{"bbox_2d": [100, 120, 800, 900]}]') for r in records]
    for r in lines[:5]:
        r["grounding_response"] = '{"box_2d": [100, 120, 800, 900]}'
    assert both(golds, lines, tmp_path, grounding_format="qwen3_vl") == []


@pytest.mark.parametrize("written", ["transformers", "lmms-eval", "vlmevalkit"])
def test_raw_qwen2_5_vl_texts_in_another_presets_frames_get_a_hint(golds, records, tmp_path, written):
    """Qwen2.5-VL run under one stack's min/max_pixels, declared as another's (the default is the
    Hub config): the boxes fit the stack's frames, not the declared ones. One hint names it."""
    raw = [
        line(r, grounding_response="```json\n" + json.dumps([{"bbox_2d": x["bbox"], "label": "a"}]) + "\n```")
        for r, x in zip(records, qwen_lines(records, written), strict=True)
    ]
    got = both(golds, raw, tmp_path, grounding_format="qwen2_5_vl")
    assert [i.code for i in got] == ["suspect_grounding_format"]
    assert f"Did you mean grounding_format qwen2_5_vl:{written}" in got[0].message
    assert both(golds, raw, tmp_path, grounding_format=f"qwen2_5_vl:{written}") == []
    low, high = QWEN_PIXEL_PRESETS[written]  # the same limits spelled out are the same declaration
    assert both(golds, raw, tmp_path, grounding_format=f"qwen2_5_vl:{low},{high}") == []


def test_raw_qwen2_5_vl_texts_in_the_hub_frames_get_no_hint(golds, records, tmp_path):
    raw = [
        line(r, grounding_response=json.dumps([{"bbox_2d": x["bbox"]}]))
        for r, x in zip(records, qwen_lines(records, "hub"), strict=True)
    ]
    assert both(golds, raw, tmp_path, grounding_format="qwen2_5_vl") == []
    assert both(golds, raw, tmp_path, grounding_format="qwen2_5_vl:hub") == []


@pytest.mark.parametrize("first", [0, 1])
def test_numbered_answers_get_one_hint_not_a_line_each(golds, records, tmp_path, first):
    """A file answering with option numbers (``"answer": 1``) was one identical error per line (3,178 on
    the demo set); now one hint says what was written and what to write, whether counted from 0 or 1."""
    lines = [{"question_id": r["question_id"], "answer": first + i % 4} for i, r in enumerate(records)]
    got = both(golds, lines, tmp_path)
    assert [i.code for i in got] == ["numbered_answers"]
    assert got[0].line == 0 and "numbers" in got[0].message and "'A'" in got[0].message
    assert f"{len(records)}" in got[0].message.replace(",", "")


def test_a_few_numbered_answers_keep_their_line_errors(golds, records, tmp_path):
    lines = [line(r) for r in records]
    lines[3]["answer"] = 2
    assert [(i.code, i.line) for i in both(golds, lines, tmp_path)] == [("bad_answer", 4)]


def test_a_list_wrapped_in_one_object_gets_one_hint(golds, records, tmp_path):
    """``{"predictions": [...]}`` in one object: the hint names the key and the count and asks for one
    object a line, instead of "question_id is missing"."""
    path = tmp_path / "wrapped.json"
    path.write_text(json.dumps({"predictions": [line(r) for r in records]}))
    with pytest.raises(scoring.SubmissionError) as raised:
        check_file("scb", golds[0], path)
    assert [i.code for i in raised.value.issues] == ["wrapped_list"]
    said = raised.value.issues[0].message
    assert "'predictions'" in said and f"{len(records)}" in said and "one object a line" in said
