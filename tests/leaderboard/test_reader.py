"""A reader (leaderboard/reader.py, docs/topology.md) serves the writer's boards from the
published files alone: every view and filter equal to the writer's, to the last digit, and new
rows after a refresh; it needs no gold, no submissions and no token for them."""

from __future__ import annotations

import io
import json
import math
from dataclasses import replace

import pandas as pd
import pytest

from leaderboard.config import ConfigError, Settings
from leaderboard.publish import BoardSnapshot, board_rows, public_frame
from leaderboard.reader import FolderSource, PublishedLeaderboard
from leaderboard.table import as_shown, frame, to_parquet_bytes
from scoring.benchmarks import get_benchmark
from store import layout
from submissions.request import SubmitRequest
from tests.support.board_page import row_filter
from tests.support.submissions import ALICE, LEAK_KEYS, board, form, write_gold, write_submission


@pytest.fixture()
def writer(tmp_path):
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"), publish_seconds=0)
    for seed, accuracy in ((1, 0.5), (2, 0.8), (3, 0.62), (4, 0.62)):
        path = write_submission(tmp_path / f"s{seed}.jsonl", accuracy=accuracy, grounding="bbox_good", seed=seed)
        assert (
            lb.submissions.submit(
                SubmitRequest("scb", path, form(f"Model-{seed}", team=f"Team-{seed % 2}"), ALICE)
            ).result
            is not None
        )
    return lb


def shown(table: pd.DataFrame, benchmark: str = "scb") -> pd.DataFrame:
    """A table as every public surface carries it: ranks, order and rows exact (ranked at full
    precision), each figure rounded to the decimals its column shows (attacks.md turn 4 #6). The
    reader has only those figures; it serves the very board the writer shows."""
    return as_shown(benchmark, table)


def reader_of(writer) -> PublishedLeaderboard:
    reader = PublishedLeaderboard(FolderSource(writer.settings.data_dir / "results"))
    reader.refresh()
    return reader


FILTERS = [  # (view, model types, sources, search)
    ("overall", None, None, ""),
    ("overall", ["open"], None, "team-1"),
    ("overall", None, ["scored here"], ""),
    ("all", None, None, "model-2; model-3"),
]


def test_reader_serves_the_writers_board_to_the_last_digit(writer):
    reader = reader_of(writer)
    for view in ("overall", "type", "all"):
        got, want = shown(reader.table("scb", view)), shown(writer.table("scb", view))
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    for view, types, sources, query in FILTERS:  # ranks among the rows kept: the exact interval bounds matter
        keep = row_filter(types, sources, query)
        got, want = shown(reader.table("scb", view, keep)), shown(writer.table("scb", view, keep))
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert reader.group_sizes("scb") == writer.group_sizes("scb")
    assert reader.last_updated("scb") == writer.last_updated("scb")
    gold, published = writer.gold_info("scb"), reader.gold_info("scb")
    assert (published.version, published.added_at, published.questions) == (
        layout.gold_key(gold.version), gold.added_at, gold.questions
    )  # fmt: skip
    # the other benchmark has no gold: its papers' rows, as on the writer
    got, want = shown(reader.table("kviscuit"), "kviscuit"), shown(writer.table("kviscuit"), "kviscuit")
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert reader.gold_info("kviscuit") is None


def test_odd_figures_survive_the_round_trip(writer):
    """A NaN bound, a missing figure, an integer interval: the rows rebuilt from the public
    table and its snapshot give the same frames (strict JSON has no NaN: it travels as null)."""
    primary = get_benchmark("scb").primary
    first, second, *rest = writer.board("scb").rows
    odd = [
        replace(
            first, figures={**first.figures, "overall": {**first.figures["overall"], primary.ci: [math.nan, 90.0]}}
        ),
        replace(second, figures={**second.figures, "overall": {primary.name: 70, primary.ci: [60, 80]}}),
        *rest,
    ]
    snapshot = BoardSnapshot.from_bytes(BoardSnapshot.of("scb", odd, None, {}).to_bytes(), "here")
    table = pd.read_parquet(io.BytesIO(to_parquet_bytes(public_frame("scb", odd))))
    again = board_rows("scb", table, snapshot)
    for view in ("overall", "type", "all"):
        got, want = shown(frame("scb", again, view)), shown(frame("scb", odd, view))
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    with pytest.raises(ValueError, match="list different rows"):
        board_rows("scb", table.iloc[1:], snapshot)


