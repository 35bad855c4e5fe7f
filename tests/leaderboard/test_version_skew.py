"""Readers and writers of different versions agree (docs/topology.md, "Upgrading"): a table
published by the writer before the declared fields reads on today's reader with every scored
row (a reader used to show only the papers' rows), today's table reads on that older reader,
and a column a newer writer adds is ignored by today's reader."""

from __future__ import annotations

import pandas as pd
import pytest

from leaderboard.publish import BoardSnapshot, board_rows
from leaderboard.reader import FolderSource, PublishedLeaderboard
from leaderboard.table import SCORED_SOURCE, to_parquet_bytes
from store import layout
from submissions import fields
from submissions.model_hub import Lookup, ModelFacts
from submissions.request import SubmitRequest
from tests.support import v1_reader
from tests.support.submissions import ALICE, board, form, write_gold, write_submission

FACTS = ModelFacts("0123456789abcdef0123456789abcdef01234567", 7_615_616_512, "apache-2.0", "Qwen2VL", "")


@pytest.fixture()
def writer(tmp_path):
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"), publish_seconds=0)
    lb.intake.model_facts = lambda repo: Lookup(FACTS)
    for seed, accuracy in ((1, 0.5), (2, 0.8), (3, 0.62)):
        path = write_submission(tmp_path / f"s{seed}.jsonl", accuracy=accuracy, grounding="bbox_good", seed=seed)
        extra = {"model_repo": f"lab/model-{seed}"} if seed != 3 else {}  # an API-only model has none
        assert (
            lb.submissions.submit(SubmitRequest("scb", path, form(f"Model-{seed}", "Team", **extra), ALICE)).result
            is not None
        )
    return lb


def published(writer) -> tuple[pd.DataFrame, BoardSnapshot]:
    results = writer.settings.data_dir / "results"
    table = pd.read_parquet(results / layout.public_table("scb", "parquet"))
    snapshot_path = results / layout.public_board("scb")
    return table, BoardSnapshot.from_bytes(snapshot_path.read_bytes(), str(snapshot_path))


def as_v1_writer(table: pd.DataFrame) -> pd.DataFrame:
    """The table as the writer of 040358b published it: its text columns and every figure."""
    declared_later = {f.name for f in fields.public_fields()} - set(v1_reader.V1_TEXT_COLUMNS)
    assert declared_later >= {"model_repo", "model_params", "model_license", "model_sha"}
    return table.drop(columns=sorted(declared_later))


def scored_models(rows) -> list[str]:
    return sorted(r.model for r in rows if r.source == SCORED_SOURCE)


def test_todays_reader_reads_an_older_writers_table_with_every_row(writer, tmp_path):
    table, snapshot = published(writer)
    old = as_v1_writer(table)
    rows = board_rows("scb", old, snapshot)
    assert scored_models(rows) == ["Model-1", "Model-2", "Model-3"]
    assert all(r.value("model_repo") == "" and r.value("model_params") == "" for r in rows)
    # end to end: a reader started on new code over the old writer's files serves the whole board
    results = writer.settings.data_dir / "results"
    (results / layout.public_table("scb", "parquet")).write_bytes(to_parquet_bytes(old))
    reader = PublishedLeaderboard(FolderSource(results))
    reader.refresh()
    served = reader.table("scb")
    assert sorted(served.loc[served["source"] == SCORED_SOURCE, "model"]) == ["Model-1", "Model-2", "Model-3"]
    want = writer.table("scb")
    pd.testing.assert_series_equal(served["rank"], want["rank"])
    assert served["model_params"].isna().all() and set(served["model_license"]) == {""}


def test_an_older_reader_reads_todays_table(writer):
    table, snapshot = published(writer)
    assert {"model_repo", "model_params"} <= set(table.columns)
    old_rows = v1_reader.board_rows("scb", table, snapshot)
    new_rows = board_rows("scb", table, snapshot)
    assert scored_models(old_rows) == scored_models(new_rows) == ["Model-1", "Model-2", "Model-3"]
    assert [r.figures for r in old_rows] == [r.figures for r in new_rows]
    assert [r.row_id for r in old_rows] == [r.row_id for r in new_rows]


def test_todays_reader_keeps_the_declared_facts_and_ignores_a_newer_writers_column(writer):
    table, snapshot = published(writer)
    newer = table.assign(compute_rig="8xH100")  # a field declared by a later writer
    rows = {r.model: r for r in board_rows("scb", newer, snapshot)}
    assert rows["Model-1"].value("model_repo") == "lab/model-1"
    assert rows["Model-1"].value("model_params") == str(FACTS.params)  # exact count, Parquet int64 and back
    assert rows["Model-1"].value("model_sha") == FACTS.sha and rows["Model-3"].value("model_repo") == ""
    assert "compute_rig" not in rows["Model-1"].info
    assert str(table["model_params"].dtype) == "Int64"
