"""Anonymous rows (attack #5 and #5b of the turn-3 red-team review): every anonymous row has an
id of its own that names nobody, the public files and a reader keep every row, and the row's
page shows only what the anonymity allow-list lets out until the reveal date. The model page is
computed in the browser from the board page's data (ui/static/board.js), so its row there, and
the page the server sends, are what is checked."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from leaderboard.columns import EVERY_VIEW, columns
from leaderboard.reader import FolderSource, PublishedLeaderboard
from leaderboard.table import ANONYMOUS, SCORED_SOURCE
from scoring.benchmarks import get_benchmark
from submissions import fields
from submissions.fields import anonymous_allowed_fields
from submissions.records import Identity
from submissions.request import SubmitRequest
from tests.support.board_page import model_page_row, row_text, served
from tests.support.submissions import board, form, scored, write_gold, write_submission
from ui.board_data import board_filters, group_intervals

BOB, CAROL = Identity("bob"), Identity("carol")
REVEAL = "2099-01-31"


@pytest.fixture
def two_anonymous(tmp_path: Path):
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))
    for who, model, team, accuracy, seed in ((BOB, "BobVision-13B", "Bob Lab", 0.55, 1),
                                             (CAROL, "CarolNet", "Carol Lab", 0.7, 2)):  # fmt: skip
        about = f"{model} by {team}, ACL 2026 submission #1234"
        f = form(model, team, anonymous=True, reveal_date=REVEAL, visibility="public", bbox_format="xywh",
                 description=about, paper_url="https://example.org/p")  # fmt: skip
        path = write_submission(tmp_path / f"{model}.jsonl", accuracy=accuracy, seed=seed, box_format="xywh")
        assert lb.submissions.submit(SubmitRequest("scb", path, f, who)).result is not None
    lb.flush()
    return lb


def test_two_anonymous_rows_with_one_reveal_date_have_two_ids(two_anonymous):
    lb = two_anonymous
    rows = scored(lb)
    assert list(rows["model"]) == [ANONYMOUS, ANONYMOUS]
    assert rows["row_id"].nunique() == 2
    assert rows["overall.acc"].nunique() == 2
    page = served(lb)
    for row_id, acc in zip(rows["row_id"], rows["overall.acc"]):  # each id opens its own row
        assert lb.board("scb").row(row_id).figures["overall"]["acc"] == acc
        shown = model_page_row(page.data, "scb", row_id)
        assert shown is not None and shown["overall.acc"] == acc and f"{acc:.2f}" in row_text(shown)
    snapshot = json.loads(lb.store.read("results", "data/scb.board.json"))
    assert set(rows["row_id"]) <= set(snapshot["rows"])


def test_an_anonymous_row_id_names_nobody(two_anonymous):
    """Not the hash of its team and model (which anyone can compute to test a guess), nor of
    what the board shows (which all anonymous rows of one date share)."""
    lb = two_anonymous
    guesses = set()
    named = (("Bob Lab", "BobVision-13B"), ("Carol Lab", "CarolNet"), (f"(anonymous until {REVEAL})", ANONYMOUS))
    for team, model in named:
        guesses.add(hashlib.sha256(f"{SCORED_SOURCE}\0{team.casefold()}\0{model.casefold()}".encode()).hexdigest()[:12])
    assert not guesses & set(scored(lb)["row_id"])


def test_the_reader_serves_every_anonymous_row(two_anonymous):
    lb = two_anonymous
    reader = PublishedLeaderboard(FolderSource(lb.settings.data_dir / "results"))
    reader.refresh()
    shown = reader.table("scb")
    ours = shown[shown["source"] == SCORED_SOURCE]
    assert sorted(ours["row_id"]) == sorted(scored(lb)["row_id"])
    page = served(reader)
    assert all(model_page_row(page.data, "scb", r) is not None for r in ours["row_id"])


FIGURE_KEYS = frozenset(c.key for c in columns(get_benchmark("scb"), EVERY_VIEW) if c.figure)
ROW_DATA = frozenset({"rank", "rank_worst", "source", "row_id", "lo", "hi"})
"""What every row of the page carries that is not of the submission: its rank (range), where it
comes from, its id, and the interval of its primary figure."""


def test_an_anonymous_page_shows_only_the_allowed_fields(two_anonymous):
    lb = two_anonymous
    page = served(lb)
    allowed = anonymous_allowed_fields() | FIGURE_KEYS | ROW_DATA
    for row_id in scored(lb)["row_id"]:
        row = model_page_row(page.data, "scb", row_id)
        assert row is not None and (row["model"], row["team"]) == (ANONYMOUS, f"(anonymous until {REVEAL})")
        assert row["overall.acc"] is not None  # its figures are its row
        # what the page derives from a row's fields (links, size, Hub facts) is what blank fields give
        derived = {"_links": [], "_facts": [], "_size": fields.size_bucket(None), "_size_text": fields.size_text(None)}
        # and what each declared filter matches is read from an allowed or a blank field only
        derived["_filters"] = {f.param: f.value(row.get(f.column)) for f in board_filters()
                               if f.column in allowed or row.get(f.column) in (None, "")}  # fmt: skip
        # and the groups' intervals are its figures' (ui/board_data.py group_intervals), as its figures are
        if cis := group_intervals(get_benchmark("scb"))(lb.board("scb").row(row_id)):
            derived["_group_ci"] = cis
        assert {key: row.get(key) for key in derived} == derived
        skip = {"model", "team", *derived}
        filled = {key for key, value in row.items() if value not in (None, "") and key not in skip}
        assert filled <= allowed, filled - allowed
        board_row = lb.board("scb").row(row_id)  # what the page's data is built from
        assert board_row.submitted_at == "" and board_row.paper_url == ""
    for text in ("Bob", "Carol", "ACL 2026", "Box format", "xywh", "example.org", "submission #1234"):
        assert text not in page.text(), text


def test_rows_sharing_an_id_are_not_published(two_anonymous, caplog):
    """A board a reader would refuse (two rows, one id) leaves the public files as they were."""
    from dataclasses import replace

    from leaderboard.publish import publish

    lb = two_anonymous
    before = lb.store.read("results", "data/scb.board.json")
    rows = [r for r in lb.board("scb").rows if r.source == SCORED_SOURCE]
    publish(lb.store, "scb", [rows[0], replace(rows[1], key=rows[0].row_id)])
    assert lb.store.read("results", "data/scb.board.json") == before and "share a row id" in caplog.text
