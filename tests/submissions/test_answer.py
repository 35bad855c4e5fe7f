"""One answer type: every ``/submit`` answer has the documented keys, and aggregates only."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from scoring import ResultRecord
from scoring.errors import Issue
from submissions.answer import API_KEYS, SubmitAnswer
from submissions.quotas import QuotaPolicy, QuotaStatus
from submissions.records import Status

README_KEYS = {
    "status",
    "message",
    "submission_id",
    "result",
    "rank",
    "errors",
    "total_errors",
    "quota",
    "duplicate_of",
    "warnings",
    "unparsed_lines",
    "reason",
    "notes",
}
"""The keys README "Submitting through the API" and docs/submitting.md document, written out independently."""

RESULT = ResultRecord(
    "scb", "g" * 64, "1.0.0", {"questions": 3}, {"acc": 50.0},
    {"type": {"1": {"acc": 50.0}}, "per_question": {"q1": {"correct": 1}}},
)  # fmt: skip
QUOTA = QuotaStatus(1, 1, QuotaPolicy(5, 20), datetime(2026, 1, 2, tzinfo=UTC))
ISSUE = Issue("bad_answer", 3, "answer", "bad")

ANSWERS = {
    "refused": SubmitAnswer.refused("Choose a predictions file."),
    "refused with issues": SubmitAnswer.refused("Please correct the form.", ISSUE, quota=QUOTA),
    "unavailable": SubmitAnswer.unavailable(QUOTA),
    **{status.value: SubmitAnswer.of(status, "sid") for status in Status if status is not Status.UNAVAILABLE},
    "scored": SubmitAnswer.of(Status.SCORED, "sid", result=RESULT).with_rank(4).with_quota(QUOTA),
    "duplicate": SubmitAnswer.of(Status.REJECTED, "sid", issues=[ISSUE], total_issues=30).as_duplicate(),
}


@pytest.mark.parametrize("name", list(ANSWERS))
def test_every_answer_has_every_documented_key(name: str) -> None:
    answer = ANSWERS[name].to_api()
    assert set(answer) == README_KEYS == set(API_KEYS)
    assert json.loads(json.dumps(answer)) == answer
    assert answer["status"] in {s.value for s in Status}


def test_the_result_is_aggregates_only_with_rank_quota_and_errors() -> None:
    answer = ANSWERS["scored"].to_api()
    assert answer["result"] == {
        "benchmark": "scb",
        "gold_version": "g" * 64,
        "scorer_version": "1.0.0",
        "counts": {"questions": 3},
        "overall": {"acc": 50.0},
        "type": {"1": {"acc": 50.0}},
    }  # fmt: skip  (per_question is not a declared grouping: never published)
    assert (answer["rank"], answer["quota"]) == (4, QUOTA.message())
    rejected = ANSWERS["duplicate"].to_api()
    assert rejected["errors"] == [{"line": 3, "field": "answer", "code": "bad_answer", "message": "bad"}]
    assert rejected["total_errors"] == 30 and "30 format error(s)" in rejected["message"]
    assert rejected["duplicate_of"] == "sid" and rejected["message"].startswith("This file was already submitted")


def test_no_gold_is_its_own_status_not_an_internal_failure() -> None:
    answer = ANSWERS["unavailable"]
    assert answer.status is Status.UNAVAILABLE and answer.submission_id is None
    assert "no gold" in answer.message and answer.to_api()["quota"] == QUOTA.message()
