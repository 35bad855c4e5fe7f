"""The catalog reads stored files back: newest scorer by version order, bad records quarantined."""

from __future__ import annotations

import json
from dataclasses import replace

from leaderboard.service import Leaderboard
from scoring import SCORER_VERSION
from store import layout
from submissions.records import SubmissionForm
from submissions.request import SubmitRequest
from tests.support.submissions import ALICE, scored, write_submission


def test_latest_result_takes_the_newest_scorer_by_version_not_by_text(lb: Leaderboard, tmp_path) -> None:
    out = lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "s.jsonl"), SubmissionForm("M", "T"), ALICE)
    )
    sid, gold = out.submission_id, lb.gold_info("scb").version
    stored = json.loads(lb.store.read("submissions", layout.result("scb", sid, gold, SCORER_VERSION)))
    for scorer in ("1.9.0", "1.10.0"):
        body = stored | {"result": stored["result"] | {"scorer_version": scorer}}
        path = layout.result("scb", sid, gold, scorer)
        lb.store.put("submissions", {path: json.dumps(body).encode()}, "a later scorer")
    lb.catalog.refresh()
    assert lb.catalog.get(sid).latest_result(gold).scorer_version == "1.10.0"  # "1.10.0" < "1.9.0" as text


def test_a_meta_of_the_wrong_shape_is_quarantined_and_the_board_still_opens(lb: Leaderboard, tmp_path) -> None:
    kept = lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "a.jsonl"), SubmissionForm("Kept", "T"), ALICE)
    )
    bad = lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "b.jsonl", seed=2), SubmissionForm("Bad", "T"), ALICE)
    )
    meta_path = layout.meta("scb", bad.submission_id)
    lb.store.put("submissions", {meta_path: b'{"id": 7, "benchmark": ["scb"]}'}, "a wrong shape", overwrite=True)

    restarted = Leaderboard(replace(lb.settings))
    assert meta_path in restarted.catalog.corrupt
    assert restarted.catalog.get(kept.submission_id) is not None
    assert restarted.catalog.get(bad.submission_id) is None
    assert restarted.repair() == []  # an input: reported, never invented
    assert meta_path in restarted.catalog.corrupt
    assert list(scored(restarted)["model"]) == ["Kept"]


def test_a_result_of_the_wrong_shape_is_quarantined_and_rebuilt(lb: Leaderboard, tmp_path) -> None:
    out = lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "a.jsonl"), SubmissionForm("M", "T"), ALICE)
    )
    path = layout.result("scb", out.submission_id, lb.gold_info("scb").version, SCORER_VERSION)
    original = json.loads(lb.store.read("submissions", path))
    lb.store.put("submissions", {path: b'{"result": [1, 2]}'}, "a wrong shape", overwrite=True)

    restarted = Leaderboard(replace(lb.settings))
    assert path in restarted.catalog.corrupt
    assert scored(restarted).empty
    assert restarted.repair() == [path]
    assert json.loads(lb.store.read("submissions", path))["result"] == original["result"]
    assert list(scored(restarted)["model"]) == ["M"]
