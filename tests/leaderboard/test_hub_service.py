"""The Leaderboard facade over a HubStore (against the in-memory Hub of tests/support/hub_server.py):
gold add + submit + table; concurrent submissions sharing commits; the Hub going away (the board
keeps serving, submissions are answered "try again" and nothing is kept); replicas."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from leaderboard.service import Leaderboard
from scoring import SCORER_VERSION
from store import layout
from store.hub import HubStore, RetryPolicy
from submissions.records import Identity, Status
from submissions.request import SubmitRequest
from tests.support.hub_server import HubServer
from tests.support.submissions import ALICE, board, form, scored, write_gold, write_submission
from tests.support.threads import run_together

pytestmark = pytest.mark.filterwarnings("ignore:Use .content=:DeprecationWarning")
MakeBoard = Callable[[str], Leaderboard]


@pytest.fixture
def make_board(hub_server: HubServer, hub_repo_ids: dict[str, str], tmp_path: Path) -> MakeBoard:
    """``make_board(name)``: a Leaderboard replica with its own cache and data folder."""

    def make(name: str) -> Leaderboard:
        store = HubStore(
            tmp_path / name / "cache", hub_repo_ids, hub_server.token, endpoint=hub_server.url, retry=RetryPolicy.fast()
        )
        lb = board(tmp_path / name, store=store)
        lb.refresh()  # the app's start-up sync (ui.jobs runs it first)
        return lb

    return make


def _messages(hub: HubServer, repo_id: str) -> list[str]:
    return [c.message for c in hub.commits(repo_id)]


def test_gold_submit_and_table_over_the_hub(
    make_board: MakeBoard, hub_server: HubServer, hub_repo_ids: dict[str, str], tmp_path: Path
) -> None:
    lb = make_board("app")
    info = lb.corrections.add_gold("scb", write_gold(tmp_path / "gold.jsonl"), "maintainer")
    path = write_submission(tmp_path / "s.jsonl", accuracy=0.5, grounding="bbox_good")
    out = lb.submissions.submit(SubmitRequest("scb", path, form("Hub-Model"), ALICE))
    assert out.status is Status.SCORED and out.result.overall["acc"] == pytest.approx(50.0)
    assert list(scored(lb)["model"]) == ["Hub-Model"]
    sid = out.submission_id
    subs = hub_server.files(hub_repo_ids["submissions"])  # acknowledged: the inputs are on the Hub
    assert subs[layout.raw("scb", sid)].data == path.read_bytes() and layout.meta("scb", sid) in subs
    assert lb.store.pending() > 0  # the derived files wait for the push job
    assert lb.flush() == 0
    subs = hub_server.files(hub_repo_ids["submissions"])
    assert layout.result("scb", sid, info.version, SCORER_VERSION) in subs
    gold = hub_server.files(hub_repo_ids["gold"])
    assert {layout.gold_current("scb"), info.file} <= set(gold)
    results = hub_server.files(hub_repo_ids["results"])
    assert {"README.md", "data/scb.parquet", "data/scb.csv", "questions/scb.jsonl"} <= set(results)
    assert b"Hub-Model" in results["data/scb.csv"].data
    assert hub_server.repo(hub_repo_ids["gold"]).private and hub_server.repo(hub_repo_ids["submissions"]).private
    assert not hub_server.repo(hub_repo_ids["results"]).private


def test_concurrent_submissions_share_commits(
    make_board: MakeBoard, hub_server: HubServer, hub_repo_ids: dict[str, str], tmp_path: Path
) -> None:
    n = 8
    lb = make_board("app")
    lb.corrections.add_gold("scb", write_gold(tmp_path / "gold.jsonl"), "maintainer")
    paths = [write_submission(tmp_path / f"{i}.jsonl", seed=i) for i in range(n)]
    hub_server.inject(r"POST /api/datasets/.*/commit/", "conflict", times=3)  # the head "moved" thrice
    outcomes, errors = run_together(
        n, lambda i: lb.submissions.submit(SubmitRequest("scb", paths[i], form(f"m{i}", f"t{i}"), Identity(f"user{i}")))
    )
    assert errors == [] and sorted(o.status for o in outcomes) == [Status.SCORED] * n
    assert lb.flush() == 0
    subs = hub_repo_ids["submissions"]
    commits = hub_server.commits(subs)
    for out in outcomes:  # each upload and its record arrived in one commit
        raw, meta = layout.raw("scb", out.submission_id), layout.meta("scb", out.submission_id)
        assert [c.parent for c in commits if raw in c.files and meta in c.files and c.parent][:1]
    assert len(commits) <= n + 2  # the initial commit, receipts (grouped when they meet), one for results
    assert all(c.parent == p.oid for p, c in zip(commits, commits[1:]))  # one linear history
    files = hub_server.files(subs)
    assert sum(p.endswith("/meta.json") for p in files) == n
    assert sum("/result-" in p for p in files) == n
    replica = make_board("replica")
    replica.refresh()
    assert sorted(scored(replica)["model"]) == sorted(f"m{i}" for i in range(n))


def test_hub_down_board_serves_and_submissions_are_not_acknowledged(
    make_board: MakeBoard, hub_server: HubServer, hub_repo_ids: dict[str, str], tmp_path: Path
) -> None:
    lb = make_board("app")
    lb.corrections.add_gold("scb", write_gold(tmp_path / "gold.jsonl"), "maintainer")
    lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "before.jsonl", seed=1), form("online"), ALICE)
    )
    table = lb.table("scb")
    before = lb.store.list("submissions")
    hub_server.stop()
    lb.refresh()  # a periodic refresh while the Hub is away: no error, same table
    pd.testing.assert_frame_equal(lb.table("scb"), table)
    bob = Identity("bob")
    offline = write_submission(tmp_path / "offline.jsonl", seed=2)
    out = lb.submissions.submit(SubmitRequest("scb", offline, form("offline", "Bob team"), bob))
    assert out.status is Status.RETRY and out.submission_id is None and "again" in out.message
    assert lb.store.list("submissions") == before and lb.submissions.quota(bob, "scb").attempts_used == 0
    assert sorted(scored(lb)["model"]) == ["online"]
    hub_server.start()
    lb.refresh()  # the refresh job: tables are published only from a complete copy again
    again = lb.submissions.submit(SubmitRequest("scb", offline, form("offline", "Bob team"), bob))
    assert again.status is Status.SCORED and again.duplicate_of is None
    assert lb.flush() == 0
    files = hub_server.files(hub_repo_ids["submissions"])
    assert files[layout.raw("scb", again.submission_id)].data == offline.read_bytes()
    assert b"offline" in hub_server.files(hub_repo_ids["results"])["data/scb.csv"].data


def test_a_second_replica_sees_the_first_ones_submission_after_refresh(make_board: MakeBoard, tmp_path: Path) -> None:
    first = make_board("first")
    second = make_board("second")  # started (and synced) before the gold was added
    first.corrections.add_gold("scb", write_gold(tmp_path / "gold.jsonl"), "maintainer")
    assert second.gold_info("scb") is None
    sid = first.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "a.jsonl", seed=1), form("from-first"), ALICE)
    ).submission_id
    first.push_pending()  # the push job: the result follows the acknowledged upload
    second.refresh()
    assert second.gold_info("scb") == first.gold_info("scb")
    assert list(scored(second)["model"]) == ["from-first"]
    assert second.submissions.status(second.catalog.get(sid)) is Status.SCORED
    # and back: the second replica's submission and a hide reach the first
    second.submissions.submit(
        SubmitRequest(
            "scb", write_submission(tmp_path / "b.jsonl", seed=2), form("from-second", "Bob team"), Identity("bob")
        )
    )
    second.moderation.set_hidden(sid, True, "maintainer")
    second.push_pending()
    first.refresh()
    assert list(scored(first)["model"]) == ["from-second"]
    # the duplicate check and the quota see the other replica's uploads
    again = first.submissions.submit(
        SubmitRequest("scb", tmp_path / "b.jsonl", form("from-second", "Bob team"), Identity("bob"))
    )
    assert again.duplicate_of is not None and again.quota.scored_used == 1
