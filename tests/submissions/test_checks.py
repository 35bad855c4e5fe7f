"""Checks before a file costs a slot, through the facade: validate only, minimum coverage,
box-format sanity with confirmation, the form in the duplicate key, unparsed lines kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from leaderboard.service import Leaderboard
from scoring.benchmarks import get_benchmark
from submissions.records import Status, SubmissionForm
from submissions.request import SubmitRequest
from tests.support.scoring import with_options, write_lines
from tests.support.submissions import ALICE, board, small_gold, write_gold, write_submission


@pytest.fixture
def gold() -> list[dict]:
    return with_options(small_gold(), seed=2)


@pytest.fixture
def lb(tmp_path: Path, gold) -> Leaderboard:
    return board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl", gold))


def form(bbox_format: str = "xyxy", model: str = "M") -> SubmissionForm:
    return SubmissionForm(model=model, team="T", bbox_format=bbox_format)


def gemini(path: Path, gold: list[dict]) -> Path:
    """Right answers with Gemini ``box_2d`` boxes ([ymin, xmin, ymax, xmax], 0-1000)."""
    return write_lines(
        path, [{"question_id": r["question_id"], "answer": r["answer"], "bbox": [100, 200, 600, 900]} for r in gold]
    )


def test_validate_only_stores_and_counts_nothing(lb, tmp_path):
    before = lb.submissions.quota(ALICE, "scb").message()
    answer = lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "s.jsonl"), form(), ALICE, validate_only=True)
    )
    assert answer.status is Status.VALID and answer.result is None and answer.submission_id is None
    assert "nothing was scored or stored" in answer.message
    broken = tmp_path / "b.jsonl"
    broken.write_text('{"question_id": "scb-x", "answer": "A"}\n')
    refused = lb.submissions.submit(SubmitRequest("scb", broken, form(), ALICE, validate_only=True))
    assert refused.status is Status.REJECTED and refused.issues[0].code == "unknown_question_id"
    assert lb.catalog.all() == [] and lb.submissions.quota(ALICE, "scb").message() == before


def test_partial_files_validate_with_a_warning_but_are_not_scored(lb, gold, tmp_path):
    partial = write_lines(tmp_path / "p.jsonl", [{"question_id": r["question_id"], "answer": "A"} for r in gold[:50]])
    checked = lb.submissions.submit(SubmitRequest("scb", partial, form(), ALICE, validate_only=True)).to_api()
    assert checked["status"] == "valid"
    assert [w["code"] for w in checked["warnings"]] == ["too_few_answers", "no_grounding"]  # answers only, no box
    scored = lb.submissions.submit(SubmitRequest("scb", partial, form(), ALICE))
    assert scored.status is Status.REJECTED and scored.issues[0].code == "too_few_answers"
    assert scored.submission_id is None and lb.catalog.all() == []  # turned away, not stored


def test_coverage_rule_is_configurable(tmp_path, gold):
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl", gold), min_coverage=0.0)
    partial = write_lines(tmp_path / "p.jsonl", [{"question_id": r["question_id"], "answer": "A"} for r in gold[:50]])
    assert lb.submissions.submit(SubmitRequest("scb", partial, form(), ALICE)).status is Status.SCORED


def test_gemini_boxes_as_xyxy_are_stopped_then_the_right_format_is_scored(lb, gold, tmp_path):
    path = gemini(tmp_path / "g.jsonl", gold)
    wrong = lb.submissions.submit(SubmitRequest("scb", path, form("xyxy"), ALICE))
    assert wrong.status is Status.REJECTED and wrong.issues[0].code == "suspect_bbox_format"
    assert "Did you mean yxyx_1000" in wrong.issues[0].message and lb.catalog.all() == []
    right = lb.submissions.submit(SubmitRequest("scb", path, form("yxyx_1000"), ALICE))
    assert right.status is Status.SCORED and right.duplicate_of is None
    confirmed = lb.submissions.submit(SubmitRequest("scb", path, form("xyxy"), ALICE, confirm_box_format=True))
    assert confirmed.status is Status.SCORED and confirmed.duplicate_of is None  # another format: not a repeat
    assert confirmed.result.overall["miou"] != right.result.overall["miou"]
    again = lb.submissions.submit(SubmitRequest("scb", path, form("yxyx_1000"), ALICE))
    assert again.duplicate_of == right.submission_id


def test_the_form_is_part_of_the_duplicate_key(lb, tmp_path):
    path = write_submission(tmp_path / "s.jsonl")
    first = lb.submissions.submit(SubmitRequest("scb", path, form(model="A"), ALICE))
    renamed = lb.submissions.submit(SubmitRequest("scb", path, form(model="A-renamed"), ALICE))
    assert renamed.duplicate_of is None and renamed.submission_id != first.submission_id
    assert lb.submissions.submit(SubmitRequest("scb", path, form(model="A"), ALICE)).duplicate_of == first.submission_id


def test_unparsed_lines_are_kept_and_listed_for_the_submitter(lb, gold, tmp_path):
    lines = [{"question_id": r["question_id"], "answer": "A"} for r in gold]
    lines[4] = {"question_id": gold[4]["question_id"], "response": "I cannot tell which one."}
    lines[9] = {"question_id": gold[9]["question_id"], "response": "Image C shows it."}
    answer = lb.submissions.submit(SubmitRequest("scb", write_lines(tmp_path / "r.jsonl", lines), form(), ALICE))
    assert answer.to_api()["unparsed_lines"] == [{"line": 5, "text": "I cannot tell which one."}]
    assert answer.result.counts["unparsed"] == 1 and answer.result.counts["lenient"] == 1
    (state,) = lb.visibility.submissions_of(ALICE)
    lb.catalog.refresh()
    assert [(u.line, u.text) for u in lb.submissions.unparsed_lines(state)] == [(5, "I cannot tell which one.")]
    from ui.mine import MySubmissions

    row = MySubmissions(lb, None).unparsed(lb.visibility.entry(ALICE, state.meta.id))
    assert row["unparsed lines"] == 'line 5: "I cannot tell which one."'


def test_kviscuit_shows_no_box_format_and_scb_does():
    from ui.submit import grounding_fields

    scb_format, scb_confirm, scb_guide, scb_raw = grounding_fields("scb")
    kv_format, kv_confirm, kv_guide, kv_raw = grounding_fields("kviscuit")
    assert scb_format.visible and scb_confirm.visible and not kv_format.visible and not kv_confirm.visible
    assert scb_raw.visible and not kv_raw.visible  # the grounding_format dropdown too
    assert "What becomes public" in kv_guide and get_benchmark("kviscuit").example_lines[0] in kv_guide
    assert json.loads(get_benchmark("scb").example_lines[0])["question_id"] in scb_guide
