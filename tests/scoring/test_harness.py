"""Harness files read as they are (issue 23) and whole-file shapes named once (issue 22).

lmms-eval samples as lmms-eval 0.7.3 wrote them are tested in test_lmms_eval_files.py (issue 28:
the imitations here had invented a per-document ``doc_hash`` and an SCB prompt lmms-eval never
sends), and VLMEvalKit's as VLMEvalKit 0.0.20 wrote them in test_vlmevalkit_files.py (the rows
built here by hand went); what stays here is the older lmms-eval v0.3 shape (``doc`` kept, ``resps``
lists) of K-Viscuit (the official annotations), scored exactly as the same responses in our JSON
Lines, and the whole-file shapes.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest

import scoring
from scoring.benchmarks.kviscuit.declaration import public_questions as kv_public
from scoring.benchmarks.scb.declaration import public_questions as scb_public
from scoring.readers import harness_files as harness
from tests.support.scoring import REAL_KVISCUIT, SYNTHETIC_SCB, write_lines

PHRASINGS = (
    "{}",
    "Image {}",
    "The answer is ({}).",
    "{}\n\nExplanation: the image shows it.",
    "**{}**",
    "I cannot tell.",
)


def _questions(bench: str) -> list[dict]:
    path = REAL_KVISCUIT if bench == "kviscuit" else SYNTHETIC_SCB
    if not path.is_file():
        pytest.skip(f"shared data not found at {path}")
    return kv_public(path) if bench == "kviscuit" else scb_public(path)


@pytest.fixture(scope="module")
def scb_gold() -> scoring.Gold:
    if not SYNTHETIC_SCB.is_file():
        pytest.skip(f"synthetic SCB gold not found at {SYNTHETIC_SCB}")
    return scoring.load_gold("scb", SYNTHETIC_SCB)


def _responses(questions: list[dict]) -> list[str]:
    """A model's raw texts: every phrasing in turn, letters cycling (some right, some wrong)."""
    return [PHRASINGS[k % len(PHRASINGS)].format("ABCD"[(k * 7) % 4]) for k in range(len(questions))]


def _ours(questions: list[dict], responses: list[str]) -> list[dict]:
    return [{"question_id": q["question_id"], "response": r} for q, r in zip(questions, responses, strict=True)]


def _prompt(q: dict) -> str:
    """The K-Viscuit prompt of run_vqa.py (options indented), as a task's doc_to_text would build it."""
    options = "".join(f"\n    {letter}. {o}" for letter, o in zip("ABCD", q.get("options") or [], strict=False))
    return f"{q.get('question', '')}{options}\n    Answer with the option's letter from the given choices directly."


def lmms_v03(questions: list[dict], responses: list[str]) -> list[dict]:
    """v0.3: doc kept (non-media fields), arguments as generation kwargs, resps a list of lists."""
    return [
        {
            "doc_id": k, "doc": q, "target": "", "arguments": {"gen_args_0": {"arg_0": _prompt(q), "arg_1": {}}},
            "resps": [[r]], "filtered_resps": [r], "doc_hash": "x", "prompt_hash": "x", "target_hash": "y",
            "input": _prompt(q),
        }
        for k, (q, r) in enumerate(zip(questions, responses, strict=True))
    ]  # fmt: skip


def write_tsv(path: Path, rows: list[dict]) -> Path:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), delimiter="\t", quoting=csv.QUOTE_ALL)
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path


def _same(bench: str, gold: scoring.Gold, ours: Path, theirs: Path) -> scoring.ResultRecord:
    expected = scoring.score_file(bench, gold, ours)
    got = scoring.score_file(bench, gold, theirs)
    assert got.to_dict() == expected.to_dict()
    assert got.unparsed_lines == expected.unparsed_lines  # records and lines coincide in these files
    return got


@pytest.mark.parametrize("shape", ["lmms-v0.3"])
def test_kviscuit_harness_files_score_as_our_jsonl(shape, kviscuit_real_gold, tmp_path):
    """VLMEvalKit's own files (xlsx, tsv, json) are tested as VLMEvalKit wrote them in test_vlmevalkit_files.py."""
    questions = _questions("kviscuit")
    responses = _responses(questions)
    ours = write_lines(tmp_path / "ours.jsonl", _ours(questions, responses))
    theirs = write_lines(tmp_path / "samples_kviscuit.jsonl", lmms_v03(questions, responses))
    result = _same("kviscuit", kviscuit_real_gold, ours, theirs)
    assert result.counts["lenient"] > 0 and result.counts["unparsed"] == len(questions) // len(PHRASINGS)


def test_the_published_order_is_the_gold_key_order(scb_gold, kviscuit_real_gold):
    assert [q["question_id"] for q in _questions("scb")] == scb_gold.keys
    assert [q["question_id"] for q in _questions("kviscuit")] == kviscuit_real_gold.keys


def test_a_v03_doc_naming_another_question_is_refused(kviscuit_real_gold, tmp_path):
    questions = _questions("kviscuit")
    samples = lmms_v03(questions, _responses(questions))
    samples[2]["doc"] = dict(samples[2]["doc"], question_id=5)
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("kviscuit", kviscuit_real_gold, write_lines(tmp_path / "s.jsonl", samples))
    assert [(i.line, i.code) for i in e.value.issues] == [(3, "harness_doc")]


# ---- whole-file shapes: one message, or read (as-users.md #15) ----


def _one_issue(bench: str, gold: scoring.Gold, path: Path) -> str:
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file(bench, gold, path)
    assert e.value.total == 1, e.value.summary()
    assert e.value.issues[0].code == "file_shape"
    return e.value.issues[0].message


