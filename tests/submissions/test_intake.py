"""Taking in an upload (submissions/intake.py through the Leaderboard facade): store first,
then validate and score; broken files rejected with located issues; duplicates recognised;
form and size checked before anything is stored; raw file and record immutable."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from leaderboard.service import Leaderboard
from scoring import SCORER_VERSION
from store import layout
from store.base import AlreadyExists
from submissions.records import Identity, Status, SubmissionMeta
from submissions.request import SubmitRequest
from tests.support.submissions import (
    ALICE,
    N_QUESTIONS,
    board,
    files_of,
    form,
    scored,
    submission_ids,
    write_broken,
    write_gold,
    write_submission,
)


def test_valid_submission_is_scored_with_a_result_record(lb: Leaderboard, tmp_path: Path) -> None:
    path = write_submission(tmp_path / "sub.jsonl", accuracy=0.5, grounding="bbox_good")
    out = lb.submissions.submit(SubmitRequest("scb", path, form("M-1", "Team A"), ALICE, "sub.jsonl"))
    assert out.status is Status.SCORED and out.message == "Scored."
    assert out.result is not None and out.result.overall["acc"] == pytest.approx(50.0)
    assert out.result.counts["questions"] == N_QUESTIONS and out.issues == ()
    assert out.quota is not None and out.quota.scored_left == 4 and out.quota.attempts_left == 19
    gold = lb.gold_info("scb").version
    stored = json.loads(lb.store.read("submissions", layout.result("scb", out.submission_id, gold, SCORER_VERSION)))
    assert stored["submission_id"] == out.submission_id
    assert stored["result"] == out.result.to_dict()
    assert lb.submissions.status(lb.catalog.get(out.submission_id)) is Status.SCORED
    assert list(scored(lb)["model"]) == ["M-1"]


def test_broken_file_is_rejected_with_located_issues_stored_and_shown(lb: Leaderboard, tmp_path: Path) -> None:
    path = write_broken(tmp_path / "broken.jsonl")
    out = lb.submissions.submit(SubmitRequest("scb", path, form(), ALICE, "broken.jsonl"))
    assert out.status is Status.REJECTED and out.result is None
    expected = [("json_decode", 2), ("unknown_question_id", 3), ("bad_answer", 4)]
    assert [(i.code, i.line) for i in out.issues] == expected
    assert out.total_issues == 3 and "3 format error(s)" in out.message
    # stored beside the upload, for this gold version ...
    gold = lb.gold_info("scb").version
    body = json.loads(lb.store.read("submissions", layout.rejected("scb", out.submission_id, gold)))
    assert [(i["code"], i["line"]) for i in body["issues"]] == expected and body["total"] == 3
    assert files_of(lb.store, "scb", out.submission_id, "result-") == []
    # ... and shown again after a restart (the maintainers' list, the submitter's own list)
    again = Leaderboard(lb.settings)
    [state] = again.corrections.rejected("scb")
    assert state.meta.id == out.submission_id and again.submissions.status(state) is Status.REJECTED
    assert [(i.code, i.line) for i in state.rejection(gold).issues] == expected
    assert [s.meta.id for s in again.visibility.submissions_of(ALICE)] == [out.submission_id]
    assert scored(again).empty


def test_same_file_twice_by_a_team_is_a_duplicate_and_costs_nothing(lb: Leaderboard, tmp_path: Path) -> None:
    path = write_submission(tmp_path / "sub.jsonl")
    first = lb.submissions.submit(SubmitRequest("scb", path, form(), ALICE))
    again = lb.submissions.submit(SubmitRequest("scb", path, form(), ALICE))
    assert again.duplicate_of == first.submission_id == again.submission_id
    assert again.status is Status.SCORED and again.result == first.result
    assert "already submitted" in again.message
    assert again.quota.scored_used == 1 and again.quota.attempts_used == 1
    assert submission_ids(lb.store) == [first.submission_id]
    # the same bytes under another name are the same file
    copy = tmp_path / "renamed.jsonl"
    copy.write_bytes(path.read_bytes())
    assert (
        lb.submissions.submit(SubmitRequest("scb", copy, form(), ALICE, "renamed.jsonl")).duplicate_of
        == first.submission_id
    )
    # another team of the same submitter, or another submitter (under a team of its own: the
    # name "Team" is alice's, tests/submissions/test_teams.py), is a new submission
    other_team = lb.submissions.submit(SubmitRequest("scb", path, form(team="Other team"), ALICE))
    other_user = lb.submissions.submit(SubmitRequest("scb", path, form(team="Bob team"), Identity("bob")))
    assert other_team.duplicate_of is None and other_user.duplicate_of is None
    assert len(submission_ids(lb.store)) == 3


def test_duplicate_of_a_rejected_file_shows_its_issues_again(lb: Leaderboard, tmp_path: Path) -> None:
    path = write_broken(tmp_path / "broken.jsonl")
    first = lb.submissions.submit(SubmitRequest("scb", path, form(), ALICE))
    again = lb.submissions.submit(SubmitRequest("scb", path, form(), ALICE))
    assert again.duplicate_of == first.submission_id and again.status is Status.REJECTED
    assert [(i.code, i.line) for i in again.issues] == [(i.code, i.line) for i in first.issues]
    assert again.total_issues == 3 and again.quota.attempts_used == 1


@pytest.mark.parametrize(
    ("changes", "code", "field"),
    [
        ({"model": ""}, "field_required", "model"),
        ({"model": " \t\n "}, "field_required", "model"),
        ({"team": ""}, "field_required", "team"),
        ({"paper_url": "javascript:alert(1)"}, "bad_url", "paper_url"),
        ({"code_url": "JavaScript:alert(document.cookie)"}, "bad_url", "code_url"),
        ({"code_url": "ftp://example.org/x"}, "bad_url", "code_url"),
        ({"paper_url": 'https://example.org/"><script>'}, "bad_url", "paper_url"),
        ({"model_type": "weights"}, "bad_model_type", "model_type"),
        ({"model": "m" * 101}, "field_too_long", "model"),
        ({"team": "t" * 101}, "field_too_long", "team"),
        ({"description": "d" * 1001}, "field_too_long", "description"),
        ({"paper_url": "https://example.org/" + "p" * 300}, "field_too_long", "paper_url"),
        ({"bbox_format": "xyzw"}, "unknown_bbox_format", "bbox_format"),
    ],
)
def test_form_is_checked_before_anything_is_stored(
    lb: Leaderboard, tmp_path: Path, changes: dict, code: str, field: str
) -> None:
    path = write_submission(tmp_path / "sub.jsonl")
    values = {"model": "Model", "team": "Team"} | changes
    out = lb.submissions.submit(SubmitRequest("scb", path, form(**values), ALICE))
    assert out.status is Status.REJECTED and out.submission_id is None
    assert (code, field) in [(i.code, i.field) for i in out.issues]
    assert all(i.line == 0 for i in out.issues)
    assert lb.store.list("submissions") == []
    assert lb.submissions.quota(ALICE, "scb").attempts_used == 0


def test_form_text_is_cleaned_and_good_urls_kept(lb: Leaderboard, tmp_path: Path) -> None:
    path = write_submission(tmp_path / "sub.jsonl")
    messy = form(
        "  Model\u202e\x00  X\n",
        "Team\tA",
        model_type=" API ",
        paper_url="https://arxiv.org/abs/2401.00001",
        code_url="http://example.org/code",
    )
    out = lb.submissions.submit(SubmitRequest("scb", path, messy, ALICE, "../../etc/passwd"))
    assert out.status is Status.SCORED
    meta = lb.catalog.get(out.submission_id).meta
    assert (meta.model, meta.team, meta.model_type) == ("Model X", "Team A", "api")
    assert meta.paper_url == "https://arxiv.org/abs/2401.00001" and meta.code_url == "http://example.org/code"
    assert meta.filename == "passwd"


def test_file_over_the_size_limit_is_refused_without_being_stored(tmp_path: Path) -> None:
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"), max_upload_bytes=2_000)
    path = write_submission(tmp_path / "big.jsonl")
    assert path.stat().st_size > 2_000
    out = lb.submissions.submit(SubmitRequest("scb", path, form(), ALICE))
    assert out.status is Status.REJECTED and out.submission_id is None
    assert "limit" in out.message
    assert lb.store.list("submissions") == []
    assert lb.submissions.quota(ALICE, "scb").attempts_used == 0


def test_unknown_benchmark_and_missing_gold(tmp_path: Path) -> None:
    lb = board(tmp_path / "data")
    path = write_submission(tmp_path / "sub.jsonl")
    assert lb.submissions.submit(SubmitRequest("nope", path, form(), ALICE)).status is Status.REJECTED
    no_gold = lb.submissions.submit(SubmitRequest("scb", path, form(), ALICE))
    assert no_gold.status is Status.UNAVAILABLE and "no gold" in no_gold.message  # not an internal error
    assert no_gold.quota is not None and no_gold.quota.attempts_used == 0
    assert lb.store.list("submissions") == []


def test_raw_file_and_meta_are_stored_byte_exact_and_immutable(lb: Leaderboard, tmp_path: Path) -> None:
    path = write_submission(tmp_path / "sub.jsonl")
    data = path.read_bytes().replace(b"\n", b"\r\n") + b"\n\n"  # odd but valid bytes, kept as is
    path.write_bytes(data)
    out = lb.submissions.submit(SubmitRequest("scb", path, form("Mödel ✓", "Téam"), ALICE, "sub.jsonl"))
    assert out.status is Status.SCORED
    sid = out.submission_id
    raw_path, meta_path = layout.raw("scb", sid), layout.meta("scb", sid)
    assert lb.store.read("submissions", raw_path) == data
    meta_bytes = lb.store.read("submissions", meta_path)
    meta = SubmissionMeta.from_bytes(meta_bytes, meta_path)
    assert meta.to_bytes() == meta_bytes
    assert (meta.id, meta.benchmark, meta.submitter, meta.filename) == (sid, "scb", "alice", "sub.jsonl")
    assert (meta.model, meta.team) == ("Mödel ✓", "Téam")
    assert meta.sha256 == hashlib.sha256(data).hexdigest() and meta.size_bytes == len(data)
    # create-only: the same bytes again are a no-op, other bytes raise and change nothing
    lb.store.put("submissions", {raw_path: data}, "retry")
    for target, other in ((raw_path, data + b"x"), (meta_path, meta_bytes.replace(b"alice", b"mallory"))):
        with pytest.raises(AlreadyExists):
            lb.store.put("submissions", {target: other}, "tamper")
    assert lb.store.read("submissions", raw_path) == data
    assert lb.store.read("submissions", meta_path) == meta_bytes
    # and the raw file is exactly what was hashed and scored: a restart rescoring it agrees
    again = Leaderboard(lb.settings)
    assert again.catalog.get(sid).result(lb.gold_info("scb").version, SCORER_VERSION) == out.result
