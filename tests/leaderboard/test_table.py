"""The public table (leaderboard/table.py): ranking, the row rule, hidden rows, paper rows, NaN
for absent figures, views and columns from the benchmark declaration, CSV injection guard."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pandas as pd
import pytest

from leaderboard.baselines import PAPER_SOURCE, paper_rows
from leaderboard.columns import Kind, columns, export_columns, frame_columns, views
from leaderboard.table import SCORED_SOURCE, BoardRow, baseline_rows, csv_safe, frame, scored_rows, to_csv_bytes
from scoring import SCORER_VERSION, Gold, ResultRecord, get_benchmark, load_gold, score_file
from store.layout import ResultKey
from store.records import StoredResult
from submissions.catalog import SubmissionState
from submissions.records import SubmissionMeta
from tests.support import demo
from tests.support.scoring import write_lines
from tests.support.submissions import write_gold, write_submission

GOLD16 = "g" * 16


@pytest.fixture(scope="module")
def gold(tmp_path_factory: pytest.TempPathFactory) -> Gold:
    return load_gold("scb", write_gold(tmp_path_factory.mktemp("gold") / "gold.jsonl"))


@pytest.fixture(scope="module")
def results(gold: Gold, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[float, str], ResultRecord]:
    """Real result records of the small gold, by (accuracy, grounding)."""
    tmp = tmp_path_factory.mktemp("subs")
    out = {}
    for i, (acc, grounding) in enumerate([(0.4, "none"), (0.5, "none"), (0.6, "bbox_good"), (0.7, "none")]):
        path = write_submission(tmp / f"{i}.jsonl", accuracy=acc, grounding=grounding, seed=i)
        out[(acc, grounding)] = score_file("scb", gold, path)
    return out


def state(
    result: ResultRecord,
    team: str,
    model: str,
    at: str,
    *,
    hidden: bool = False,
    gold: str = GOLD16,
    scorer: str = SCORER_VERSION,
) -> SubmissionState:
    meta = SubmissionMeta(
        id=f"id-{team}-{model}-{at}", benchmark="scb", model=model, team=team, model_type="open", paper_url="",
        code_url="", description="", submitter="u", sha256="0" * 64, bbox_format="xyxy",
        submitted_at=f"2026-03-0{at}T12:00:00+00:00", size_bytes=1,
    )  # fmt: skip
    return SubmissionState(meta, results={ResultKey.of(gold, scorer): StoredResult(meta.id, "", result)}, hidden=hidden)


def ranked(states: list[SubmissionState], rule: str = "latest") -> list[tuple[str, str]]:
    df = frame("scb", scored_rows(states, GOLD16, SCORER_VERSION, rule))
    return list(zip(df["model"], df["submitted"]))


def test_default_order_is_accuracy_descending_ties_to_the_earlier_submission(results: dict) -> None:
    r4, r5, r7 = results[(0.4, "none")], results[(0.5, "none")], results[(0.7, "none")]
    states = [state(r5, "t1", "late-tie", "5"), state(r4, "t2", "low", "1"), state(r7, "t3", "top", "9")]
    states.append(state(r5, "t4", "early-tie", "3"))
    df = frame("scb", scored_rows(states, GOLD16, SCORER_VERSION))
    assert list(df["model"]) == ["top", "early-tie", "late-tie", "low"]
    # honest ranks (leaderboard.ranks): 1 + the rows whose interval lies wholly above, so the
    # 50.0/50.0 tie shares a rank; on 16 questions the intervals overlap widely
    low_high = {m: r.overall["acc_ci"] for m, r in (("top", r7), ("early-tie", r5), ("late-tie", r5), ("low", r4))}
    expected = [1 + sum(lo > low_high[m][1] for lo, _ in low_high.values()) for m in df["model"]]
    assert list(df["rank"]) == expected and df["rank"][1] == df["rank"][2]
    assert (df["rank_worst"] >= df["rank"]).all()
    assert list(df["overall.acc"]) == pytest.approx([70.0, 50.0, 50.0, 40.0])
    assert df["overall.acc"].dtype == float  # numbers stay numbers
    assert list(df["submitted"]) == ["2026-03-09", "2026-03-03", "2026-03-05", "2026-03-01"]


def test_row_rule_latest_or_best_per_team_and_model(results: dict) -> None:
    r4, r5, r7 = results[(0.4, "none")], results[(0.5, "none")], results[(0.7, "none")]
    states = [state(r5, "Team", "M", "1"), state(r7, "team", "m", "2"), state(r4, "TEAM", "M", "3")]
    states.append(state(r7, "Team", "M", "4"))  # a later tie of the best: the earlier one stays
    states.append(state(r5, "other", "M", "1"))
    latest = scored_rows(states, GOLD16, SCORER_VERSION, "latest")
    best = scored_rows(states, GOLD16, SCORER_VERSION, "best")
    pick = {r.team.casefold(): r.submission_id for r in latest}
    assert pick == {"team": "id-Team-M-4", "other": "id-other-M-1"}
    pick = {r.team.casefold(): r.submission_id for r in best}
    assert pick == {"team": "id-team-m-2", "other": "id-other-M-1"}
    assert len(scored_rows(states[:3], GOLD16, SCORER_VERSION, "latest")) == 1
    assert scored_rows(states[:3], GOLD16, SCORER_VERSION, "latest")[0].submission_id == "id-TEAM-M-3"
    with pytest.raises(ValueError):
        scored_rows(states, GOLD16, SCORER_VERSION, "newest")


def test_hidden_submissions_are_excluded(results: dict) -> None:
    r5, r7 = results[(0.5, "none")], results[(0.7, "none")]
    states = [state(r5, "t", "m", "1"), state(r7, "t", "m", "2", hidden=True), state(r7, "u", "x", "1", hidden=True)]
    # hiding the row of (t, m) leaves it empty: no silent return of the older entry (as-users.md
    # P4; this test asserted that fallback before teams chose their rows, docs/teams.md)
    assert scored_rows(states, GOLD16, SCORER_VERSION, "latest") == []
    assert scored_rows(states, GOLD16, SCORER_VERSION, "best") == []  # the hidden 70% is the best
    shown = [state(r5, "t", "m", "1"), state(r7, "t", "m", "2"), state(r5, "u", "x", "1", hidden=True)]
    assert [r.submission_id for r in scored_rows(shown, GOLD16, SCORER_VERSION, "latest")] == ["id-t-m-2"]


def test_only_results_of_the_gold_and_scorer_asked_for(results: dict) -> None:
    r5 = results[(0.5, "none")]
    states = [state(r5, "t", "old-gold", "1", gold="o" * 16), state(r5, "t", "old-scorer", "2", scorer="0.9.0")]
    assert scored_rows(states, GOLD16, SCORER_VERSION) == []
    assert [r.model for r in scored_rows(states, GOLD16, None)] == ["old-scorer"]  # newest scorer on that gold
    assert [r.model for r in scored_rows(states, "o" * 64, None)] == ["old-gold"]


def test_paper_rows_are_present_and_marked(results: dict) -> None:
    rows = baseline_rows("scb")
    assert {r.model for r in rows} == {r["model"] for r in paper_rows("scb")} and len(rows) > 3
    assert {r.source for r in rows} == {PAPER_SOURCE} == {"reported in paper"}
    states = [state(results[(0.7, "none")], "t", "mine", "1")]
    df = frame("scb", scored_rows(states, GOLD16, SCORER_VERSION) + rows)
    assert (df["source"] == "reported in paper").sum() == len(rows)
    assert list(df.loc[df["source"] == SCORED_SOURCE, "model"]) == ["mine"]
    assert df["rank"].is_monotonic_increasing and df["overall.acc"].is_monotonic_decreasing
    kv = baseline_rows("kviscuit")
    assert kv and {r.source for r in kv} == {PAPER_SOURCE}


def test_paper_rows_win_ties_as_the_earliest() -> None:
    figures = {"overall": {"acc": 50.0}}
    mine = BoardRow("a-mine", "t", "open", SCORED_SOURCE, figures, submitted_at="2026-01-01T00:00:00+00:00")
    paper = BoardRow("z-paper", "(paper)", "open", PAPER_SOURCE, figures)
    assert list(frame("scb", [mine, paper])["model"]) == ["z-paper", "a-mine"]


def test_missing_grounding_is_nan_not_zero(results: dict) -> None:
    no_box, boxed = results[(0.5, "none")], results[(0.6, "bbox_good")]
    assert no_box.overall["miou"] is None
    df = frame("scb", scored_rows([state(no_box, "t", "text-only", "1"), state(boxed, "u", "boxed", "2")], GOLD16,
                                  SCORER_VERSION)).set_index("model")  # fmt: skip
    for key in ("overall.miou", "overall.miou_ci", "overall.gacc50", "overall.ciou", "type.1.miou"):
        assert math.isnan(df.loc["text-only", key]), key
        assert df.loc["boxed", key] > 0, key
    papers = frame("scb", baseline_rows("scb")).set_index("model")
    assert math.isnan(papers.loc["InstructBLIP", "overall.miou"])  # null in the paper
    assert math.isnan(papers.loc["InstructBLIP", "overall.acc_ci"])  # not reported at all


def test_views_and_columns_come_from_the_declaration(results: dict) -> None:
    bench = get_benchmark("scb")
    assert views(bench) == [("overall", "Overview"), ("type", "By type"), ("country", "By country"),
                            ("category", "By category")]  # fmt: skip
    rows = scored_rows([state(results[(0.6, "bbox_good")], "t", "m", "1")], GOLD16, SCORER_VERSION)
    for view, _ in views(bench):
        cols = frame_columns(bench, view)
        df = frame("scb", rows, view)
        assert list(df.columns) == [c.key for c in cols]
        assert [c.key for c in cols[:6]] == ["rank", "rank_worst", "model", "team", "model_type", "source"]
        assert [c.key for c in cols[-7:]] == [  # the public fields of submissions.fields, then the row id
            "submitted", "model_repo", "paper_url", "code_url", "model_params", "model_license", "row_id",
        ]  # fmt: skip
        if view != "overall":
            grouping = bench.grouping(view)
            keys = {c.key for c in cols}
            assert {f"{view}.{label}.acc" for label in grouping.order} <= keys
            assert {f"{view}.{label}.miou" for label in grouping.order} <= keys
            label = grouping.order[0]
            first = [(c.header, c.group) for c in cols if c.key == f"{view}.{label}.acc"]
            assert first == [(grouping.abbrev(label), grouping.show(label))]  # e.g. "T1" in group "T1 within culture"
            for label in grouping.order:
                assert df.loc[0, f"{view}.{label}.acc"] == pytest.approx(rows[0].figures[view][label]["acc"])
    overall = {c.key: c for c in columns(bench, "overall")}
    assert (overall["overall.acc"].header, overall["overall.acc"].group) == ("Acc", "Accuracy")
    assert overall["overall.acc_ci"].kind is Kind.CI and overall["overall.acc"].ci == "overall.acc_ci"
    assert {f"type.{t}.acc" for t in ("1", "2", "3")} <= set(overall)
    assert {"overall.miou", "overall.gacc50", "overall.ciou"} <= set(overall)
    everything = [c.key for c in export_columns(bench)]
    assert len(everything) == len(set(everything))
    page_only = ["model_architecture", "model_gated", "model_sha"]  # the model page and the dataset only
    per_group = {f"{g.name}.{label}.gacc50" for g in bench.groupings for label in g.order}  # group_metrics (issue 44)
    assert not per_group & {c.key for v, _ in views(bench) for c in columns(bench, v)}
    assert set(everything) == {c.key for v, _ in views(bench) for c in columns(bench, v)} | set(page_only) | per_group
    assert everything[-3:] == page_only
    assert [c.key for c in frame_columns(bench, "all")] == list(frame("scb", rows, "all").columns)
    with pytest.raises(KeyError):
        frame("scb", rows, "continent")


def test_kviscuit_columns_include_the_ten_categories() -> None:
    bench = get_benchmark("kviscuit")
    keys = [c.key for c in columns(bench, "overall")]
    expected = [f"category.{c}.acc" for c in demo.KVISCUIT_CATEGORIES]
    assert [k for k in keys if k.startswith("category.")] == expected
    assert {"type.1.acc", "type.2.acc", "overall.acc", "overall.acc_ci"} <= set(keys)
    assert not any("miou" in k for k in keys)
    headers = {c.key: c.header for c in columns(bench, "overall")}
    grouping = bench.grouping("category")
    assert [headers[k] for k in expected] == [grouping.show(c) for c in demo.KVISCUIT_CATEGORIES]
    df = frame("kviscuit", baseline_rows("kviscuit"))
    assert set(expected) <= set(df.columns) and len(df) == len(paper_rows("kviscuit"))


@pytest.mark.parametrize("evil", ['=HYPERLINK("http://evil.example","click")', "+1+1", "-2+3", "@SUM(A1:A9)", "\t=1"])
def test_csv_export_neutralises_formulas(evil: str) -> None:
    row = BoardRow(evil, evil, "open", SCORED_SOURCE, {"overall": {"acc": -1.5}}, paper_url=evil)
    plain = BoardRow("Plain-7B", "team (x)", "open", SCORED_SOURCE, {"overall": {"acc": 10.0}})
    data = to_csv_bytes(frame("scb", [row, plain]))
    records = list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline="")))
    bad = next(r for r in records if r["model"] != "Plain-7B")
    for key in ("model", "team", "paper_url"):
        assert bad[key] == "'" + evil, key
    good = next(r for r in records if r["model"] == "Plain-7B")
    assert good["team"] == "team (x)"
    assert float(bad["overall.acc"]) == -1.5  # numbers are not text: left alone
    assert csv_safe(3) == 3 and csv_safe("ok=1") == "ok=1"


def test_csv_round_trips_numbers_and_nan() -> None:
    row = BoardRow("m", "t", "open", SCORED_SOURCE, {"overall": {"acc": 12.345678901, "miou": None}})
    df = pd.read_csv(io.BytesIO(to_csv_bytes(frame("scb", [row]))))
    assert df.loc[0, "overall.acc"] == pytest.approx(12.345678901) and math.isnan(df.loc[0, "overall.miou"])


def test_empty_board(tmp_path: Path) -> None:
    df = frame("scb", [])
    assert df.empty and list(df.columns) == [c.key for c in frame_columns(get_benchmark("scb"))]


def test_csv_export_round_trips_line_breaks_inside_cells() -> None:
    import csv
    import io

    df = pd.DataFrame({"model": ["a\rb", "c\nd", "=1+1"], "overall.acc": [1.5, float("nan"), 2.0]})
    rows = list(csv.reader(io.StringIO(to_csv_bytes(df).decode(), newline="")))
    assert rows == [["model", "overall.acc"], ["a\rb", "1.5"], ["c\nd", ""], ["'=1+1", "2.0"]]


def _kv_rows(tmp_path: Path) -> list[BoardRow]:
    """A K-Viscuit row read leniently (responses "Image X"), one read strictly and a paper's row."""
    records = demo.kviscuit_gold(seed=0)
    gold = load_gold("kviscuit", demo.write_jsonl(tmp_path / "kv.jsonl", records))
    right = ["ABCD"[r["answer"]] for r in records]
    lenient = [{"question_id": i, "response": f"Image {a}" if i % 2 else a} for i, a in enumerate(right)]
    strict = [{"question_id": i, "response": a} for i, a in enumerate(right) if i % 3]
    rows = []
    for name, lines in (("Lenient-VLM", lenient), ("Strict-VLM", strict)):
        result = score_file("kviscuit", gold, write_lines(tmp_path / f"{name}.jsonl", lines))
        rows.append(BoardRow(name, "T", "open", SCORED_SOURCE, result.to_dict(), "2026-01-01", name))
    return rows + baseline_rows("kviscuit")[:1]


