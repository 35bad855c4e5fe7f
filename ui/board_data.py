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
from typing import Any, Protocol

import pandas as pd

from leaderboard.baselines import PAPER_SOURCE
from leaderboard.columns import EVERY_VIEW, LENIENT_KEY, Column, Kind, columns, views
from leaderboard.ranks import order_keys
from leaderboard.table import ANONYMOUS, SCORED_SOURCE, Board, BoardRow, as_shown
from scoring.benchmarks import BENCHMARKS, Benchmark, Scatter
from store.golds import GoldInfo
from submissions import fields
from ui import display

DATA_FORMAT = 2  # 2: rows carry their links, size bucket and Hub facts; the fields' declarations


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


def _ordered_bounds(rows: list[BoardRow], bench: Benchmark) -> dict[str, tuple[float, float]]:
    """Row id -> its primary interval as order keys over every row (:func:`leaderboard.ranks.order_keys`):
    the browser's ranks are the server's, computed at full precision, and no bound leaves with digits."""
    pairs = [r.rank_bounds(bench.primary) for r in rows]
    keys = iter(order_keys([v for pair in pairs for v in pair]))
    return {r.row_id: (next(keys), next(keys)) for r in rows}


def rows_data(read: ReadSide, bench: Benchmark) -> list[dict]:
    """Every row of the board (the ``all`` view, in board order) with its primary interval and
    what it shows of its fields (:func:`shown_values`)."""
    frame = as_shown(bench.id, read.table(bench.id, EVERY_VIEW))
    intervals = _ordered_bounds(read.board(bench.id).rows, bench)
    serves_files = callable(getattr(read, "eval_results", None))  # the writer; a reader has no submissions
    out = []
    for record in frame.to_dict(orient="records"):
        row = {key: _plain(value) for key, value in record.items()}
        lo, hi = intervals.get(row["row_id"], (math.nan, math.nan))
        row["lo"], row["hi"] = _bound(lo), _bound(hi)
        row.update(shown_values(row))
        if serves_files and row.get("source") == SCORED_SOURCE and row.get("model") != ANONYMOUS:
            row["_hub_file"] = f"eval_results/{bench.id}/{row['row_id']}.yaml"  # ui/eval_results_route.py
        out.append(row)
    return out


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
            note = html.escape(display.scatter_note(rows, bench, plot))
            plot_id = f"{bench.id}-scatter" if i == 0 else f"{bench.id}-scatter-{i}"
            parts.append(
                f'<section class="plot"><h3>{title}</h3><div id="{plot_id}" class="board-scatter">{value}</div>'
                f'<p class="plot-note" id="{plot_id}-note">{note}</p></section>'
            )
        else:
            suffix = "" if plot.metric == bench.primary_metric else f"-{plot.metric}"
            parts.append(f'<section class="plot" id="{bench.id}-heat-{plot.grouping}{suffix}">{value}</section>')
    return "".join(parts)


def benchmark_data(read: ReadSide, bench: Benchmark) -> dict:
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
        "metrics": [
            {"name": m.name, "label": m.label, "abbrev": m.abbrev, "decimals": m.decimals, "about": m.description}
            for m in bench.metrics
        ],
        "groupings": [
            {"name": g.name, "label": g.label, "labels": list(g.order), "shown": [g.show(v) for v in g.order]}
            for g in bench.groupings
        ],
        "view_metrics": list(bench.view_metrics),
        "headline": headline(bench),
        "sizes": read.group_sizes(bench.id),
        "gold_questions": gold.questions if gold else None,
        "has_gold": gold is not None,
        "context": context_text(read, bench.id),
        "rows": rows_data(read, bench),
        "plots": plots_html(read, bench),
    }


def board_data(read: ReadSide, empty_board: str) -> dict:
    """Every registered benchmark's board (see module doc); ``empty_board`` is what an empty board
    says about where to submit."""
    return {
        "format": DATA_FORMAT,
        "types": {key: list(kept) for key, kept in display.TYPE_FILTERS.items()},
        "type_labels": display.MODEL_TYPE_LABELS,
        "type_tones": {c.key: c.tone for c in fields.MODEL_TYPE.choices},
        "size_choices": list(fields.SIZE_CHOICES),
        "lenient": {"key": LENIENT_KEY, "mark": display.LENIENT_MARK},
        "sources": [SCORED_SOURCE, PAPER_SOURCE],
        "paper_source": PAPER_SOURCE,
        "empty_board": empty_board,
        "benchmarks": [benchmark_data(read, bench) for bench in BENCHMARKS.values()],
    }


def fingerprints(read: ReadSide) -> tuple[str, ...]:
    """Changes whenever :func:`board_data` could."""
    return tuple(read.fingerprint(b) for b in BENCHMARKS)
