"""The public table: which submission is a team's row, how rows are ranked, which columns a
view has. Built from the benchmark declaration (metric labels, groupings, display names),
never by guessing from column names; numbers stay numbers (rounding is the UI's job).
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import pandas as pd

from leaderboard.baselines import PAPER_SOURCE, paper_rows
from scoring.benchmarks import Benchmark, get_benchmark
from submissions.catalog import SubmissionState

SCORED_SOURCE = "scored here"
ROW_RULES = ("latest", "best")


@dataclass(frozen=True)
class BoardRow:
    """One line of the leaderboard: a (team, model) with the figures of its chosen submission."""

    model: str
    team: str
    model_type: str
    source: str
    figures: dict  # "overall" -> stats, grouping -> label -> stats
    submitted_at: str = ""
    submission_id: str = ""
    paper_url: str = ""
    code_url: str = ""


@dataclass(frozen=True)
class Column:
    """A table column: ``key`` in the frame, ``header`` shown, ``group`` for column groups."""

    key: str
    header: str
    group: str
    kind: str = "number"  # "text", "number", "ci" (a half-width), "date", "url"
    decimals: int = 2
    higher_is_better: bool = True


def scored_rows(
    states: Iterable[SubmissionState], gold_version: str | None, scorer_version: str | None, row_rule: str = "latest"
) -> list[BoardRow]:
    """Rows of scored, visible submissions: per (team, model), the latest or the best.
    ``scorer_version`` None takes each submission's newest result on that gold; ``gold_version``
    None its newest result on any gold (the board as it stood before a rescore)."""
    if row_rule not in ROW_RULES:
        raise ValueError(f"row rule must be one of {ROW_RULES}")
    chosen: dict[tuple[str, str], tuple[tuple, BoardRow]] = {}
    for state in states:
        if state.hidden:
            continue
        row = _row_of(state, gold_version, scorer_version)
        if row is None:
            continue
        meta = state.meta
        acc = row.figures["overall"].get("acc") or 0.0
        # latest: newest wins; best: highest accuracy, then the earlier submission
        rank = (meta.submitted_at,) if row_rule == "latest" else (acc, _negated(meta.submitted_at))
        key = (meta.team.casefold(), meta.model.casefold())
        if key not in chosen or rank > chosen[key][0]:
            chosen[key] = (rank, row)
    return [row for _, row in chosen.values()]


def _row_of(state: SubmissionState, gold_version: str | None, scorer_version: str | None) -> BoardRow | None:
    """The state's row for that gold (and scorer), made once: results never change, they are
    only added (hence the count in the cache key)."""
    cache_key = ("board_row", gold_version, scorer_version, len(state.results))
    if cache_key in state.derived:
        return state.derived[cache_key]
    if gold_version is None:
        result = state.newest_result()
    elif scorer_version is None:
        result = state.latest_result(gold_version)
    else:
        result = state.result(gold_version, scorer_version)
    meta = state.meta
    row = None
    if result is not None:
        row = BoardRow(
            model=meta.model,
            team=meta.team,
            model_type=meta.model_type,
            source=SCORED_SOURCE,
            figures=result.to_dict(),
            submitted_at=meta.submitted_at,
            submission_id=meta.id,
            paper_url=meta.paper_url,
            code_url=meta.code_url,
        )
    state.derived[cache_key] = row
    return row


def _negated(text: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in text)


def baseline_rows(benchmark: str) -> list[BoardRow]:
    return [
        BoardRow(
            model=r["model"], team="(paper)", model_type=r["model_type"], source=PAPER_SOURCE, figures=r["figures"]
        )
        for r in paper_rows(benchmark)
    ]


def views(bench: Benchmark) -> list[tuple[str, str]]:
    """(view id, label): the overview, then one view per grouping."""
    return [("overall", "Overview")] + [(g.name, f"By {g.label.lower()}") for g in bench.groupings]


def columns(bench: Benchmark, view: str = "overall") -> list[Column]:
    """The columns of a view, from the declaration."""
    cols = [
        Column("rank", "Rank", "Model", "number", 0),
        Column("model", "Model", "Model", "text"),
        Column("team", "Team", "Model", "text"),
        Column("model_type", "Model type", "Model", "text"),
    ]
    primary = [m for m in bench.metrics if m.name == bench.primary_metric][0]
    if view == "overall":
        first = bench.groupings[0]
        for metric in bench.metrics:
            group = metric.label
            cols.append(Column(f"overall.{metric.name}", f"{metric.label}", group, "number", metric.decimals))
            if metric.ci:
                cols.append(Column(f"overall.{metric.ci}", "±", group, "ci", metric.decimals))
            if metric.name in ("acc", "miou"):
                for label in first.order:
                    header = f"{first.abbrev(label)} {metric.label}"
                    cols.append(Column(f"{first.name}.{label}.{metric.name}", header, group, "number", metric.decimals))
        if not bench.grounding and len(bench.groupings) > 1:  # K-Viscuit: the ten categories too
            second = bench.groupings[1]
            for label in second.order:
                cols.append(Column(f"{second.name}.{label}.acc", second.show(label), second.label, "number"))
    else:
        grouping = bench.grouping(view)
        for label in grouping.order:
            for metric in bench.metrics:
                if metric.name in ("acc", "miou"):
                    header = grouping.show(label) + ("" if metric is primary else f" {metric.label}")
                    cols.append(Column(f"{view}.{label}.{metric.name}", header, grouping.show(label), "number"))
    cols += [
        Column("source", "Source", "About", "text"),
        Column("submitted", "Submitted", "About", "date"),
        Column("paper_url", "Paper", "About", "url"),
        Column("code_url", "Code", "About", "url"),
    ]
    return cols


def export_columns(bench: Benchmark) -> list[Column]:
    """Every column of every view once: the public dataset's schema."""
    seen: dict[str, Column] = {}
    for view, _ in views(bench):
        for col in columns(bench, view):
            seen.setdefault(col.key, col)
    return list(seen.values())