def test_a_json_array_of_our_lines_is_read(kviscuit_real_gold, tmp_path):
    questions = _questions("kviscuit")
    lines = _ours(questions, _responses(questions))
    ours = write_lines(tmp_path / "ours.jsonl", lines)
    array = tmp_path / "kv_array.json"
    array.write_text(json.dumps(lines, indent=2), encoding="utf-8")  # 2,315 json_decode errors before
    _same("kviscuit", kviscuit_real_gold, ours, array)


def test_a_csv_of_our_columns_is_read(kviscuit_real_gold, tmp_path):
    questions = _questions("kviscuit")
    lines = [{"question_id": q["question_id"], "answer": "ABCD"[k % 4]} for k, q in enumerate(questions)]
    ours = write_lines(tmp_path / "ours.jsonl", lines)
    table = tmp_path / "kv.csv"
    table.write_text("question_id,answer\n" + "".join(f"{x['question_id']},{x['answer']}\n" for x in lines))
    _same("kviscuit", kviscuit_real_gold, ours, table)


def test_scb_csv_with_boxes_as_json_cells_is_read(scb_gold, tmp_path):
    questions = _questions("scb")[:40]
    lines = [{"question_id": q["question_id"], "answer": "A", "bbox": [1, 2, 30, 40]} for q in questions]
    ours = write_lines(tmp_path / "ours.jsonl", lines)
    table = tmp_path / "scb.csv"
    table.write_text("question_id,answer,bbox\n" + "".join(f'{x["question_id"]},A,"[1, 2, 30, 40]"\n' for x in lines))
    assert scoring.score_file("scb", scb_gold, table).to_dict() == scoring.score_file("scb", scb_gold, ours).to_dict()


@pytest.mark.parametrize(
    ("name", "body", "says"),
    [
        ("array.json", json.dumps([{"id": 1, "pred": "A"}, {"id": 2, "pred": "B"}]), "JSON array"),
        ("doc.json", json.dumps({"0": "A", "1": "B"}, indent=2), "one JSON object"),
        ("results.json", json.dumps({"results": {"kviscuit": {}}, "configs": {}}, indent=2), "samples_<task>.jsonl"),
        ("table.csv", "id,pred\n0,A\n1,B\n", "columns 'id', 'pred'"),
        ("table.tsv", "qid\tguess\n0\tA\n", "TSV table"),
    ],
)  # fmt: skip
def test_other_shapes_get_one_message(name, body, says, kviscuit_real_gold, tmp_path):
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    assert says in _one_issue("kviscuit", kviscuit_real_gold, path)


def test_an_excel_workbook_without_openpyxl_says_what_to_do(kviscuit_real_gold, tmp_path, monkeypatch):
    from tests.scoring.test_vlmevalkit_files import KVISCUIT  # the workbook VLMEvalKit wrote

    monkeypatch.setitem(sys.modules, "openpyxl", None)  # import openpyxl now raises ImportError
    message = _one_issue("kviscuit", kviscuit_real_gold, KVISCUIT)
    assert "openpyxl" in message and "TSV" in message


def test_our_jsonl_is_returned_untouched(kviscuit_real_gold):
    data = b'{"question_id": 0, "answer": "A"}\n'
    assert harness.as_submission(scoring.get_benchmark("kviscuit"), kviscuit_real_gold, data, 10**6) is data
    broken = b"[1, 2]\n" + data  # a first line that is an array, then lines: still read line by line
    assert harness.as_submission(scoring.get_benchmark("kviscuit"), kviscuit_real_gold, broken, 10**6) is broken


def test_lines_of_another_shape_are_one_issue_naming_their_fields(scb_gold, tmp_path):
    """as-users.md #15: raw harness lines gave 3,178 x 'needs an answer or a response'."""
    questions = _questions("scb")
    lines = [
        {"question_id": q["question_id"], "stage1": "C", "chosen": "C", "stage2": "[1, 2, 3, 4]"} for q in questions
    ]
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("scb", scb_gold, write_lines(tmp_path / "raw.jsonl", lines))
    assert e.value.total == 1 and e.value.issues[0].code == "missing_fields"
    assert "'stage1', 'chosen', 'stage2'" in e.value.issues[0].message
    keyless = [{"qid": q["question_id"], "answer": "A"} for q in questions]
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("scb", scb_gold, write_lines(tmp_path / "keyless.jsonl", keyless))
    assert e.value.total == 1 and "no line has 'question_id'" in e.value.issues[0].message


def test_positions_counted_from_one_are_one_error(scb_gold, tmp_path):
    """SCB's A-D are images, so no prompt check can see a shift: positions 1..n are one error."""
    from tests.scoring.test_vlmevalkit_files import SCB_STAGE1, rows_of  # the workbook VLMEvalKit wrote

    rows = [dict(r, index=r["index"] + 1) for r in rows_of(SCB_STAGE1)]  # its rows, counted from 1
    path = write_tsv(tmp_path / "p.tsv", rows)
    message = _one_issue("scb", scb_gold, path)
    assert "count positions from 1" in message and f"0-{scb_gold.size - 1}" in message


def test_reading_a_small_table_does_not_lower_the_process_csv_limit(kviscuit_real_gold):
    """csv.field_size_limit is process-wide: a 15-byte table once set it to 15 and broke the
    board's CSV export in the same process (tests/leaderboard/test_table.py)."""
    before = csv.field_size_limit()
    harness.as_submission(scoring.get_benchmark("kviscuit"), kviscuit_real_gold, b"question_id,answer\n0,A\n", 10**6)
    assert csv.field_size_limit() >= before
