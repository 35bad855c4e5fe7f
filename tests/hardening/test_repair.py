"""A corrupted results file is detected and rebuilt from the immutable submissions."""

from __future__ import annotations

import json

import pandas as pd

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from submissions.records import Identity, Status, SubmissionForm
from submissions.request import SubmitRequest
from tests.support import demo


def _board(tmp_path):
    gold = demo.kviscuit_gold()
    gold_path = demo.write_jsonl(tmp_path / "gold.jsonl", gold)
    lb = Leaderboard(Settings(data_dir=tmp_path / "data"))
    lb.corrections.add_gold("kviscuit", gold_path, "maintainer")
    for n, accuracy in enumerate((0.9, 0.6, 0.3)):
        sub = demo.write_jsonl(tmp_path / f"s{n}.jsonl", demo.kviscuit_submission(gold, accuracy, seed=n))
        out = lb.submissions.submit(
            SubmitRequest("kviscuit", sub, SubmissionForm(f"M{n}", f"team{n}"), Identity(f"user{n}"))
        )
        assert out.status is Status.SCORED
    return lb


def test_corrupted_result_and_public_table_are_rebuilt(tmp_path):
    lb = _board(tmp_path)
    data = tmp_path / "data"
    before = lb.table("kviscuit")
    result_files = sorted((data / "submissions" / "kviscuit").rglob("result-*.json"))
    victim = result_files[1]
    original = json.loads(victim.read_bytes())
    victim.write_bytes(victim.read_bytes()[:40])  # a torn write
    (data / "results" / "data" / "kviscuit.parquet").write_bytes(b"PAR1 garbage")

    restarted = Leaderboard(Settings(data_dir=data))
    assert list(restarted.catalog.corrupt) == [str(victim.relative_to(data / "submissions"))]
    assert len(restarted.table("kviscuit")) == len(before) - 1  # detected: the row is not trusted

    rebuilt = restarted.repair()
    assert str(victim.relative_to(data / "submissions")) in rebuilt
    assert "data/kviscuit.parquet" in rebuilt
    repaired = json.loads(victim.read_bytes())
    assert repaired["result"] == original["result"]  # the same figures, recomputed from the raw upload
    after = restarted.table("kviscuit")
    pd.testing.assert_frame_equal(after.drop(columns="submitted"), before.drop(columns="submitted"))
    assert len(pd.read_parquet(data / "results" / "data" / "kviscuit.parquet")) == len(before)
    assert restarted.repair() == []  # nothing left to repair


def test_a_corrupted_input_is_reported_not_invented(tmp_path, caplog):
    lb = _board(tmp_path)
    data = tmp_path / "data"
    meta = sorted((data / "submissions" / "kviscuit").rglob("meta.json"))[0]
    meta.write_bytes(b"{not json")
    restarted = Leaderboard(Settings(data_dir=data))
    assert restarted.repair() == []
    assert "cannot rebuild" in caplog.text
    assert len(restarted.table("kviscuit")) == len(lb.table("kviscuit")) - 1
