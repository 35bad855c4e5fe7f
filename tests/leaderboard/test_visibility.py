"""Visibility per submission (docs/teams.md): private entries are scored and seen by their team
only; a team publishes one as its model's row, withdraws it, or shows it anonymously until a
date; a maintainer's hiding never brings an older entry back; nobody else can do any of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from leaderboard.service import Leaderboard
from leaderboard.table import ANONYMOUS, scored_rows
from store.layout import PublicationFile
from submissions.records import Identity, Status
from submissions.request import SubmitRequest
from tests.support.submissions import board, form, scored, write_broken, write_gold, write_submission

ALICE = Identity("alice")
BOB = Identity("bob")
MAINTAINER = Identity("maintainer", is_maintainer=True)


@pytest.fixture
def lb(tmp_path: Path) -> Leaderboard:
    return board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))


def private(lb: Leaderboard, path: Path, model: str = "M", team: str = "Alice Lab", who: Identity = ALICE):
    return lb.submissions.submit(SubmitRequest("scb", path, form(model, team, visibility="private"), who))


def test_a_private_entry_is_scored_for_its_team_only(lb: Leaderboard, tmp_path: Path):
    answer = private(lb, write_submission(tmp_path / "a.jsonl", accuracy=0.8))
    assert answer.status is Status.SCORED and answer.rank is None and "Private" in answer.message
    assert scored(lb).empty
    entry = lb.visibility.entry(ALICE, answer.submission_id)
    api = entry.to_api()
    assert (api["visibility"], api["on_board"], api["status"]) == ("private", False, "scored")
    assert api["result"]["overall"]["acc"] == 80.0 and len(api["result"]["overall"]["acc_ci"]) == 2
    assert set(api["result"]["type"]) == {"1", "2", "3"}  # per group, with the same figures
    assert api["filename"] == "" and api["bbox_format"] == "xyxy"
    # another account sees nothing of it, by any route
    assert lb.visibility.entry(BOB, answer.submission_id) is None and lb.visibility.entries(BOB) == []
    with pytest.raises(PermissionError):
        lb.visibility.set_visibility(BOB, answer.submission_id, True)
    assert scored(lb).empty


def test_publish_withdraw_and_choose_the_row(lb: Leaderboard, tmp_path: Path):
    first = private(lb, write_submission(tmp_path / "a.jsonl", accuracy=0.8))
    second = private(lb, write_submission(tmp_path / "b.jsonl", accuracy=0.6, seed=2))
    assert "public row of M" in lb.visibility.set_visibility(ALICE, second.submission_id, True)
    assert list(scored(lb)["overall.acc"]) == [60.0]
    lb.visibility.set_visibility(ALICE, first.submission_id, True)  # the newest choice is the row
    assert list(scored(lb)["overall.acc"]) == [80.0]
    assert lb.visibility.entry(ALICE, second.submission_id).to_api()["board_row"] == first.submission_id
    assert lb.visibility.entry(ALICE, second.submission_id).where.startswith("public, not the row")
    # bob can neither withdraw nor replace it
    with pytest.raises(PermissionError):
        lb.visibility.set_visibility(BOB, first.submission_id, False)
    assert list(scored(lb)["overall.acc"]) == [80.0]
    # withdrawing the chosen row: the team's other public entry of the model is its row
    assert lb.visibility.set_visibility(ALICE, first.submission_id, False).startswith("Withdrawn")
    assert list(scored(lb)["overall.acc"]) == [60.0]
    lb.visibility.set_visibility(ALICE, second.submission_id, False)
    assert scored(lb).empty
    # every change is a new immutable record; the meta keeps the first choice
    events = [PublicationFile.parse(p) for p in lb.store.list("submissions", "publication")]
    assert sorted((e.sid, e.seq) for e in events) == sorted(
        [(second.submission_id, 0), (first.submission_id, 0), (first.submission_id, 1), (second.submission_id, 1)]
    )
    assert lb.catalog.get(first.submission_id).meta.visibility == "private"
    assert Leaderboard(lb.settings).catalog.get(first.submission_id).public is False  # state derived from files


def test_hiding_the_row_does_not_bring_back_an_older_entry(lb: Leaderboard, tmp_path: Path):
    older = lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "a.jsonl", accuracy=0.3), form("M", "Alice Lab"), ALICE)
    )
    newer = lb.submissions.submit(
        SubmitRequest(
            "scb", write_submission(tmp_path / "b.jsonl", accuracy=0.8, seed=2), form("M", "Alice Lab"), ALICE
        )
    )
    assert list(scored(lb)["overall.acc"]) == [80.0]
    lb.moderation.set_hidden(newer.submission_id, True, "maintainer")
    assert scored(lb).empty  # not the older 30% entry
    assert lb.visibility.entry(ALICE, newer.submission_id).where == "hidden by a maintainer"
    # the team publishing it again does not undo a maintainer's hiding: it is refused, and counts nothing
    with pytest.raises(ValueError, match="cannot be published while it is held or hidden; nothing was published"):
        lb.visibility.set_visibility(ALICE, newer.submission_id, True)
    assert scored(lb).empty and not lb.catalog.get(newer.submission_id).publications
    # choosing the older one is the team's own, visible decision
    lb.visibility.set_visibility(ALICE, older.submission_id, True)
    assert list(scored(lb)["overall.acc"]) == [30.0]


def test_anonymous_until_the_reveal_date(lb: Leaderboard, tmp_path: Path):
    answer = lb.submissions.submit(
        SubmitRequest(
            "scb",
            write_submission(tmp_path / "a.jsonl", accuracy=0.8),
            form(
                "Secret-VLM", "Blind Lab", paper_url="https://example.org/p", anonymous=True, reveal_date="2099-01-31"
            ),
            ALICE,
        )
    )
    row = scored(lb).iloc[0]
    assert (row["model"], row["team"], row["paper_url"]) == (ANONYMOUS, "(anonymous until 2099-01-31)", "")
    lb.flush()  # the public files are debounced: catch them up before reading them
    public_csv = lb.store.read("results", "data/scb.csv").decode()
    assert "Blind Lab" not in public_csv and "Secret-VLM" not in public_csv and ANONYMOUS in public_csv
    assert lb.visibility.entry(ALICE, answer.submission_id).to_api()["model"] == "Secret-VLM"  # the team sees its names
    revealed = scored_rows(lb.catalog.all("scb"), lb.gold_info("scb").version, None, today="2099-01-31")
    assert [(r.model, r.team) for r in revealed] == [("Secret-VLM", "Blind Lab")]
    # published later without anonymity, it shows its names at once
    lb.visibility.set_visibility(ALICE, answer.submission_id, True)
    assert scored(lb).iloc[0]["team"] == "Blind Lab"
    with pytest.raises(ValueError, match="reveal_date"):
        lb.visibility.set_visibility(ALICE, answer.submission_id, True, anonymous=True, reveal_date="next week")
    refused = lb.submissions.submit(
        SubmitRequest("scb", tmp_path / "a.jsonl", form("X", "Blind Lab", reveal_date="2099-01-31"), ALICE)
    )
    assert [i.code for i in refused.issues] == ["reveal_without_anonymous"]


def test_my_submissions_keeps_every_record_and_past_errors(lb: Leaderboard, tmp_path: Path):
    carol = Identity("carol", orgs=("lab",))
    dave = Identity("dave", orgs=("lab",))
    rejected = lb.submissions.submit(
        SubmitRequest(
            "scb", write_broken(tmp_path / "b.jsonl"), form("M", "Lab", visibility="private"), carol, "b.jsonl"
        )
    )
    kept = private(lb, write_submission(tmp_path / "a.jsonl"), team="Lab", who=dave)
    entries = {e.state.meta.id: e.to_api() for e in lb.visibility.entries(carol)}  # the team's, not only carol's
    assert set(entries) == {rejected.submission_id, kept.submission_id}
    past = entries[rejected.submission_id]["past_errors"]
    assert entries[rejected.submission_id]["filename"] == "b.jsonl"
    assert len(past) == 1 and {e["line"] for e in past[0]["errors"]} == {2, 3, 4}
    assert entries[rejected.submission_id]["errors"] == past[0]["errors"]
    with pytest.raises(ValueError, match="rejected"):
        lb.visibility.set_visibility(carol, rejected.submission_id, True)
    assert (
        lb.visibility.entries(BOB) == [] and lb.visibility.entries(MAINTAINER) == []
    )  # a maintainer's list is its own
    assert lb.visibility.entry(MAINTAINER, kept.submission_id) is not None  # and it can look one up


def test_publishing_says_how_many_publications_are_left(lb: Leaderboard, tmp_path: Path):
    """The "Published" confirmation says what the week's ration has left (issue 33: it did not)."""
    first = private(lb, write_submission(tmp_path / "a.jsonl", accuracy=0.8))
    second = private(lb, write_submission(tmp_path / "b.jsonl", accuracy=0.6, seed=2))
    said = lb.visibility.set_visibility(ALICE, first.submission_id, True)
    assert said.startswith(f"Published: {first.submission_id}") and "2 of 3 left" in said, said
    assert "1 of 3 left" in lb.visibility.set_visibility(ALICE, second.submission_id, True)
    lb.visibility.set_visibility(ALICE, first.submission_id, False)
    again = lb.visibility.set_visibility(ALICE, first.submission_id, True)  # public before: free
    assert "1 of 3 left" in again, again
    assert "no limit (maintainer)" in lb.visibility.set_visibility(MAINTAINER, first.submission_id, True)


def test_under_full_feedback_a_team_is_not_told_it_is_a_maintainer(tmp_path: Path):
    """Team trial (issue 42): with LEADERBOARD_FEEDBACK=full, /publish answered a team "no limit
    (maintainer)". There is no ration then because every result is shown, and the answer says that."""
    full = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"), feedback="full")
    first = private(full, write_submission(tmp_path / "a.jsonl", accuracy=0.8))
    said = full.visibility.set_visibility(ALICE, first.submission_id, True)
    assert "no limit" in said and "maintainer" not in said and "full" in said, said
    assert "no limit (maintainer)" in full.visibility.set_visibility(MAINTAINER, first.submission_id, True)
