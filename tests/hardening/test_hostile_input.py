"""Hostile uploads through the real intake: each gets a clear error, nothing is lost, the
server (here: the Leaderboard object) keeps serving other users."""

from __future__ import annotations

import json
import resource
from pathlib import Path

import pytest

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from leaderboard.table import to_csv_bytes
from submissions.records import Identity, Status, SubmissionForm
from submissions.request import SubmitRequest
from tests.support import demo
from tests.support.proc_io import bytes_read

GOOD_USER = Identity("good-team")


@pytest.fixture(scope="module")
def board(tmp_path_factory) -> tuple[Leaderboard, list[dict]]:
    folder = tmp_path_factory.mktemp("hostile")
    gold = demo.scb_gold(sizes=(30, 30, 40))
    gold_path = folder / "gold.jsonl"
    demo.write_jsonl(gold_path, gold)
    # short hostile files on purpose: the coverage rule is tested in tests/submissions/test_checks.py
    lb = Leaderboard(
        Settings(data_dir=folder / "data", max_upload_bytes=20 * 1024 * 1024, max_attempts_per_day=1000, min_coverage=0)
    )
    lb.corrections.add_gold("scb", gold_path, "test")
    return lb, gold


def _submit(lb: Leaderboard, path: Path, user: str, **form):
    fields = {"model": "M", "team": user} | form
    return lb.submissions.submit(
        SubmitRequest("scb", path, SubmissionForm(**fields), Identity(user, is_maintainer=True), path.name)
    )


def _codes(outcome) -> set[str]:
    return {i.code for i in outcome.issues}


HOSTILE_LINES: dict[str, tuple[bytes, str, int]] = {
    # name: (file content, expected code, expected line)
    "not_utf8": ('{"question_id": "scb-00000", "answer": "Ä"}\n'.encode("latin-1"), "encoding", 1),
    "nul_byte": (b'{"question_id": "scb-00000",\x00 "answer": "A"}\n', "json_decode", 1),
    "nan": (b'{"question_id": "scb-00000", "answer": "A", "bbox": [NaN, 1, 2, 3]}\n', "non_finite_number", 1),
    "infinity": (b'{"question_id": "scb-00000", "answer": "A", "bbox": [0, 0, Infinity, 3]}\n', "non_finite_number", 1),
    "1e999": (b'{"question_id": "scb-00000", "answer": "A", "bbox": [0, 0, 1e999, 3]}\n', "non_finite_number", 1),
    "deep_nesting": (b"[" * 100_000 + b"]" * 100_000 + b"\n", "json_decode", 1),
    "long_line": (b'{"question_id": "' + b"x" * 10_000_000 + b'"}\n', "line_too_long", 1),
    "rle_bad_sum": (b'{"question_id": "scb-00000", "answer": "A", "mask": {"size": [1, 1], "counts": [5]}}\n', "", 1),
}


@pytest.mark.parametrize("name", list(HOSTILE_LINES))
def test_hostile_file_gets_a_clear_located_error(board, tmp_path, name):
    lb, _ = board
    content, code, line = HOSTILE_LINES[name]
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(content)
    out = _submit(lb, path, f"user-{name}")
    assert out.status is Status.REJECTED
    assert out.issues, out.message
    if code:
        assert (code, line) in {(i.code, i.line) for i in out.issues}
    else:  # the mask's size is checked before its counts: either is a clear, located error
        assert out.issues[0].line == line and out.issues[0].code in {"mask_size_mismatch", "bad_mask"}
    assert out.submission_id, "a rejected upload is still stored (nothing is lost)"


def test_million_lines_stop_early_with_a_count(board, tmp_path):
    lb, gold = board
    path = tmp_path / "million.jsonl"
    line = json.dumps({"question_id": gold[0]["question_id"], "answer": "A"}).encode() + b"\n"
    path.write_bytes(line * 60_000)  # under the 20 MB limit of this fixture, far over the line limit
    out = _submit(lb, path, "user-lines")
    assert out.status is Status.REJECTED
    assert "too_many_lines" in _codes(out) or out.total_issues > 20
    assert len(out.issues) <= 20 and out.total_issues >= len(out.issues)


