"""Public figures as shown (attacks.md turn 4 #6): the page data, the results dataset (CSV,
Parquet, board snapshot) carry every figure rounded to the decimals the board shows; a mIoU of
2.5692562337246434 shown as 2.57 gave a published row's exact IoU sums per group. Ranks are
computed on the server at full precision and travel as order keys, so a reader and the browser
rank exactly as the server does, even where the rounded figures would tie."""

from __future__ import annotations

import io
import json
import math
import re
from dataclasses import replace

import pandas as pd
import pytest

from leaderboard.columns import EVERY_VIEW, Kind, export_columns
from leaderboard.publish import BoardSnapshot, board_rows, parquet_name, public_frame
from leaderboard.ranks import rank_ranges
from leaderboard.table import frame, to_parquet_bytes
from scoring.benchmarks import get_benchmark
from store import layout
from submissions.request import SubmitRequest
from tests.support.submissions import ALICE, board, form, write_gold, write_submission
from ui.board_data import benchmark_data

SCB = get_benchmark("scb")
LONG_NUMBER = re.compile(r"(?<![\d:])\d+\.\d{3,}")  # more decimals than any column shows (2); not a time


@pytest.fixture(scope="module")
def writer(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("figures")
    lb = board(tmp / "data", write_gold(tmp / "gold.jsonl"), publish_seconds=0)
    for seed, accuracy in ((1, 0.5), (2, 0.8), (3, 0.62)):
        path = write_submission(tmp / f"s{seed}.jsonl", accuracy=accuracy, grounding="bbox_good", seed=seed)
        assert (
            lb.submissions.submit(SubmitRequest("scb", path, form(f"Model-{seed}", team=f"Team-{seed}"), ALICE)).result
            is not None
        )
    return lb


def exact_figures(lb) -> set[str]:
    """Every scored figure at full precision that has more decimals than shown, as text."""
    table = lb.table("scb", EVERY_VIEW)
    scored = table[table["source"] == "scored here"]
    keys = [c.key for c in export_columns(SCB) if c.figure is not None and c.kind is not Kind.CI]
    values = {float(v) for key in keys for v in scored[key] if v == v}
    return {repr(v) for v in values if round(v, 2) != v}


def test_no_public_surface_carries_a_figure_beyond_its_decimals(writer):
    exact = exact_figures(writer)
    assert len(exact) > 10  # the board has figures that a full-precision surface would give away
    results = writer.settings.data_dir / "results"
    csv = (results / layout.public_table("scb", "csv")).read_text()
    snapshot = (results / layout.public_board("scb")).read_text()
    page = json.dumps(benchmark_data(writer, SCB))
    parquet = pd.read_parquet(results / layout.public_table("scb", "parquet"))
    for name, text in (("csv", csv), ("snapshot", snapshot), ("page data", page)):
        assert not LONG_NUMBER.findall(text), name  # no figure, bound or key with a third decimal
        assert not [v for v in exact if v in text], name
    for col in export_columns(SCB):
        if col.figure is not None:
            values = parquet[parquet_name(col.key)].dropna()
            assert (values == values.round(col.decimals)).all(), col.key
    rows = benchmark_data(writer, SCB)["rows"]
    assert all(float(r[k]).is_integer() for r in rows for k in ("lo", "hi") if r[k] is not None)  # order keys


def near_rows(lb):
    """Two scored rows whose primary intervals are apart by less than the shown decimals: at full
    precision the first is wholly above the second; rounded, they would overlap and share a rank."""
    primary = SCB.primary
    first, second, *rest = lb.board("scb").rows
    above = {**first.figures["overall"], primary.name: 55.0, primary.ci: [50.004, 60.0]}
    below = {**second.figures["overall"], primary.name: 45.0, primary.ci: [40.0, 50.001]}
    return [replace(first, figures={**first.figures, "overall": above}),
            replace(second, figures={**second.figures, "overall": below}), *rest]  # fmt: skip


def test_a_reader_ranks_rows_apart_that_the_rounded_figures_would_tie(writer):
    rows = near_rows(writer)
    want = frame("scb", rows, "overall")
    assert round(50.004, 2) == round(50.001, 2)  # the shown bounds touch
    ranked = dict(zip(want["row_id"], want["rank"], strict=True))
    assert ranked[rows[0].row_id] < ranked[rows[1].row_id]
    snapshot = BoardSnapshot.from_bytes(BoardSnapshot.of("scb", rows, None, {}).to_bytes(), "here")
    table = pd.read_parquet(io.BytesIO(to_parquet_bytes(public_frame("scb", rows))))
    again = board_rows("scb", table, snapshot)
    got = frame("scb", again, "overall")
    assert list(got["row_id"]) == list(want["row_id"])
    assert list(got["rank"]) == list(want["rank"]) and list(got["rank_worst"]) == list(want["rank_worst"])
    kept = [again[0], again[1]]  # ranked among the rows a visitor keeps, too
    assert list(frame("scb", kept, "overall")["rank"]) == list(frame("scb", rows[:2], "overall")["rank"])


def test_the_browser_ranks_from_the_page_keys_as_the_server_does(writer, monkeypatch):
    rows = near_rows(writer)
    board = replace(writer.board("scb"), rows=rows)
    monkeypatch.setattr(writer, "board", lambda benchmark: board)
    monkeypatch.setattr(writer, "table", lambda benchmark, view="overall", keep=None: board.view(view, keep))
    page = benchmark_data(writer, SCB)["rows"]
    keys = [(math.nan if r["lo"] is None else r["lo"], math.nan if r["hi"] is None else r["hi"]) for r in page]
    browser = [r.best for r in rank_ranges(keys)]  # the rule board.js runs (leaderboard/ranks.py)
    assert browser == [r["rank"] for r in page]
    first, second = (next(r for r in page if r["row_id"] == row.row_id) for row in rows[:2])
    assert first["rank"] < second["rank"] and first["lo"] > second["hi"]


def test_grounded_accuracy_per_group_is_public_as_the_team_sees_it(writer):
    """Issue 44: GAcc@0.5 per country and category ("found the artifact") is in the results dataset
    (CSV, Parquet) and the page's data, rounded as every public figure (two decimals: no hit count or
    IoU sum beyond what the team's own answer gives it), equal to the team's own figure
    (submissions.answer.public_result), and in no view's columns (the group focus reads it)."""
    from leaderboard.columns import columns, views
    from submissions.answer import public_result

    results = writer.settings.data_dir / "results"
    csv = pd.read_csv(results / layout.public_table("scb", "csv"))
    parquet = pd.read_parquet(results / layout.public_table("scb", "parquet"))
    page = {r["row_id"]: r for r in benchmark_data(writer, SCB)["rows"]}
    keys = [f"{g.name}.{label}.gacc50" for g in SCB.groupings for label in g.order]
    assert not set(keys) & {c.key for v, _ in views(SCB) for c in columns(SCB, v)}
    info = writer.gold_info("scb")
    checked = 0
    for row in writer.board("scb").rows:
        if not row.submission_id:
            continue
        own = public_result(writer.catalog.get(row.submission_id).latest_result(info.version))
        for g in SCB.groupings:
            for label in g.order:
                want = own[g.name][label]["gacc50"]
                key = f"{g.name}.{label}.gacc50"
                got_csv = csv.loc[csv["row_id"] == row.row_id, parquet_name(key)].item()
                got_parquet = parquet.loc[parquet["row_id"] == row.row_id, parquet_name(key)].item()
                assert got_csv == got_parquet == page[row.row_id][key] == want, key
                assert round(want, 2) == want
                checked += 1
    assert checked == 3 * len(keys)
