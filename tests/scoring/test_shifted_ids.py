"""K-Viscuit ids off by one (issue 19, as-users.md #9): a wholly shifted file is one whole-file
error that says so, judged from the ids and the echoed ``id_`` only (public facts), never a
misleading "did you mean 67?" nor a silent "Valid"."""

from __future__ import annotations

import pytest

import scoring
from scoring.validation import check_file
from tests.support.scoring import write_lines


def _answers(gold: scoring.Gold, shift: int, echo: bool, drop_out_of_range: bool = False) -> list[dict]:
    lines = []
    for row in range(gold.size):
        key = row + shift
        if drop_out_of_range and not 0 <= key < gold.size:
            continue
        line = {"question_id": key, "answer": "ABCD"[row % 4]}
        if echo:
            line["id_"] = gold.extra["id_"][row]
        lines.append(line)
    return lines


def _issues(gold, lines, tmp_path) -> scoring.SubmissionError:
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("kviscuit", gold, write_lines(tmp_path / "sub.jsonl", lines))
    return e.value


def test_a_one_based_file_is_one_whole_file_error(kviscuit_real_gold, tmp_path):
    error = _issues(kviscuit_real_gold, _answers(kviscuit_real_gold, 1, echo=False), tmp_path)
    assert error.total == 1
    (issue,) = error.issues
    assert (issue.code, issue.line) == ("shifted_question_ids", 0)
    assert "1-657" in issue.message and "0-656" in issue.message and "subtract 1" in issue.message
    assert "did you mean" not in error.summary()


def test_a_one_based_file_without_its_last_line_is_caught_by_its_echoed_ids(kviscuit_real_gold, tmp_path):
    """as-users.md #9: drop line 657 and the shifted file passed as Valid (656 of 657)."""
    lines = _answers(kviscuit_real_gold, 1, echo=True, drop_out_of_range=True)
    error = _issues(kviscuit_real_gold, lines, tmp_path)
    assert error.total == 1
    (issue,) = error.issues
    assert issue.code == "shifted_question_ids" and "id_" in issue.message and "subtract 1" in issue.message


def test_ids_one_too_low_are_named_too(kviscuit_real_gold, tmp_path):
    lines = _answers(kviscuit_real_gold, -1, echo=True, drop_out_of_range=True)
    error = _issues(kviscuit_real_gold, lines, tmp_path)
    assert [i.code for i in error.issues] == ["shifted_question_ids"] and "add 1" in error.issues[0].message


def test_the_offline_validator_says_the_same(kviscuit_real_records, kviscuit_real_gold, tmp_path):
    from scoring.benchmarks.kviscuit.declaration import public_questions
    from tests.support.scoring import REAL_KVISCUIT

    listed = write_lines(tmp_path / "questions.jsonl", public_questions(REAL_KVISCUIT))
    questions = scoring.load_questions("kviscuit", listed)
    path = write_lines(tmp_path / "sub.jsonl", _answers(kviscuit_real_gold, 1, echo=True, drop_out_of_range=True))
    with pytest.raises(scoring.SubmissionError) as e:
        check_file("kviscuit", questions, path)
    assert [i.code for i in e.value.issues] == ["shifted_question_ids"]


def test_right_ids_and_a_few_wrong_ones_are_not_called_shifted(kviscuit_real_gold, tmp_path):
    gold = kviscuit_real_gold
    assert scoring.validate_file("kviscuit", gold, write_lines(tmp_path / "ok.jsonl", _answers(gold, 0, echo=True)))
    lines = _answers(gold, 0, echo=True)
    lines[5]["question_id"] = 6  # one line with the next row's id: a duplicate and an id_ mismatch, not a shift
    error = _issues(gold, lines, tmp_path)
    assert "shifted_question_ids" not in {i.code for i in error.issues}
    partial = _answers(gold, 0, echo=False)[1:]  # question 0 missing alone: nothing says the ids are shifted
    assert scoring.validate_file("kviscuit", gold, write_lines(tmp_path / "p.jsonl", partial)).answered == 656


def test_one_id_past_the_end_gets_the_range_not_a_near_spelling(kviscuit_real_gold, tmp_path):
    lines = _answers(kviscuit_real_gold, 0, echo=False) + [{"question_id": 657, "answer": "A"}]
    error = _issues(kviscuit_real_gold, lines, tmp_path)
    assert [i.message for i in error.issues] == ["unknown question_id '657'; ids here are the row indices 0-656"]