def test_file_over_the_limit_is_refused_unread(board, tmp_path):
    lb, _ = board
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as f:  # sparse: 3 GB on paper, nothing on disk
        f.truncate(3 * 1024**3)
    before, read_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, bytes_read()
    out = _submit(lb, path, "user-huge")
    after, read_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, bytes_read()
    assert out.status is Status.REJECTED and "limit" in out.message
    assert [(i.code, i.line) for i in out.issues] == [("file_too_large", 0)]
    assert out.submission_id is None
    assert after - before < 100 * 1024, "the file must not be read into memory (ru_maxrss is in KiB)"
    assert read_after - read_before < 64 * 1024**2, "the file must not be read at all, not even to be hashed"


def test_huge_polygon_and_far_coordinates(board, tmp_path):
    lb, gold = board
    qid = gold[0]["question_id"]
    many = [[float(i % 50), float(i % 37)] for i in range(100_000)]
    far = [[-1e12, -1e12], [1e12, -1e12], [1e12, 1e12]]
    lines = [
        {"question_id": qid, "answer": gold[0]["answer"], "polygon": [many]},
        {"question_id": gold[1]["question_id"], "answer": gold[1]["answer"], "polygon": [far]},
    ]
    path = tmp_path / "poly.jsonl"
    demo.write_jsonl(path, lines)
    out = _submit(lb, path, "user-poly")
    assert {(i.code, i.line) for i in out.issues} == {("polygon_too_complex", 1), ("polygon_too_complex", 2)}


def test_self_intersecting_polygon_and_negative_box_score(board, tmp_path):
    lb, gold = board
    bowtie = [[0, 0, 100, 100, 100, 0, 0, 100]]
    lines = [
        {"question_id": gold[0]["question_id"], "answer": gold[0]["answer"], "polygon": bowtie},
        {"question_id": gold[1]["question_id"], "answer": gold[1]["answer"], "bbox": [-500, -500, 10, 10]},
    ]
    path = tmp_path / "odd.jsonl"
    demo.write_jsonl(path, lines)
    out = _submit(lb, path, "user-odd")
    assert out.status is Status.SCORED, out.issues
    assert 0 <= out.result.overall["miou"] <= 100


@pytest.mark.parametrize(
    "field,value,code",
    [
        ("paper_url", "javascript:alert(1)", "bad_url"),
        ("code_url", "data:text/html,<script>alert(1)</script>", "bad_url"),
        ("model", "x" * 5000, "field_too_long"),
        ("team", "", "field_required"),
    ],
)
def test_bad_form_fields_are_refused_and_not_stored(board, tmp_path, field, value, code):
    lb, gold = board
    path = tmp_path / "ok.jsonl"
    demo.write_jsonl(path, [{"question_id": gold[0]["question_id"], "answer": "A"}])
    out = _submit(lb, path, "user-form", **{field: value})
    assert out.status is Status.REJECTED and code in _codes(out)
    assert out.submission_id is None


def test_markup_in_names_is_stored_as_text_and_exports_are_formula_safe(board, tmp_path):
    lb, gold = board
    path = tmp_path / "names.jsonl"
    demo.write_jsonl(path, [{"question_id": g["question_id"], "answer": g["answer"]} for g in gold])
    name = '<script>alert("x")</script>=HYPERLINK("http://evil","click")'
    out = _submit(lb, path, "user-names", model=name, team="=cmd|' /C calc'!A0")
    assert out.status is Status.SCORED
    csv = to_csv_bytes(lb.table("scb")).decode()
    for line in csv.splitlines():
        for cell in line.split(","):
            assert not cell.strip('"').startswith(("=", "+", "@")), cell
    assert "'=cmd" in csv


def test_path_traversal_in_the_uploaded_file_name_goes_nowhere(board, tmp_path):
    lb, gold = board
    path = tmp_path / "ok.jsonl"
    demo.write_jsonl(path, [{"question_id": gold[0]["question_id"], "answer": "A"}])
    out = lb.submissions.submit(
        SubmitRequest("scb", path, SubmissionForm("M", "t"), Identity("user-path"), filename="../../../etc/passwd")
    )
    assert out.status is Status.SCORED
    meta = lb.catalog.get(out.submission_id).meta
    assert meta.filename == "passwd"
    root = lb.settings.data_dir.resolve()
    assert all(p.resolve().is_relative_to(root) for p in root.rglob("*"))


def test_other_users_are_unaffected(board, tmp_path):
    lb, gold = board
    path = tmp_path / "good.jsonl"
    demo.write_jsonl(path, [{"question_id": g["question_id"], "answer": g["answer"]} for g in gold])
    out = lb.submissions.submit(SubmitRequest("scb", path, SubmissionForm("Good", "good"), GOOD_USER))
    assert out.status is Status.SCORED and out.result.overall["acc"] == 100.0
