"""The public board's data, as the board page sends it to the browser: one JSON-ready dict.

Built from the read side's public methods only (``table``, ``board``, ``gold_info``,
``group_sizes``, ``last_updated``, ``fingerprint``), which the writer's ``Leaderboard`` and the
reader's ``PublishedLeaderboard`` both offer: a reader bakes the same page from the published
results alone. Per benchmark it holds the column model of every view (from the declaration via
:mod:`leaderboard.columns`, so a column the published table gains shows with no edit here), the
rows of the ``all`` view (the public dataset's schema, figures rounded as shown, missing as
``null``) and each row's interval of the primary figure as order keys (``lo``/``hi``: places among
every row's bounds, no digits), from which the browser re-ranks the rows a visitor keeps with the
board's own rule (:mod:`leaderboard.ranks`), exactly as the server ranks them. Plots are rendered here, once
per data change, over every row.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd

from leaderboard.baselines import PAPER_SOURCE
from leaderboard.columns import EVERY_VIEW, LENIENT_KEY, Column, Kind, columns, figure_key, views
from leaderboard.ranks import order_keys
from leaderboard.table import ANONYMOUS, SCORED_SOURCE, Board, BoardRow, as_shown, figure_getter
from scoring.benchmarks import BENCHMARKS, Benchmark, Metric, Scatter
from scoring.benchmarks.base import Stat
from store.golds import GoldInfo
from submissions import fields
from ui import display

DATA_FORMAT = 3  # 2: rows carry their links, size bucket and Hub facts; 3: the declared filters
MAX_FILTER_CHOICES = 60  # a filter offering the values rows have offers at most this many
ADDRESS_KEYS = frozenset({"bench", "view", "q", "hide", "sort", "model", "compare", "tab", "focus", "metric"})
"""The board address's own keys: no declared filter may take one (ui/static/board.js)."""


class ReadSide(Protocol):
    """What the board page reads (``Leaderboard`` and ``PublishedLeaderboard`` both have it)."""

    def board(self, benchmark: str) -> Board: ...
    def table(self, benchmark: str, view: str = "overall", keep=None) -> pd.DataFrame: ...
    def fingerprint(self, benchmark: str) -> str: ...
    def gold_info(self, benchmark: str) -> GoldInfo | None: ...
    def group_sizes(self, benchmark: str) -> dict[str, dict[str, int]]: ...
    def last_updated(self, benchmark: str) -> str: ...


def column_data(col: Column) -> dict:
    return {
        "key": col.key,
        "header": col.header,
        "group": col.group,
        "kind": str(col.kind),
        "decimals": col.decimals,
        "ci": col.ci,
        "higher": col.higher_is_better,
        "figure": list(col.figure) if col.figure else None,
    }


