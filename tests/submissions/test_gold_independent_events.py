"""Team events do not depend on the gold (issue 29): a submission scored on one gold and
rejected on another (an older store's record of a correction, as-users 3c) keeps its
publication and its scored slot of the daily quota; only an upload never scored is free."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from scoring import SCORER_VERSION
from scoring.engine import ResultRecord
from scoring.errors import Issue
from store.layout import ResultKey, gold_key
from store.records import Publication, StoredRejection, StoredResult
from submissions.catalog import SubmissionState
from submissions.intake import Intake
from submissions.publications import ration, reveals
from submissions.quotas import QuotaPolicy
from submissions.records import Identity, SubmissionMeta

START = datetime(2026, 1, 1, tzinfo=UTC)
V1, V2 = "a" * 64, "b" * 64


def _state(i: int, scored_on: tuple[str, ...], rejected_on: tuple[str, ...]) -> SubmissionState:
    at = (START + timedelta(hours=i)).isoformat()
    meta = SubmissionMeta(f"s{i}", "scb", f"M{i}", "T", "open", "", "", "", "u", f"h{i}", "xyxy", at, 1,
                          visibility="private")  # fmt: skip
    state = SubmissionState(meta)
    for version in scored_on:
        record = ResultRecord("scb", version, SCORER_VERSION, {}, {"acc": 50.0}, {})
        state.results[ResultKey.of(version, SCORER_VERSION)] = StoredResult(meta.id, at, record)
    for version in rejected_on:
        issue = Issue("unknown_question_id", 3, "question_id", "unknown question_id 'scb-00011'")
        state.rejections[gold_key(version)] = StoredRejection((issue,), 1, at)
    state.publications[0] = Publication(True, "u", at, True)
    return state


def test_a_publication_stays_granted_when_another_gold_rejected_the_file() -> None:
    states = [_state(i, (V1,), (V2,)) for i in range(3)]
    granted = reveals(states, 3)
    assert sorted(granted) == ["s0", "s1", "s2"]  # before: none, and the ration was handed back
    assert not ration(states, granted, "T", "scb", 3, START + timedelta(days=1)).allows


def test_an_upload_never_scored_reveals_nothing() -> None:
    states = [_state(0, (), (V1,)), _state(1, (V1,), ())]
    assert sorted(reveals(states, 3)) == ["s1"]


class _Catalog:
    def __init__(self, states: list[SubmissionState]) -> None:
        self.states = states

    def by_submitter(self, submitter: str, benchmark: str | None = None) -> list[SubmissionState]:
        return [s for s in self.states if s.meta.submitter == submitter]

    def all(self, benchmark: str | None = None) -> list[SubmissionState]:
        return list(self.states)


def test_the_daily_quota_counts_a_file_scored_on_any_gold() -> None:
    states = [_state(i, (V1,), (V2,)) for i in range(5)]
    intake = Intake.__new__(Intake)  # only its quota: the catalog and the policy
    intake.catalog, intake.policy = _Catalog(states), QuotaPolicy(5, 20)
    status = intake.quota(Identity("u"), "scb", now=START + timedelta(hours=6), team="T")
    assert status.scored_used == 5 and not status.allows_submission  # before: 0 used, "5 of 5" again
