"""The lifecycle of a stored submission: received -> validated -> scored, or rejected, or failed
(internal error, retried up to MAX_FAILURES); results keyed by (submission, gold, scorer) and
added, never overwritten, by a rescore."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from leaderboard.service import Leaderboard
from scoring import SCORER_VERSION
from store import layout
from store.base import StoreError
from submissions import intake, lifecycle
from submissions import reading as reading_jobs
from submissions.answer import SubmitAnswer
from submissions.lifecycle import MAX_FAILURES
from submissions.reading import reading_file
from submissions.records import Status
from submissions.request import SubmitRequest
from tests.support.submissions import (
    ALICE,
    MAINTAINER,
    files_of,
    flipped_gold,
    form,
    scored,
    small_gold,
    snapshot,
    write_broken,
    write_gold,
    write_submission,
)


def failure_name(lb: Leaderboard, n: int) -> str:
    return layout.failure("scb", "x", lb.gold_info("scb").version, n).split("/")[-1]


def _status(lb: Leaderboard, sid: str) -> Status:
    return lb.submissions.status(lb.catalog.get(sid))


def test_received_then_resume_scores_it(lb: Leaderboard, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def stored_only(store, catalog, meta, *args, **kwargs) -> SubmitAnswer:  # stops after storing
        return SubmitAnswer.of(Status.RECEIVED, meta.id)

    monkeypatch.setattr(intake, "process", stored_only)
    out = lb.submissions.submit(SubmitRequest("scb", write_submission(tmp_path / "s.jsonl"), form(), ALICE))
    assert out.status is Status.RECEIVED and "pending" in out.message
    sid = out.submission_id
    reading = reading_file(lb.catalog.get(sid).meta, lb.golds.get("scb"), lb.limits).path.split("/")[-1]
    assert files_of(lb.store, "scb", sid) == ["meta.json", reading, "submission.jsonl"]  # one durable write
    assert _status(lb, sid) is Status.RECEIVED and scored(lb).empty
    monkeypatch.undo()
    restarted = Leaderboard(lb.settings)
    assert _status(restarted, sid) is Status.RECEIVED
    assert restarted.corrections.resume() == 1
    assert _status(restarted, sid) is Status.SCORED
    assert len(files_of(restarted.store, "scb", sid, "result-")) == 1
    assert list(scored(restarted)["model"]) == ["Model"]
    assert restarted.corrections.resume() == 0


def test_validated_then_resume_scores_it(lb: Leaderboard, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Validated, then the result could not be written (an internal error): VALIDATED, retried."""
    real_put = lb.store.put

    def put(repo, files, message, *, overwrite=False, durable=False):
        if any("/result-" in p for p in files):
            raise StoreError("disk full")
        return real_put(repo, files, message, overwrite=overwrite, durable=durable)

    monkeypatch.setattr(lb.store, "put", put)
    out = lb.submissions.submit(SubmitRequest("scb", write_submission(tmp_path / "s.jsonl"), form(), ALICE))
    sid = out.submission_id
    assert out.status is Status.FAILED and "retried" in out.message
    assert files_of(lb.store, "scb", sid, "validated-") and files_of(lb.store, "scb", sid, "failure-") == [
        failure_name(lb, 1)
    ]
    assert _status(lb, sid) is Status.VALIDATED
    monkeypatch.undo()
    assert lb.corrections.resume() == 1
    assert _status(lb, sid) is Status.SCORED and len(files_of(lb.store, "scb", sid, "result-")) == 1


def test_rejected_is_final_and_not_retried(lb: Leaderboard, tmp_path: Path) -> None:
    out = lb.submissions.submit(SubmitRequest("scb", write_broken(tmp_path / "b.jsonl"), form(), ALICE))
    assert out.status is Status.REJECTED and _status(lb, out.submission_id) is Status.REJECTED
    assert lb.corrections.resume() == 0
    assert files_of(lb.store, "scb", out.submission_id, "validated-") == []


def _boom(*args, **kwargs):
    raise RuntimeError("scorer crashed")


def test_internal_error_is_recorded_retried_then_failed(
    lb: Leaderboard, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading_jobs, "score_predictions", _boom)  # where scoring runs
    out = lb.submissions.submit(SubmitRequest("scb", write_submission(tmp_path / "s.jsonl"), form(), ALICE))
    sid = out.submission_id
    assert out.status is Status.FAILED and out.result is None and out.issues == ()
    gold = lb.gold_info("scb").version
    failure = json.loads(lb.store.read("submissions", layout.failure("scb", sid, gold, 1)))
    assert "RuntimeError: scorer crashed" in failure["error"] and failure["at"]
    assert _status(lb, sid) is Status.RECEIVED  # not given up yet: resume retries
    for n in range(2, MAX_FAILURES + 1):
        assert lb.corrections.resume() == 1
        assert lb.store.exists("submissions", layout.failure("scb", sid, gold, n))
    assert _status(lb, sid) is Status.FAILED
    assert Leaderboard(lb.settings).submissions.status(lb.catalog.get(sid)) is Status.FAILED
    assert lb.corrections.resume() == 0  # given up: no more failure files
    assert files_of(lb.store, "scb", sid, "failure-") == [failure_name(lb, n) for n in range(1, MAX_FAILURES + 1)]
    assert scored(lb).empty
    # failures count per gold version: a corrected gold gives the submission a new chance
    monkeypatch.undo()
    changed = small_gold()
    changed[0]["answer"] = "ABCD"[("ABCD".index(changed[0]["answer"]) + 1) % 4]
    lb.corrections.add_gold("scb", write_gold(tmp_path / "gold-v2.jsonl", changed), "maintainer")
    assert _status(lb, sid) is Status.FAILED  # the new gold is staged: the board's gold is still the old one
    assert lb.catalog.get(sid).result(lb.corrections.staged_gold("scb").version, SCORER_VERSION) is not None
    assert (
        lb.corrections.resume() == 0 and _status(lb, sid) is Status.SCORED
    )  # scored on the staged gold by its preview (issue 40 item 3); resume switched the board to it