def test_model_pages_show_the_published_figures(writer):
    reader = reader_of(writer)
    row_id = writer.table("scb")["row_id"].iloc[0]
    mine, theirs = reader.board("scb").row(row_id).figures, writer.board("scb").row(row_id).figures
    assert mine["overall"] == theirs["overall"]
    assert mine.get("scorer_version", "") == theirs.get("scorer_version", "")
    assert str(theirs.get("gold_version", "")).startswith(str(mine.get("gold_version", ""))[:12])
    assert reader.board("scb").row("nosuchrow") is None


def test_a_new_row_appears_after_refresh_and_only_its_board_changes(writer, tmp_path):
    reader = reader_of(writer)
    before = {b: reader.fingerprint(b) for b in ("scb", "kviscuit")}
    assert reader.refresh() is False  # nothing moved: no download, no change
    path = write_submission(tmp_path / "new.jsonl", accuracy=0.9, seed=9)
    writer.submissions.submit(SubmitRequest("scb", path, form("Newcomer", team="Fresh"), ALICE))
    assert "Newcomer" not in set(reader.table("scb")["model"])
    assert reader.refresh() is True
    assert "Newcomer" in set(reader.table("scb")["model"])
    assert reader.fingerprint("scb") != before["scb"] and reader.fingerprint("kviscuit") == before["kviscuit"]
    pd.testing.assert_frame_equal(shown(reader.table("scb"), "scb"), shown(writer.table("scb")), check_exact=True)


def test_an_unreadable_snapshot_or_source_keeps_the_board(writer, caplog):
    reader = reader_of(writer)
    kept = reader.table("scb")
    snapshot = writer.settings.data_dir / "results" / layout.public_board("scb")
    snapshot.write_bytes(b'{"format": 1, "rows": "broken"')
    assert reader.refresh() is False
    pd.testing.assert_frame_equal(reader.table("scb"), kept)
    assert "not a board snapshot" in caplog.text

    class Down:
        where = "a Hub that does not answer"

        def head(self):
            raise ConnectionError("no route")

    reader.source = Down()
    assert reader.refresh() is False
    pd.testing.assert_frame_equal(reader.table("scb"), kept)


def test_the_snapshot_holds_aggregates_only(writer):
    data = (writer.settings.data_dir / "results" / layout.public_board("scb")).read_bytes()
    body = json.loads(data)  # strict JSON: NaN is null, so a browser's JSON.parse takes it
    text = data.decode()
    assert not any(f'"{key}"' in text for key in LEAK_KEYS)
    assert writer.gold_info("scb").version not in text  # only its short key, as the page shows
    assert set(body["rows"]) == set(writer.table("scb")["row_id"])  # by row id, beside the table's rows
    scored = [e for e in body["rows"].values() if e["scorer_version"]]
    keys = {"submitted_at", "bounds", "gold_version", "scorer_version", "order"}
    assert scored and all(set(e) == keys for e in scored)
    places = [v for e in body["rows"].values() for v in e["order"] if v is not None]  # places, not figures
    assert places and all(v == int(v) for v in places) and max(places) < 3 * len(body["rows"])
    assert all(round(v, 2) == v for e in body["rows"].values() for b in e["bounds"].values() for v in b if v)
    intervals = {m.ci for m in get_benchmark("scb").metrics if m.ci}
    assert all(e["bounds"] and set(e["bounds"]) <= intervals for e in scored)  # the overall ones only
    assert BoardSnapshot.from_bytes(data, "x").benchmark == "scb"
    with pytest.raises(ValueError, match="somewhere: not a board snapshot"):
        BoardSnapshot.from_bytes(b'{"format": 99}', "somewhere")


def test_a_table_published_before_readers_existed_gets_its_snapshot_on_repair(writer):
    snapshot = writer.settings.data_dir / "results" / layout.public_board("scb")
    snapshot.unlink()  # as a dataset published by an older writer
    assert writer.repair() == [layout.public_board("scb")]
    assert snapshot.exists() and writer.repair() == []


