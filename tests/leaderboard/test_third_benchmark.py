"""A third benchmark is one folder: the plugin ``scoring/benchmarks/toy/`` (4 choices over one image,
its own field names and key, per-country and per-language groups, no grounding) goes through the table
(every view), the CSV/Parquet export, the public results dataset, the demo seeding and the maintainer CLI.

Figures are hand-counted: the toy gold has 12 questions, Spain at even positions, Spanish for the first
six; a submission answering the first 9 right has 5 of 6 right in Spain and 4 of 6 in Peru.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from leaderboard.columns import frame_columns, shown_columns, views
from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from leaderboard.table import SCORED_SOURCE, BoardRow, frame, scored_rows, to_csv_bytes, to_parquet_bytes
from scoring import ResultRecord
from scoring.benchmarks import BENCHMARKS, register, unregister
from scoring.benchmarks.base import ACCURACY
from scoring.benchmarks.toy import demo as toy_demo
from store import layout
from store.layout import ResultKey
from store.records import StoredResult
from submissions import fields
from submissions.catalog import SubmissionState
from submissions.records import Identity, Status, SubmissionForm, SubmissionMeta
from submissions.request import SubmitRequest
from tests.support import demo
from tests.support import toy as toy_plugin
from ui import display
from ui.board_data import benchmark_data, column_data

ROOT = Path(__file__).resolve().parents[2]
MAINTAINER = Identity("maintainer", is_maintainer=True, source="cli")


@pytest.fixture
def toy():
    """The plugin, registered for one test only (the registry is process-wide)."""
    assert "toy" not in BENCHMARKS, "the plugin leaked into the registry"
    with toy_plugin.registered() as bench:
        yield SimpleNamespace(TOY=bench, DEMO=bench.demo, toy_gold=toy_demo.toy_gold, right_first=toy_demo.right_first)
    assert "toy" not in BENCHMARKS


def submit(lb: Leaderboard, toy, tmp_path: Path, n_right: int, model: str):
    path = demo.write_jsonl(tmp_path / f"{model}.jsonl", toy.right_first(toy.toy_gold(), n_right))
    return lb.submissions.submit(
        SubmitRequest("toy", path, SubmissionForm(model=model, team="lab", model_type="open"), MAINTAINER, path.name)
    )


@pytest.fixture
def board(toy, tmp_path: Path) -> Leaderboard:
    lb = Leaderboard(Settings(data_dir=tmp_path / "data", demo=False))
    lb.corrections.add_gold("toy", demo.write_jsonl(tmp_path / "gold.jsonl", toy.toy_gold()), "maintainer")
    assert submit(lb, toy, tmp_path, 6, "Half").status is Status.SCORED
    assert submit(lb, toy, tmp_path, 9, "Most").status is Status.SCORED
    return lb


def test_every_view_of_the_table(toy, board: Leaderboard) -> None:
    assert views(toy.TOY) == [("overall", "Overview"), ("country", "By country"), ("language", "By language")]
    overview = board.table("toy")
    assert list(overview.columns) == [c.key for c in frame_columns(toy.TOY)]
    assert list(overview["model"]) == ["Most", "Half"]
    assert list(overview["rank"]) == [1, 1] and list(overview["rank_worst"]) == [2, 2]  # 12 questions: not told apart
    assert list(overview["overall.acc"]) == pytest.approx([75.0, 50.0])
    assert list(overview["country.Spain.acc"]) == pytest.approx([500 / 6, 50.0])
    assert list(overview["country.Peru.acc"]) == pytest.approx([400 / 6, 50.0])
    assert list(overview["language.Spanish.acc"]) == pytest.approx([100.0, 100.0])  # the first 6 right in both
    assert list(overview["language.Quechua.acc"]) == pytest.approx([50.0, 0.0])
    by_country = board.table("toy", "country")
    assert [c.header for c in shown_columns(toy.TOY, "country") if c.figure] == ["Spain", "Peru"]
    assert list(by_country["country.Spain.acc"]) == pytest.approx([500 / 6, 50.0])
    by_language = board.table("toy", "language")
    every = board.table("toy", "all")
    page_only = {f.name for f in fields.public_fields() if f.shown is fields.Shown.PAGE}  # the dataset only
    assert set(overview.columns) | set(by_country.columns) | set(by_language.columns) | page_only == set(every.columns)
    page = benchmark_data(board, toy.TOY)  # what the board page sends the browser
    (overall,) = [v["columns"] for v in page["views"] if v["id"] == "overall"]
    headers = [c["header"] for c in overall if c["kind"] not in ("data", "url", "ci")]  # board.js shownKind
    assert headers[:5] == ["Rank", "Model", "Team", "Model type", "Source"]
    assert {"Acc", "Acc Spain", "Acc Peru", "Spanish", "Quechua"} <= set(headers)
    (spain,) = [c for c in overall if c["header"] == "Acc Spain"]
    assert spain["decimals"] == 2 and page["rows"][0][spain["key"]] == 83.33  # 500 / 6, sent as shown (issue 30)
    by_country_plot, by_language_plot = display.plot_values(every, toy.TOY)
    assert "Accuracy by country" in by_country_plot and "Spain" in by_country_plot and "83.3" in by_country_plot
    assert "Accuracy by language" in by_language_plot and "Quechua" in by_language_plot


def test_csv_parquet_and_the_public_dataset(board: Leaderboard) -> None:
    df = board.table("toy", "all")
    from_csv = pd.read_csv(io.BytesIO(to_csv_bytes(df)))
    from_parquet = pd.read_parquet(io.BytesIO(to_parquet_bytes(df)))
    for got in (from_csv, from_parquet):
        assert list(got.columns) == list(df.columns)
        assert list(got["overall.acc"]) == pytest.approx([75.0, 50.0])
    board.flush()  # the public files are debounced (LEADERBOARD_PUBLISH_SECONDS): catch them up
    published = pd.read_parquet(io.BytesIO(board.store.read("results", layout.public_table("toy", "parquet"))))
    assert list(published["model"]) == ["Most", "Half"]
    assert list(published["country_Peru_acc"]) == [round(400 / 6, 2), 50.0]  # as the board shows it, no digit more
    assert "answer" not in board.store.read("results", layout.public_table("toy", "csv")).decode()
    card = board.store.read("results", "README.md").decode()
    assert "config_name: toy" in card and layout.public_table("toy", "parquet") in card
    questions = board.public_questions("toy").decode().splitlines()
    assert json.loads(questions[0]) == {k: v for k, v in toy_demo.toy_gold()[0].items() if k != "answer"}  # no answer
    example = display.example_submission(BENCHMARKS["toy"], board.public_questions("toy")).decode()
    assert json.loads(example.splitlines()[0]) == {"qid": "q00", "answer": "A"}


def test_a_letter_outside_the_choices_is_a_format_error(toy, board: Leaderboard, tmp_path: Path) -> None:
    lines = [{"qid": "q00", "answer": "E"}, {"qid": "q01", "response": "The answer is (E)."}]
    path = demo.write_jsonl(tmp_path / "d.jsonl", lines)
    form = SubmissionForm(model="D", team="lab", model_type="open")
    outcome = board.submissions.submit(SubmitRequest("toy", path, form, MAINTAINER, path.name))
    assert outcome.status is Status.REJECTED
    assert [(i.code, i.line) for i in outcome.issues] == [("bad_answer", 1)]
    assert "A-D" in outcome.issues[0].message


def test_demo_seeding_includes_registered_benchmarks(toy, tmp_path: Path) -> None:
    lb = Leaderboard(Settings(data_dir=tmp_path, demo=True))
    assert lb.seed_demo()
    assert {r.model for r in lb.board("toy").rows} == {t.name for t in toy.DEMO.teams}
    assert list(lb.table("toy")["overall.acc"]) == pytest.approx([75.0, 50.0])
    assert len(lb.board("scb").rows) > 0  # the built-in demos are seeded alike


def meta(bench: str, model: str, day: str) -> SubmissionMeta:
    return SubmissionMeta(
        id=f"id-{model}-{day}", benchmark=bench, model=model, team="t", model_type="open", paper_url="",
        code_url="", description="", submitter="u", sha256="0" * 64, bbox_format="xyxy",
        submitted_at=f"2026-03-0{day}T12:00:00+00:00", size_bytes=1,
    )  # fmt: skip


def result(sid: str, acc: float) -> StoredResult:
    record = ResultRecord("toy_low", "g" * 64, "1.0.0", {}, {"acc": acc}, {})
    return StoredResult(sid, "", record)


def test_direction_and_decimals_come_from_the_declaration(toy) -> None:
    """A primary metric declared lower-is-better ranks ascending and picks the lower figure as
    "best"; its decimals are what the page shows."""
    low = replace(toy.TOY, id="toy_low", metrics=(replace(ACCURACY, higher_is_better=False, decimals=1),))
    register(low)
    try:
        rows = [
            BoardRow(m, "t", "open", SCORED_SOURCE, {"overall": {"acc": a}}, submitted_at=f"2026-01-0{d}")
            for m, a, d in (("high", 80.0, 1), ("low", 20.26, 2), ("none", None, 3))
        ]
        df = frame("toy_low", rows)
        assert list(df["model"]) == ["low", "high", "none"]  # a missing figure is last either way
        (acc,) = [column_data(c) for c in shown_columns(low) if c.header == "Acc"]
        assert acc["decimals"] == 1 and df.iloc[0][acc["key"]] == pytest.approx(20.26)  # the page shows 20.3
        figures = {"2": 30.0, "3": 10.0, "4": 10.0}  # 10.0 twice: the earlier one is best
        states = [
            SubmissionState(
                meta("toy_low", "m", day), results={ResultKey.of("g" * 16, "1.0.0"): result(f"id-m-{day}", acc)}
            )
            for day, acc in figures.items()
        ]
        best = scored_rows(states, "g" * 16, "1.0.0", "best")
        assert [r.submission_id for r in best] == ["id-m-3"]
    finally:
        unregister("toy_low")


def cli(tmp_path: Path, *args: str, plugins: str = toy_plugin.PLUGIN) -> subprocess.CompletedProcess:
    env = {**os.environ, "LEADERBOARD_PLUGINS": plugins, "LEADERBOARD_DATA_DIR": str(tmp_path / "data")}
    env["LEADERBOARD_DEMO"] = "0"
    return subprocess.run(
        [sys.executable, "-m", "leaderboard", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_maintainer_cli_with_the_plugin(toy, tmp_path: Path) -> None:
    """The real way in: separate processes that load the plugin named in LEADERBOARD_PLUGINS,
    including the spawned rescoring worker."""
    gold = demo.write_jsonl(tmp_path / "gold.jsonl", toy.toy_gold())
    sub = demo.write_jsonl(tmp_path / "sub.jsonl", toy.right_first(toy.toy_gold(), 9))
    without = cli(tmp_path, "gold", "add", "--benchmark", "toy", "--file", str(gold), plugins="")
    assert without.returncode == 2 and "invalid choice: 'toy'" in without.stderr
    added = cli(tmp_path, "gold", "add", "--benchmark", "toy", "--file", str(gold))
    assert added.returncode == 0, added.stderr
    submitted = cli(
        tmp_path, "submit", "--benchmark", "toy", "--file", str(sub), "--model", "M", "--team", "T", "--user", "u"
    )
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    table = cli(tmp_path, "table", "--benchmark", "toy", "--format", "json")
    (row,) = json.loads(table.stdout)
    assert (row["model"], row["rank"], row["overall.acc"]) == ("M", 1, 75.0)
    assert row["country.Spain.acc"] == pytest.approx(500 / 6)  # the CLI's JSON keeps 10 decimals
    new_gold = demo.write_jsonl(tmp_path / "gold2.jsonl", toy.toy_gold(seed=1))  # every answer moves on
    assert cli(tmp_path, "gold", "add", "--benchmark", "toy", "--file", str(new_gold)).returncode == 0
    rescored = cli(tmp_path, "rescore", "--benchmark", "toy", "--workers", "1")
    report = rescored.stdout + rescored.stderr
    assert rescored.returncode == 0 and "the board now shows gold" in rescored.stdout, report  # gold add scored it
    (row,) = json.loads(cli(tmp_path, "table", "--benchmark", "toy", "--format", "json").stdout)
    assert row["overall.acc"] == 25.0  # the 3 answered "wrong" are right on the new gold