def figure_getter(key: str):
    """A function reading column ``key`` (``overall.acc``, ``type.1.miou``, ``overall.acc_ci``)
    out of a row's figures: NaN when absent or null, an interval as its half-width. Built once
    per column, so a table of 10,000 rows costs one lookup per cell."""
    path = key.split(".")
    head, middle, last = path[0], path[1:-1], path[-1]

    def get(figures: dict) -> float:
        node = figures.get(head)
        for part in middle:
            node = node.get(part) if node else None
        value = node.get(last) if node else None
        kind = type(value)
        if kind is float or kind is int:
            return value if value == value else math.nan
        if kind is list and len(value) == 2:
            return (value[1] - value[0]) / 2
        return math.nan

    return get


def frame(benchmark: str, rows: list[BoardRow], view: str = "overall") -> pd.DataFrame:
    """The table of a view, ranked: primary metric descending, ties to the earlier submission
    (papers' rows count as the earliest). Absent figures are NaN."""
    bench = get_benchmark(benchmark)
    cols = export_columns(bench) if view == "all" else columns(bench, view)
    primary = figure_getter(f"overall.{bench.primary_metric}")
    ordered = sorted(
        rows, key=lambda r: (-_nan_low(primary(r.figures)), r.submitted_at, r.source != PAPER_SOURCE, r.model)
    )
    getters = [(c.key, figure_getter(c.key)) for c in cols if c.kind in ("number", "ci") and c.key != "rank"]
    figure_keys = [k for k, _ in getters]
    records = []
    for rank, row in enumerate(ordered, 1):
        figures = row.figures
        record = {k: get(figures) for k, get in getters}
        record.update(
            rank=rank,
            model=row.model,
            team=row.team,
            model_type=row.model_type,
            source=row.source,
            submitted=row.submitted_at[:10],
            paper_url=row.paper_url,
            code_url=row.code_url,
        )
        records.append(record)
    df = pd.DataFrame.from_records(records, columns=[c.key for c in cols]) if records else None
    if df is None:
        return pd.DataFrame(columns=[c.key for c in cols])
    df[figure_keys] = df[figure_keys].astype(float)
    return df


def _nan_low(value: float) -> float:
    return -math.inf if math.isnan(value) else value


@dataclass
class Board:
    """All rows of one benchmark, ready to view (the app caches one per catalog generation)."""

    benchmark: str
    rows: list[BoardRow] = field(default_factory=list)

    def view(self, view: str = "overall") -> pd.DataFrame:
        return frame(self.benchmark, self.rows, view)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: object) -> object:
    """Neutralise spreadsheet formulas in text cells (CSV injection): prefix a quote."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def to_csv_bytes(df: pd.DataFrame) -> bytes:
    safe = df.copy()
    for col in safe.columns:
        if safe[col].dtype == object or pd.api.types.is_string_dtype(safe[col]):
            safe[col] = safe[col].map(csv_safe)
    # RFC 4180 line ends: a field holding a bare \r is then quoted (with "\n" it would split the row)
    return safe.to_csv(index=False, lineterminator="\r\n").encode("utf-8")


def to_parquet_bytes(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    return buf.getvalue()