def test_nothing_published_yet_shows_the_papers_rows(tmp_path):
    reader = PublishedLeaderboard(FolderSource(tmp_path / "empty"))
    assert reader.refresh() is False
    assert set(reader.table("scb")["source"]) == {"reported in paper"}
    assert reader.gold_info("scb") is None and reader.last_updated("scb") == ""


# ---- configuration ----
def test_role_is_read_and_checked():
    assert not Settings.from_env({}).reader
    reader = Settings.from_env({"LEADERBOARD_ROLE": "reader", "LEADERBOARD_RESULTS_DIR": "/srv/results"})
    assert reader.reader and str(reader.published_folder) == "/srv/results"
    assert str(Settings.from_env({"LEADERBOARD_ROLE": "reader"}).published_folder) == "data/results"
    with pytest.raises(ConfigError, match="LEADERBOARD_ROLE must be one of writer, reader, got 'mirror'"):
        Settings.from_env({"LEADERBOARD_ROLE": "mirror"})


def test_a_reader_needs_only_the_public_results_repo():
    env = {"LEADERBOARD_ROLE": "reader", "LEADERBOARD_RESULTS_REPO": "org/results", "SPACE_ID": "org/mirror"}
    settings = Settings.from_env(env)  # no token, no OAuth app: a reader signs no one in
    assert dict(settings.hub_repos) == {"results": "org/results"} and not settings.ui.oauth
    with pytest.raises(ConfigError, match="unset LEADERBOARD_GOLD_REPO"):
        Settings.from_env({**env, "LEADERBOARD_GOLD_REPO": "org/gold"})


def test_writer_url_must_be_an_address():
    url = "https://huggingface.co/spaces/org/leaderboard"
    assert Settings.from_env({"LEADERBOARD_WRITER_URL": url}).ui.writer_url == url
    with pytest.raises(ConfigError, match="LEADERBOARD_WRITER_URL must be an http"):
        Settings.from_env({"LEADERBOARD_WRITER_URL": "javascript:alert(1)"})


# ---- on the Hub: readers of the public results repo only ----
@pytest.mark.filterwarnings("ignore:Use .content=:DeprecationWarning")
def test_readers_on_the_hub_read_the_public_results_repo_only(hub_server, hub_repo_ids, tmp_path):
    from store.hub import HubStore, RetryPolicy

    store = HubStore(tmp_path / "w" / "cache", hub_repo_ids, hub_server.token, endpoint=hub_server.url,
                     retry=RetryPolicy.fast())  # fmt: skip
    writer = board(tmp_path / "w", store=store, publish_seconds=0)
    writer.refresh()
    writer.corrections.add_gold("scb", write_gold(tmp_path / "gold.jsonl"), "maintainer")
    for seed in (1, 2):
        writer.submissions.submit(
            SubmitRequest("scb", write_submission(tmp_path / f"s{seed}.jsonl", seed=seed), form(f"Hub-{seed}"), ALICE)
        )
    assert writer.flush() == 0  # the public table and snapshot are on the Hub
    settings = Settings.from_env({"LEADERBOARD_ROLE": "reader", "LEADERBOARD_RESULTS_REPO": hub_repo_ids["results"],
                                  "HF_ENDPOINT": hub_server.url})  # fmt: skip  # no token
    readers = [PublishedLeaderboard.open(settings) for _ in range(2)]
    for reader in readers:
        pd.testing.assert_frame_equal(shown(reader.table("scb"), "scb"), shown(writer.table("scb")), check_exact=True)
    seen = len(hub_server.log)
    assert [r.refresh() for r in readers] == [False, False]
    idle = hub_server.log[seen:]
    assert len(idle) == 2 and all(hub_repo_ids["results"] in e and "/resolve/" not in e for e in idle)  # heads only
    writer.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "s3.jsonl", seed=3), form("Hub-3"), ALICE)
    )
    assert writer.flush() == 0
    seen = len(hub_server.log)
    assert [r.refresh() for r in readers] == [True, True]
    moved = hub_server.log[seen:]
    assert any("/resolve/" in e for e in moved) and all(hub_repo_ids["results"] in e for e in moved)  # no other repo
    for reader in readers:
        pd.testing.assert_frame_equal(shown(reader.table("scb"), "scb"), shown(writer.table("scb")), check_exact=True)