def _plain(value: Any) -> Any:
    """A JSON value: NaN, None and ``pd.NA`` (an unknown size) are null, numpy numbers plain numbers."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float | int) and not isinstance(value, bool):
        number = float(value)
        if math.isnan(number):
            return None
        return int(value) if isinstance(value, int) else number
    if hasattr(value, "item"):  # numpy scalar
        return _plain(value.item())
    return str(value)


def _bound(value: float) -> float | None:
    return None if math.isnan(value) else value


def shown_values(row: dict) -> dict:
    """What the page shows of a row's declared fields, by the one rule each has in Python (so the
    browser re-implements none): ``_links`` (Hub page, then the URL fields: the name links the
    first), ``_size``/``_size_text`` (:func:`fields.size_bucket`, :func:`fields.size_text`) and
    ``_facts`` (the model page's Hub facts, the revision linked to its commit). An anonymous row
    comes blanked from the server, so it has none of them."""
    params = row.get(fields.SIZE_FIELD)
    return {
        "_links": [list(pair) for pair in display.row_links(row)],
        "_size": fields.size_bucket(params),
        "_size_text": fields.size_text(params),
        "_facts": [list(fact) for fact in display.hub_facts(row)],
    }


@dataclass(frozen=True)
class BoardFilter:
    """A declared filter of the board's rows by one column (:class:`fields.ColumnFilter`)."""

    column: str
    spec: fields.ColumnFilter
    lower: bool = False  # a choice field's stored key (matched in lower case, as the form stores it)

    @property
    def param(self) -> str:
        return self.spec.param or self.column

    def value(self, raw: Any) -> str:
        """What the filter matches of a row's value (as the row shows it)."""
        text = "" if raw is None else str(raw)
        if self.spec.value is not None:
            return self.spec.value(text)
        return text.strip().lower() if self.lower else text


SOURCE_FILTER = BoardFilter(
    "source",
    fields.ColumnFilter(
        label="Source",
        param="sources",
        elem="source",
        choices=tuple((s, s) for s in (SCORED_SOURCE, PAPER_SOURCE)),
    ),
)
"""The one filter not on a submission field: scored here or the papers' rows."""


def board_filters() -> list[BoardFilter]:
    """The source filter, then every public field's declared filter, in declaration order."""
    declared = [BoardFilter(f.name, f.filter, bool(f.choices)) for f in fields.public_fields() if f.filter]
    out = [SOURCE_FILTER, *declared]
    taken = [f.param for f in out if f.param in ADDRESS_KEYS]
    if taken or len({f.param for f in out}) < len(out):
        raise ValueError(f"a filter's address key is taken: {taken or [f.param for f in out]}")
    return out


def filter_choices(flt: BoardFilter, rows: Iterable[dict]) -> list[list[str]]:
    """(value, label) pairs a filter offers: declared, else the field's choices, else the values
    the rows have (at most :data:`MAX_FILTER_CHOICES`, "not given" for an empty one)."""
    if flt.spec.choices:
        return [list(pair) for pair in flt.spec.choices]
    field = next((f for f in fields.public_fields() if f.name == flt.column), None)
    if field is not None and field.choices:
        return [[c.key, c.label] for c in field.choices]
    seen = sorted({r["_filters"][flt.param] for r in rows})[:MAX_FILTER_CHOICES]
    return [[v, v or "not given"] for v in seen]


def filter_data(flt: BoardFilter, rows: list[dict]) -> dict:
    spec = flt.spec
    label = spec.label or next((f.label for f in fields.public_fields() if f.name == flt.column), flt.column)
    elem = spec.elem or flt.column
    return {
        "param": flt.param,
        "type": spec.type,
        "label": label,
        "id": f"{elem}-choice",
        "choices": filter_choices(flt, rows),
    }


def _ordered_bounds(rows: list[BoardRow], bench: Benchmark) -> dict[str, tuple[float, float]]:
    """Row id -> its primary interval as order keys over every row (:func:`leaderboard.ranks.order_keys`):
    the browser's ranks are the server's, computed at full precision, and no bound leaves with digits."""
    pairs = [r.rank_bounds(bench.primary) for r in rows]
    keys = iter(order_keys([v for pair in pairs for v in pair]))
    return {r.row_id: (next(keys), next(keys)) for r in rows}


def group_intervals(bench: Benchmark) -> Callable[[BoardRow], dict]:
    """A row -> grouping -> label -> metric -> the half-width of that group figure's 95% interval,
    read and rounded by the rule of the overall one (:func:`leaderboard.table.figure_getter`, then
    the metric's decimals, as :func:`as_shown`): the model page's per-group intervals, no digit more
    than the board shows of an interval."""
    getters = [
        (
            g.name,
            label,
            m,
            figure_getter(
                Column(figure_key(m.ci, g.name, label), "", g.label, Kind.CI, m.decimals, figure=(g.name, label, m.ci))
            ),
        )
        for g in bench.groupings
        for label in g.order
        for m in bench.metrics
        if m.ci
    ]

    def of(row: BoardRow) -> dict:
        out: dict[str, dict[str, dict[str, float]]] = {}
        for grouping, label, metric, get in getters:
            half = get(row.figures)
            if not math.isnan(half):
                out.setdefault(grouping, {}).setdefault(label, {})[metric.name] = round(half, metric.decimals)
        return out

    return of


def rows_data(read: ReadSide, bench: Benchmark, filters: list[BoardFilter] | None = None) -> list[dict]:
    """Every row of the board (the ``all`` view, in board order) with its primary interval, what
    it shows of its fields (:func:`shown_values`) and the value each filter matches (``_filters``)."""
    filters = board_filters() if filters is None else filters
    frame = as_shown(bench.id, read.table(bench.id, EVERY_VIEW))
    board_rows = read.board(bench.id).rows
    intervals = _ordered_bounds(board_rows, bench)
    by_id, per_group = {r.row_id: r for r in board_rows}, group_intervals(bench)
    # the writer serves the files (a reader has no submissions), for a benchmark with a Hub registration only
    serves_files = callable(getattr(getattr(read, "visibility", None), "eval_results", None)) and bench.hub is not None
    out = []
    for record in frame.to_dict(orient="records"):
        row = {key: _plain(value) for key, value in record.items()}
        lo, hi = intervals.get(row["row_id"], (math.nan, math.nan))
        row["lo"], row["hi"] = _bound(lo), _bound(hi)
        row.update(shown_values(row))
        row["_filters"] = {f.param: f.value(row.get(f.column)) for f in filters}
        if (board_row := by_id.get(row["row_id"])) is not None and (cis := per_group(board_row)):
            row["_group_ci"] = cis
        if serves_files and row.get("source") == SCORED_SOURCE and row.get("model") != ANONYMOUS:
            row["_hub_file"] = f"eval_results/{bench.id}/{row['row_id']}.yaml"  # ui/eval_results_route.py
        out.append(row)
    link_twins(out)
    return out


def twin_key(model: str) -> str:
    """A model's name as matched across sources: case, spaces and punctuation ignored
    (``Qwen2.5-VL-7B`` and ``qwen2.5 vl 7b`` are one model)."""
    return re.sub(r"[\W_]+", "", str(model).casefold())


def link_twins(rows: list[dict]) -> None:
    """Each scored row whose model a paper row names too, and that paper row, get ``_twins``: the
    other side's row ids (the model page links them both ways). Anonymous rows match nothing."""
    by_source: dict[bool, dict[str, list[dict]]] = {True: {}, False: {}}
    for row in rows:
        if row.get("model") != ANONYMOUS:
            by_source[row.get("source") == PAPER_SOURCE].setdefault(twin_key(row.get("model", "")), []).append(row)
    papers, scored = by_source[True], by_source[False]
    for key in papers.keys() & scored.keys():
        for mine, theirs in ((papers[key], scored[key]), (scored[key], papers[key])):
            for row in mine:
                row["_twins"] = [r["row_id"] for r in theirs]


def headline(bench: Benchmark) -> list[str]:
    """The keys of the overview's overall figures (what a phone shows beside each name)."""
    return [c.key for c in columns(bench) if c.kind is Kind.NUMBER and c.figure and c.figure[1] is None]


def context_text(read: ReadSide, bench_id: str) -> str:
    """Last updated, and which gold the scored rows are on."""
    gold = read.gold_info(bench_id)
    updated = read.last_updated(bench_id)
    parts = [f"Last updated {updated[:16].replace('T', ' ')} UTC"] if updated else []
    if gold is not None:
        parts.append(f"gold {gold.version[:12]} of {gold.added_at[:10]} ({gold.questions:,} questions)")
    return " · ".join(parts)


def plots_html(read: ReadSide, bench: Benchmark) -> str:
    """The declared plots over every row, as the Gradio board drew them (a heatmap's title is its caption)."""
    rows = read.table(bench.id, EVERY_VIEW)
    parts = []
    values = display.plot_values(rows, bench, read.group_sizes(bench.id))
    for i, (plot, value) in enumerate(zip(display.drawn_plots(bench), values, strict=True)):
        title = html.escape(display.plot_title(bench, plot))
        if isinstance(plot, Scatter):
            plot_id = f"{bench.id}-scatter" if i == 0 else f"{bench.id}-scatter-{i}"
            parts.append(scatter_section(rows, bench, plot, plot_id, title, value))
        else:
            suffix = "" if plot.metric == bench.primary_metric else f"-{plot.metric}"
            parts.append(f'<section class="plot" id="{bench.id}-heat-{plot.grouping}{suffix}">{value}</section>')
    return "".join(parts)


def scatter_section(rows: pd.DataFrame, bench: Benchmark, plot: Scatter, plot_id: str, title: str, svg: str) -> str:
    """A scatter with what the page's script needs to follow the filters and explain a point
    (ui/static/board.js): its axes' figure keys and labels, the panel a tapped or focused point's
    details go to (read out when they change), and the note it rewrites with the rows plotted."""
    x, y = bench.metric(plot.x), bench.metric(plot.y)
    axes = " ".join(
        f'data-{axis}-key="{html.escape(figure_key(m.name))}" data-{axis}-label="{html.escape(m.label)}"'
        for axis, m in (("x", x), ("y", y))
    )
    why = html.escape(f"no {x.label} or {y.label}")
    note = html.escape(display.scatter_note(rows, bench, plot))
    hint = "Tap or click a point, or Tab to the chart and move with the arrow keys, for its model, team and figures."
    return (
        f'<section class="plot"><h3>{title}</h3><div id="{plot_id}" class="board-scatter" {axes}>{svg}</div>'
        f'<div class="point-details" id="{plot_id}-details" aria-live="polite" data-hint="{hint}">'
        f'<p class="point-hint">{hint}</p></div>'
        f'<p class="plot-note" id="{plot_id}-note" data-why="{why}">{note}</p></section>'
    )


SHARES = frozenset({Stat.CORRECT, Stat.CORRECT_STRICT, Stat.HIT50})
"""0/1 question columns: a metric of one over the questions is a share of them (a binomial proportion)."""


def metric_data(m: Metric) -> dict:
    """What the page says of a metric: names, decimals, direction, and which interval a group figure
    has (``bootstrap``: its own, in ``_group_ci``; ``share``: none published, but the figure is a
    share of the group's questions, so the focus gives it a Wilson interval; ``""``: none)."""
    share = m.numerator in SHARES and m.denominator is Stat.QUESTIONS
    interval = "bootstrap" if m.ci else "share" if share else ""
    return {
        "name": m.name,
        "label": m.label,
        "abbrev": m.abbrev,
        "decimals": m.decimals,
        "about": m.description,
        "higher": m.higher_is_better,
        "interval": interval,
    }


def benchmark_data(read: ReadSide, bench: Benchmark, filters: list[BoardFilter] | None = None) -> dict:
    gold = read.gold_info(bench.id)
    primary = bench.primary
    return {
        "id": bench.id,
        "name": bench.name,
        "description": bench.description,
        "paper": bench.paper,
        "primary": {"key": f"overall.{primary.name}", "higher": primary.higher_is_better, "label": primary.label},
        "views": [
            {"id": v, "label": label, "columns": [column_data(c) for c in columns(bench, v) if c.kind is not Kind.CI]}
            for v, label in views(bench)
        ],
        "metrics": [metric_data(m) for m in bench.metrics],
        "groupings": [
            {
                "name": g.name,
                "label": g.label,
                "labels": list(g.order),
                "shown": [g.show(v) for v in g.order],
                "field": g.field,  # the question browser's filter (ui/static/focus.js links it)
            }
            for g in bench.groupings
        ],
        "view_metrics": list(bench.view_metrics),
        "group_metrics": list(bench.group_metrics),  # what a group focus ranks by (ui/static/focus.js)
        "headline": headline(bench),
        "sizes": read.group_sizes(bench.id),
        "gold_questions": gold.questions if gold else None,
        "has_gold": gold is not None,
        "context": context_text(read, bench.id),
        "rows": rows_data(read, bench, filters),
        "plots": plots_html(read, bench),
    }


def board_data(read: ReadSide, empty_board: str) -> dict:
    """Every registered benchmark's board (see module doc); ``empty_board`` is what an empty board
    says about where to submit."""
    filters = board_filters()
    benches = [benchmark_data(read, bench, filters) for bench in BENCHMARKS.values()]
    every_row = [r for b in benches for r in b["rows"]]
    return {
        "format": DATA_FORMAT,
        "filters": [filter_data(f, every_row) for f in filters],
        "type_labels": display.MODEL_TYPE_LABELS,
        "type_tones": {c.key: c.tone for c in fields.MODEL_TYPE.choices},
        "lenient": {"key": LENIENT_KEY, "mark": display.LENIENT_MARK},
        "paper_source": PAPER_SOURCE,
        "scored_source": SCORED_SOURCE,
        "empty_board": empty_board,
        "benchmarks": benches,
    }


def fingerprints(read: ReadSide) -> tuple[str, ...]:
    """Changes whenever :func:`board_data` could."""
    return tuple(read.fingerprint(b) for b in BENCHMARKS)
