"""Checks before a file costs a slot: public question lists as public gold, the offline validator,
the box-format sanity check, id hints, JSON error columns, and the extractor's new phrasings."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import scoring
from scoring.answers import read_response
from scoring.benchmarks import get_benchmark
from scoring.validation import check_file
from tests.support import demo
from tests.support.scoring import with_options, write_lines


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return with_options(demo.scb_gold(seed=0, sizes=(20, 20, 30)), seed=1, same_size=0.5)


@pytest.fixture(scope="module")
def paths(records, tmp_path_factory):
    folder = tmp_path_factory.mktemp("checks")
    gold = demo.write_jsonl(folder / "gold.jsonl", records)
    questions = demo.write_jsonl(folder / "questions.jsonl", get_benchmark("scb").public_questions(gold))
    return gold, questions


@pytest.fixture(scope="module")
def golds(paths):
    gold, questions = paths
    return scoring.load_gold("scb", gold), scoring.load_questions("scb", questions)


def in_option(record: dict, letter: str, *fractions: float) -> list[float]:
    """Four numbers as fractions of the width, height, width, height of an option image."""
    option = record["options"]["ABCD".index(letter)]
    sides = (option["width"], option["height"]) * 2
    return [round(f * side, 1) for f, side in zip(fractions, sides, strict=True)]


def gemini_lines(records: list[dict]) -> list[dict]:
    """Gemini ``box_2d`` boxes ([ymin, xmin, ymax, xmax] on 0-1000) on the right answers."""
    return [
        {"question_id": r["question_id"], "answer": r["answer"], "bbox": [200 + i % 50, 150, 700, 800 - i % 40]}
        for i, r in enumerate(records)
    ]


# ---- public question lists and public gold ----


def test_public_list_has_what_a_model_needs_and_nothing_of_the_gold(records, paths):
    questions = [json.loads(line) for line in paths[1].read_text().splitlines()]
    first = next(q for q in questions if q["question_id"] == records[0]["question_id"])
    assert {"question", "grounding_prompt", "options", "type", "country", "category", "concept"} <= set(first)
    assert [o["letter"] for o in first["options"]] == list("ABCD")
    assert {"image_id", "width", "height", "url"} <= set(first["options"][0])
    assert not {"answer", "segmentation", "width", "height", "image_id"} & set(first)


def test_kviscuit_public_list_keeps_images_and_options(tmp_path):
    rows = demo.kviscuit_gold(seed=0)[:5]
    rows = [r | {"image_url": f"https://example.org/{i}.jpg", "image_path": f"{i}.jpg"} for i, r in enumerate(rows)]
    path = demo.write_jsonl(tmp_path / "kv.jsonl", rows)
    questions = get_benchmark("kviscuit").public_questions(path)
    assert questions[3]["image_url"] == "https://example.org/3.jpg" and questions[3]["image_path"] == "3.jpg"
    assert questions[3]["options"] == rows[3]["options"] and "answer" not in questions[3]
    public = scoring.load_questions("kviscuit", demo.write_jsonl(tmp_path / "q.jsonl", questions))
    assert public.public and public.option_texts[3] == tuple(rows[3]["options"])


def test_public_gold_validates_like_the_gold_and_cannot_score(golds, records, tmp_path):
    gold, public = golds
    assert public.public and public.keys == gold.keys and (public.answers == -1).all()
    lines = [
        {"question_id": r["question_id"], "answer": "B", "bbox": in_option(r, "B", 0.1, 0.1, 0.9, 0.9)} for r in records
    ]
    lines[3]["bbox"] = [50, 50, 10, 10]  # inverted
    lines[5] = {"question_id": "scb-9", "answer": "A"}
    lines[7]["answer"] = "E"
    lines[9]["mask"] = {"size": [1, 1], "counts": [1]}  # two grounding fields
    path = write_lines(tmp_path / "p.jsonl", lines)
    issues = {}
    for name, g in (("gold", gold), ("public", public)):
        with pytest.raises(scoring.SubmissionError) as e:
            scoring.validate_file("scb", g, path)
        issues[name] = [(i.line, i.code, i.field, i.message) for i in e.value.issues]
    assert issues["gold"] == issues["public"] and len(issues["gold"]) == 4
    fine = scoring.validate_file("scb", public, write_lines(tmp_path / "ok.jsonl", lines[:3]))
    with pytest.raises(ValueError, match="cannot score|not score"):
        scoring.score_predictions("scb", public, fine)


# ---- box-format sanity ----


def test_gemini_boxes_declared_xyxy_are_stopped_with_a_suggestion(golds, records, tmp_path):
    gold, public = golds
    path = write_lines(tmp_path / "gemini.jsonl", gemini_lines(records))
    for g in (gold, public):
        with pytest.raises(scoring.SubmissionError) as e:
            check_file("scb", g, path, bbox_format="xyxy")
        (issue,) = e.value.issues
        assert issue.code == "suspect_bbox_format" and "Did you mean yxyx_1000" in issue.message
    assert check_file("scb", public, path, bbox_format="yxyx_1000").answered == len(records)
    assert check_file("scb", public, path, bbox_format="xyxy", confirm_box_format=True).answered == len(records)
    scoring.score_file("scb", gold, path, bbox_format="xyxy")  # the library scores what it is told


def test_other_format_mistakes_are_flagged(golds, records, tmp_path):
    public = golds[1]

    def flagged(lines, fmt):
        try:
            check_file("scb", public, write_lines(tmp_path / "f.jsonl", lines), bbox_format=fmt)
        except scoring.SubmissionError as e:
            return [i.message for i in e.issues if i.code == "suspect_bbox_format"]
        return []

    norm = [{"question_id": r["question_id"], "answer": "A", "bbox": [0.1, 0.2, 0.5, 0.6]} for r in records]
    assert "xyxy_norm" in flagged(norm, "xyxy")[0]
    # xywh boxes (x, y, w, h with w < x) declared xyxy: inverted under xyxy, valid as xywh
    xywh = [
        {"question_id": r["question_id"], "answer": "A", "bbox": in_option(r, "A", 0.6, 0.5, 0.2, 0.2)} for r in records
    ]
    message = flagged(xywh, "xyxy")
    assert message and "Did you mean xywh" in message[0]
    # fine files are not flagged: pixel boxes beyond 1000 on large images, and a small file
    pixels = [
        {"question_id": r["question_id"], "answer": "A", "bbox": in_option(r, "A", 0.2, 0.3, 0.7, 0.9)} for r in records
    ]
    assert flagged(pixels, "xyxy") == []
    assert flagged(gemini_lines(records)[:3], "xyxy") == []


# ---- messages ----


def test_truncated_json_is_reported_at_its_column(golds, tmp_path):
    text = '{"question_id": "scb-00001", "answer": "B", "bbox": [1, 2, 3\n'
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("scb", golds[1], text.encode())
    assert f"at column {len(text.rstrip()) + 1}" in e.value.issues[0].message  # just after the last character


def test_unknown_ids_get_hints(golds, tmp_path):
    public = golds[1]
    key = public.keys[5]
    number = int(key.split("-")[1])
    lines = [{"question_id": number, "answer": "A"}, {"question_id": key.replace("-0", "-", 1), "answer": "A"}]
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("scb", public, write_lines(tmp_path / "ids.jsonl", lines))
    first, second = (i.message for i in e.value.issues)
    assert f"ids here are strings like {public.keys[0]!r}" in first and f"did you mean {key!r}" in first
    assert f"did you mean {key!r}" in second


# ---- the extractor ----

REALISTIC = {
    "Image C shows it.": "C",
    "The correct image is C.": "C",
    "I choose B.": "B",
    "Option B is correct because the drum in it is a kendang.": "B",
    "The answer is (C)": "C",
    "정답: B": "B",
    "정답은 B입니다.": "B",
    "정답은 (d)입니다.": "D",
    "이미지를 보면 정답은 A입니다. 붕어빵 틀이 보입니다.": "A",
    "Option B is wrong; option D is the answer.": "D",
}
STILL_UNPARSED = ["Option B is wrong.", "Image A shows a drum and image C shows it too.", "답변하기 어렵습니다."]


@pytest.mark.parametrize(("text", "letter"), list(REALISTIC.items()))
def test_common_phrasings_are_read_leniently(text, letter):
    assert read_response(text, "ABCD") == read_response(text, "ABCD").__class__(letter, strict=False)


@pytest.mark.parametrize("text", STILL_UNPARSED)
def test_negations_and_disagreements_stay_unparsed(text):
    assert read_response(text, "ABCD").letter is None


def test_option_texts_are_read_only_when_unambiguous():
    options = ["Bungeo-ppang", "Hwangnam-ppang", "Dakjuk", "Ice cream"]
    assert read_response(' "bungeo-ppang." ', "ABCD", options).letter == "A"
    assert read_response("Ice Cream", "ABCD", options).letter == "D"
    assert read_response("ppang", "ABCD", options).letter is None  # a part is no match
    assert read_response("Dakjuk", "ABCD", ["Dakjuk", "x", "dakjuk", "y"]).letter is None  # two match
    assert read_response("B", "ABCD", options) == read_response("B", "ABCD").__class__("B", strict=True)


def test_counts_keep_the_official_strict_rule(tmp_path):
    rows = demo.kviscuit_gold(seed=0)[:6]
    gold = scoring.load_gold("kviscuit", demo.write_jsonl(tmp_path / "kv.jsonl", rows))
    letters = "ABCD"
    lines = [
        {"question_id": 0, "response": letters[rows[0]["answer"]]},  # official: one capital letter
        {"question_id": 1, "response": f"정답은 {letters[rows[1]['answer']]}입니다."},
        {"question_id": 2, "response": rows[2]["options"][rows[2]["answer"]]},
        {"question_id": 3, "response": "잘 모르겠습니다."},
        {"question_id": 4, "answer": "A"},
    ]
    result = scoring.score_file("kviscuit", gold, write_lines(tmp_path / "s.jsonl", lines))
    assert result.counts["unparsed"] == 1 and result.counts["lenient"] == 2
    assert result.overall["correct"] == 3 + (rows[4]["answer"] == 0)
    assert [(u.line, u.text) for u in result.unparsed_lines] == [(4, "잘 모르겠습니다.")]
    answers_only = scoring.score_file("kviscuit", gold, write_lines(tmp_path / "a.jsonl", lines[4:]))
    assert "lenient" not in answers_only.counts


# ---- the command line ----


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scoring", *args], capture_output=True, text=True, timeout=120)


def test_offline_validator_gives_the_servers_codes(paths, records, tmp_path):
    questions = str(paths[1])
    path = write_lines(tmp_path / "gemini.jsonl", gemini_lines(records))
    base = ["validate", "--benchmark", "scb", "--questions", questions, "--predictions", str(path)]
    wrong = run_cli(*base, "--json")
    assert wrong.returncode == 2
    assert json.loads(wrong.stdout.splitlines()[0])["errors"][0]["code"] == "suspect_bbox_format"
    right = run_cli(*base, "--bbox-format", "yxyx_1000")
    assert right.returncode == 0 and right.stdout.startswith("valid:")
    partial = write_lines(tmp_path / "partial.jsonl", gemini_lines(records)[:10])
    report = run_cli(*base[:-1], str(partial), "--bbox-format", "yxyx_1000", "--json")
    body = json.loads(report.stdout)
    assert report.returncode == 0 and body["answered"] == 10 and body["warnings"][0]["code"] == "too_few_answers"
    missing = str(paths[0].parent / "none.jsonl")
    broken = run_cli("validate", "--benchmark", "scb", "--questions", missing, "--predictions", str(path))
    assert broken.returncode == 1 and "question list" in broken.stderr


def test_the_result_carries_the_official_protocols_accuracy_beside_the_lenient_one(tmp_path):
    """issue 19: a K-Viscuit row read leniently ranks among the paper's strict-protocol rows, so
    the record says what the official run_vqa.py rule (exactly one capital letter) gives, overall
    and per group; an answer field counts as given (it is the team's own letter)."""
    rows = demo.kviscuit_gold(seed=0)[:8]
    gold = scoring.load_gold("kviscuit", demo.write_jsonl(tmp_path / "kv.jsonl", rows))
    right = ["ABCD"[r["answer"]] for r in rows]
    lines = [
        {"question_id": 0, "response": right[0]},  # strict, right
        {"question_id": 1, "response": f"Image {right[1]}"},  # lenient, right
        {"question_id": 2, "response": f"{right[2]}\n\nExplanation: it is."},  # lenient, right
        {"question_id": 3, "answer": right[3].lower()},  # an answer field: as given, right
        {"question_id": 4, "response": "ABCD"[(rows[4]["answer"] + 1) % 4]},  # strict, wrong
        {"question_id": 5, "response": "잘 모르겠습니다."},  # unparsed
    ]
    result = scoring.score_file("kviscuit", gold, write_lines(tmp_path / "s.jsonl", lines))
    assert result.counts["lenient"] == 2
    assert result.overall["acc"] == pytest.approx(100 * 4 / 8)
    assert result.overall["acc_strict"] == pytest.approx(100 * 2 / 8)
    for label, stats in result.groups["type"].items():
        members = [i for i, r in enumerate(rows) if str(r["question_type"]) == label]
        strict_right = [i for i in members if i in (0, 3)]
        assert stats["acc_strict"] == pytest.approx(100 * len(strict_right) / len(members))
    answers_only = scoring.score_file(
        "kviscuit", gold, write_lines(tmp_path / "a.jsonl", [{"question_id": 0, "answer": right[0]}])
    )
    assert answers_only.overall["acc_strict"] == answers_only.overall["acc"]


def test_only_a_benchmark_with_a_strict_protocol_carries_the_strict_figure(golds, tmp_path):
    assert scoring.get_benchmark("scb").strict_metric is None
    assert scoring.get_benchmark("kviscuit").strict_metric == "acc_strict"