def test_a_retry_after_a_transient_failure_scores(
    lb: Leaderboard, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading_jobs, "score_predictions", _boom)  # where scoring runs
    sid = lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "s.jsonl"), form(), ALICE)
    ).submission_id
    monkeypatch.undo()
    assert lb.corrections.resume() == 1
    assert _status(lb, sid) is Status.SCORED
    assert files_of(lb.store, "scb", sid, "failure-") == [failure_name(lb, 1)]
    assert list(scored(lb)["model"]) == ["Model"]


def test_process_is_idempotent(lb: Leaderboard, tmp_path: Path) -> None:
    out = lb.submissions.submit(SubmitRequest("scb", write_submission(tmp_path / "s.jsonl"), form(), ALICE))
    state = lb.catalog.get(out.submission_id)
    gold = lb.golds.get("scb")
    before = snapshot(lb.store)
    again = lifecycle.process(lb.store, lb.catalog, state.meta, gold, lb.limits)
    assert again.status is Status.SCORED and again.result == out.result
    fresh = Leaderboard(lb.settings)  # a second writer that has not seen the result yet
    fresh.catalog._states[out.submission_id].results.clear()
    lifecycle.process(fresh.store, fresh.catalog, state.meta, gold, fresh.limits)
    assert snapshot(lb.store) == before


def test_rescore_adds_results_and_never_overwrites(lb: Leaderboard, tmp_path: Path) -> None:
    gold = small_gold()
    lines = {
        "high": write_submission(tmp_path / "high.jsonl", gold, accuracy=0.7, grounding="bbox_good", seed=1),
        "low": write_submission(tmp_path / "low.jsonl", gold, accuracy=0.6, seed=2),
    }
    ids = {
        name: lb.submissions.submit(SubmitRequest("scb", path, form(name), MAINTAINER)).submission_id
        for name, path in lines.items()
    }
    lb.submissions.submit(SubmitRequest("scb", write_broken(tmp_path / "b.jsonl"), form("broken"), MAINTAINER))
    v1 = lb.gold_info("scb").version
    before = snapshot(lb.store)
    assert list(scored(lb)["model"]) == ["high", "low"]

    def read(name: str) -> list[dict]:
        return [json.loads(line) for line in lines[name].read_text().splitlines()]

    new_gold = flipped_gold(gold, better=read("low"), worse=read("high"), k=20)
    v2 = lb.corrections.add_gold("scb", write_gold(tmp_path / "gold-v2.jsonl", new_gold), "maintainer").version
    assert v2 != v1 and lb.corrections.staged_gold("scb").previous_version == v1 and lb.gold_info("scb").version == v1
    staged_outcomes = {s.meta.id: s.status(v2, SCORER_VERSION) for s in lb.catalog.all("scb")}
    assert sorted(staged_outcomes.values()) == [Status.REJECTED, Status.SCORED, Status.SCORED]  # the preview's, kept
    report = lb.corrections.rescore("scb", workers=2)
    assert report["scb"]["switched_to"] == v2 and lb.gold_info("scb").previous_version == v1
    assert report["scb"]["counts"] == {"scored": 0, "rejected": 0, "failed": 0} and report["scb"]["kept"] == 3
    after = snapshot(lb.store)
    assert {p: after[p] for p in before} == before  # every earlier file byte-identical
    added = sorted(set(after) - set(before))
    assert added == sorted(
        [layout.validated("scb", sid, v2) for sid in ids.values()]
        + [layout.result("scb", sid, v2, SCORER_VERSION) for sid in ids.values()]
        + [layout.rejected("scb", s.meta.id, v2) for s in lb.catalog.all("scb") if s.meta.model == "broken"]
    )
    for sid in ids.values():
        state = lb.catalog.get(sid)
        assert state.result(v1, SCORER_VERSION) is not None and state.result(v2, SCORER_VERSION) is not None
    assert list(scored(lb)["model"]) == ["low", "high"]  # the table follows the current gold
    # rescoring again adds nothing
    again = lb.corrections.rescore("scb", workers=2)
    assert again["scb"]["counts"] == {"scored": 0, "rejected": 0, "failed": 0}
    assert set(snapshot(lb.store)) == set(after)


def test_a_damaged_reading_is_read_again_and_replaced(lb: Leaderboard, tmp_path: Path) -> None:
    """A stored reading is derived: one that cannot be decoded costs a new reading of the upload
    (in the evaluator's place), which replaces it; the outcome is the upload's."""
    out = lb.submissions.submit(SubmitRequest("scb", write_submission(tmp_path / "s.jsonl"), form(), ALICE))
    state = lb.catalog.get(out.submission_id)
    path = reading_file(state.meta, lb.golds.get("scb"), lb.limits).path
    good = lb.store.read("submissions", path)
    lb.store.put("submissions", {path: b"PK\x03\x04 damaged"}, "break it", overwrite=True)
    changed = small_gold()
    changed[0]["answer"] = "ABCD"[("ABCD".index(changed[0]["answer"]) + 1) % 4]
    new = lb.corrections.add_gold("scb", write_gold(tmp_path / "v2.jsonl", changed), "maintainer")
    assert lb.catalog.get(out.submission_id).result(new.version, SCORER_VERSION) is not None
    assert lb.store.read("submissions", path) == good  # the same reading, made again