def test_kviscuit_board_shows_the_strict_figure_and_how_many_lines_were_read_leniently(tmp_path: Path) -> None:
    """issue 19: the lenient row ranks first (100) among rows scored by the exact-letter rule;
    the overview and the published table say what that rule gives and how many lines it refused."""
    df = frame("kviscuit", _kv_rows(tmp_path), "overall").set_index("model")
    assert df.loc["Lenient-VLM", "overall.acc"] == 100.0
    assert df.loc["Lenient-VLM", "overall.acc_strict"] == pytest.approx(100 * 329 / 657)
    assert df.loc["Lenient-VLM", "counts.lenient"] == 328
    assert df.loc["Strict-VLM", "overall.acc_strict"] == df.loc["Strict-VLM", "overall.acc"]
    assert df.loc["Strict-VLM", "counts.lenient"] == 0
    paper = df.loc[baseline_rows("kviscuit")[0].model]
    assert math.isnan(paper["counts.lenient"])
    headers = [c.header for c in columns(get_benchmark("kviscuit"), "overall")]
    assert headers.index("Acc strict") + 1 == headers.index("Read leniently")
    every = frame("kviscuit", _kv_rows(tmp_path), "all")
    assert {"overall.acc_strict", "counts.lenient"} <= set(every.columns)


def test_scb_has_no_strict_columns() -> None:
    keys = {c.key for c in export_columns(get_benchmark("scb"))}
    assert not {k for k in keys if "strict" in k or "lenient" in k}
