"""One benchmark's board tab: the table, its filters, downloads and plots.

:class:`BoardPages` renders a board for some filters and keeps the last renderings (shared by
every visitor); :class:`BoardTab` holds one tab's components and draws into them. The one rule
"a submission or a moderation changed the rows: redraw every board" is :class:`Redraw`.
"""

from __future__ import annotations

import html
import json
import threading
from collections import OrderedDict
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path

import gradio as gr
import pandas as pd
from gradio.components import Component

from leaderboard.service import Leaderboard
from leaderboard.table import to_csv_bytes, to_parquet_bytes, views
from scoring.benchmarks import get_benchmark
from scoring.benchmarks.base import Benchmark, Scatter
from store.golds import GoldInfo
from submissions import fields
from ui import display, page
from ui.baked import Shown
from ui.downloads import Downloads
from ui.style import PINNED_WIDTHS

RENDERINGS_KEPT = 64


@dataclass(frozen=True)
class Filters:
    """What a visitor chose on a board. Order-insensitive, so it keys the render cache."""

    view: str
    types: tuple[str, ...]
    sources: tuple[str, ...]
    query: str
    hidden: tuple[str, ...] = ()  # column groups the visitor hid
    sizes: tuple[str, ...] = fields.SIZE_CHOICES  # size buckets kept (submissions.fields)

    @classmethod
    def of(
        cls,
        view: str,
        types: list[str] | None,
        sources: list[str] | None,
        query: str | None,
        hidden: list[str] | None = None,
        sizes: list[str] | None = None,
    ) -> Filters:
        """``sizes`` None keeps every size (links and callers from before the size filter)."""
        kept = fields.SIZE_CHOICES if sizes is None else tuple(c for c in fields.SIZE_CHOICES if c in sizes)
        return cls(
            view, tuple(sorted(types or ())), tuple(sorted(sources or ())), query or "", tuple(sorted(hidden or ())),
            kept,
        )  # fmt: skip

    def keep(self):
        """The predicate on board rows (the board ranks the rows it keeps)."""
        sizes = None if self.sizes == fields.SIZE_CHOICES else self.sizes
        return display.row_filter(self.types, self.sources, self.query, sizes)

    def apply(self, frame: pd.DataFrame) -> pd.DataFrame:
        return display.filter_frame(frame, self.types, self.sources, self.query)


@dataclass(frozen=True)
class BoardPage:
    """One rendering of a board: what its outputs show, in the order of ``BoardTab.outputs``."""

    table: dict
    datatypes: tuple[str, ...]
    legend: str
    summary: str
    csv: str
    parquet: str
    plots: tuple[object, ...]

    def updates(self) -> list:
        table = gr.Dataframe(value=self.table, datatype=list(self.datatypes), column_widths=PINNED_WIDTHS)
        return [table, self.legend, self.summary, self.csv, self.parquet, *self.plots]


EMPTY_BOARD = "No rows yet: be the first to submit (Submit tab)."


def summary_markdown(
    bench: Benchmark, total: int, shown: int, gold: GoldInfo | None, empty_board: str = EMPTY_BOARD
) -> str:
    """The "showing n of m rows" line, plus why a board is empty (``empty_board``: where to
    submit, which a reader's page says differently) or has no scored rows."""
    note = ""
    if gold is None:
        note = (
            f"\n\n**No gold is loaded for {bench.name} yet**: only the papers' published rows are shown and "
            "submissions open once a maintainer adds the gold (`python -m leaderboard gold add`)."
        )
    if total == 0:
        note += "\n\n" + empty_board
    elif shown == 0:
        note += "\n\nNo rows match these filters."
    return display.summary_text(total, shown, gold.questions if gold else None) + note


def plots(bench: Benchmark, rows: pd.DataFrame, sizes: dict) -> tuple[object, ...]:
    """The values of the declared plots in page order: a scatter's points then its note (which
    rows it leaves out), a heatmap's HTML."""
    values: list[object] = []
    for plot, value in zip(display.drawn_plots(bench), display.plot_values(rows, bench, sizes), strict=True):
        values.append(value)
        if isinstance(plot, Scatter):
            values.append(display.scatter_note(rows, bench, plot))
    return tuple(values)


def context_markdown(leaderboard: Leaderboard, bench_id: str) -> str:
    """Last updated, and which gold the scored rows are on."""
    gold = leaderboard.gold_info(bench_id)
    updated = leaderboard.last_updated(bench_id)
    parts = [f"Last updated {updated[:16].replace('T', ' ')} UTC"] if updated else []
    if gold is not None:
        parts.append(f"gold `{gold.version[:12]}` of {gold.added_at[:10]} ({gold.questions:,} questions)")
    return " · ".join(parts)


class BoardPages:
    """Renders boards and keeps the last ``RENDERINGS_KEPT`` renderings, keyed by benchmark,
    filters and the board's fingerprint (so a new row or gold is never served stale).

    Single-flight: concurrent requests for a rendering nobody has yet wait for the one render
    under way instead of all rendering it (after every submission each view misses at once).
    The download files are written once per rows shown (view, filters, fingerprint), not per
    rendering: hiding column groups reuses them. ``empty_board`` is what an empty board says
    about submitting (:func:`summary_markdown`)."""

    def __init__(self, leaderboard: Leaderboard, downloads: Downloads, empty_board: str = EMPTY_BOARD) -> None:
        self.leaderboard = leaderboard
        self.downloads = downloads
        self.empty_board = empty_board
        self._kept: OrderedDict[tuple, BoardPage] = OrderedDict()
        self._rendering: dict[tuple, Future] = {}
        self._files: OrderedDict[tuple, tuple[str, str]] = OrderedDict()
        self._lock = threading.Lock()
        self.renders = 0  # how many renderings ran (the single-flight test counts them)

    def fingerprint(self, bench_id: str) -> str:
        return self.leaderboard.fingerprint(bench_id)

    def page(self, bench_id: str, filters: Filters) -> BoardPage:
        key = (bench_id, filters, self.fingerprint(bench_id))
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
            flight = self._rendering.get(key)
            leader = flight is None
            if leader:
                flight = self._rendering[key] = Future()
                self.renders += 1
        if not leader:
            return flight.result()
        try:
            page = self.render(bench_id, filters, key[2])
        except BaseException as e:
            with self._lock:
                self._rendering.pop(key, None)
            flight.set_exception(e)
            raise
        with self._lock:
            self._kept[key] = page
            while len(self._kept) > RENDERINGS_KEPT:
                self._kept.popitem(last=False)
            self._rendering.pop(key, None)
        flight.set_result(page)
        return page

    def render(self, bench_id: str, filters: Filters, fingerprint: str = "") -> BoardPage:
        bench = get_benchmark(bench_id)
        lb = self.leaderboard
        total = len(lb.board(bench_id).rows)
        shown = lb.table(bench_id, filters.view, filters.keep())
        summary = summary_markdown(bench, total, len(shown), lb.gold_info(bench_id), self.empty_board)
        csv, parquet = self.files(bench_id, filters, fingerprint, shown)
        return BoardPage(
            table=display.table_value(shown, bench, filters.view, filters.hidden),
            datatypes=tuple(display.datatypes(bench, filters.view, filters.hidden)),
            legend=display.group_legend_html(bench, filters.view, filters.hidden)
            + display.group_css(bench, filters.view, f"{bench_id}-table", filters.hidden),
            summary=summary + "\n\n" + context_markdown(lb, bench_id),
            csv=csv,
            parquet=parquet,
            plots=plots(bench, lb.table(bench_id, "all", filters.keep()), lb.group_sizes(bench_id)),
        )

    def files(self, bench_id: str, filters: Filters, fingerprint: str, shown: pd.DataFrame) -> tuple[str, str]:
        """The CSV and Parquet downloads of ``shown``: written once per rows shown."""
        key = (bench_id, replace(filters, hidden=()), fingerprint)
        with self._lock:
            if fingerprint and key in self._files and all(Path(p).exists() for p in self._files[key]):
                return self._files[key]  # (Downloads deletes old files: a gone one is written again)
        stem = f"{bench_id}-{filters.view}"
        written = (
            self.downloads.write(f"{stem}.csv", to_csv_bytes(shown)),
            self.downloads.write(f"{stem}.parquet", to_parquet_bytes(shown)),
        )
        with self._lock:
            self._files[key] = written
            while len(self._files) > RENDERINGS_KEPT:
                self._files.popitem(last=False)
        return written

    def row_id_at(self, bench_id: str, filters: Filters, row_value: list) -> str | None:
        """The row id of a clicked table row, from its Model and Team cells (the client may have
        sorted the table, so its index says nothing)."""
        if not row_value or len(row_value) < 3:
            return None
        shown = self.leaderboard.table(bench_id, filters.view, filters.keep())
        for model, team, row_id in zip(shown["model"], shown["team"], shown["row_id"], strict=True):
            if html.escape(str(model)) == row_value[1] and str(team) == row_value[2]:
                return row_id
        return None


URL_JS = """(view, types, sources, query, hidden, sizes) => {
  const d = %s;
  const p = new URLSearchParams();
  p.set("bench", d.bench);
  const put = (key, value, dflt) => { if (value !== dflt) p.set(key, value); };
  put("view", view, "overall");
  put("types", [...types].sort().join(","), d.types);
  put("sources", [...sources].sort().join(","), d.sources);
  put("q", (query || "").trim(), "");
  put("hide", [...hidden].sort().join(","), "");
  put("sizes", [...sizes].sort().join(","), d.sizes);
  history.replaceState(null, "", "?" + p.toString() + window.location.hash);
  return [];
}"""
"""Keeps the address bar in step with a board's choices (client-side, nothing sent)."""


@dataclass(frozen=True, eq=False)
class BoardTab:
    """The components of one benchmark's tab; its methods are the tab's callbacks."""

    bench_id: str
    pages: BoardPages
    tab: gr.Tab
    fingerprint: gr.Textbox  # hidden: what the page shows was drawn at this fingerprint (baked too)
    view: gr.Radio
    types: gr.CheckboxGroup
    sources: gr.CheckboxGroup
    query: gr.Textbox
    hidden: gr.CheckboxGroup
    sizes: gr.CheckboxGroup
    search: gr.Button
    refresh: gr.Button
    outputs: tuple[Component, ...]  # table, legend, summary, csv, parquet, *plots

    @property
    def filters(self) -> list[Component]:
        return [self.view, self.types, self.sources, self.query, self.hidden, self.sizes]

    @property
    def drawn(self) -> list[Component]:
        return [self.fingerprint, *self.outputs]

    @property
    def table(self) -> gr.Dataframe:
        return self.outputs[0]

    def render(self, view: str, types: list[str], sources: list[str], query: str, hidden=None, sizes=None) -> list:
        return self.pages.page(self.bench_id, Filters.of(view, types, sources, query, hidden, sizes)).updates()

    def draw(self, view: str, types: list[str], sources: list[str], query: str, hidden=None, sizes=None) -> list:
        """The board and the fingerprint it was drawn at."""
        return [self.pages.fingerprint(self.bench_id), *self.render(view, types, sources, query, hidden, sizes)]

    def refresh_and_draw(self, view, types, sources, query, hidden=None, sizes=None) -> list:
        self.pages.leaderboard.refresh()
        return self.draw(view, types, sources, query, hidden, sizes)

    def tick(self, drawn_at: str, view, types, sources, query, hidden=None, sizes=None) -> list:
        """Redraw only when the rows could have changed (the scheduler refreshes the store)."""
        if self.pages.fingerprint(self.bench_id) == drawn_at:
            return [gr.skip()] * len(self.drawn)
        return self.draw(view, types, sources, query, hidden, sizes)

    def bake_key(self) -> str:
        """Changes whenever the default view could (:class:`ui.baked.BakedPart`)."""
        return self.pages.fingerprint(self.bench_id)

    def baked(self) -> list[Shown]:
        """The default view (the filters' initial values) and the fingerprint it was drawn at."""
        drawn_at = self.pages.fingerprint(self.bench_id)
        shown = self.pages.page(self.bench_id, Filters.of(*(c.value for c in self.filters)))
        values = [shown.table, shown.legend, shown.summary, shown.csv, shown.parquet, *shown.plots]
        table_props = (("datatype", list(shown.datatypes)),)
        return [Shown(self.fingerprint, drawn_at)] + [
            Shown(c, v, table_props if c is self.table else ()) for c, v in zip(self.outputs, values, strict=True)
        ]

    def picked(self, view, types, sources, query, hidden, sizes, evt: gr.SelectData) -> str | None:
        """The row id of the row a visitor clicked (None when it cannot be told)."""
        filters = Filters.of(view, types, sources, query, hidden, sizes)
        return self.pages.row_id_at(self.bench_id, filters, evt.row_value)

    @classmethod
    def mount(cls, pages: BoardPages, bench: Benchmark, timer: gr.Timer, first: bool = False) -> BoardTab:
        """Place the tab in the current Tabs and wire it. The page arrives with the default view
        baked in (:mod:`ui.baked`); opening the tab redraws it only if the rows changed since.
        The ``first`` tab is not wired to its select: the page selects it on every load, which
        would be one event per page view (its timer keeps it current instead)."""
        with gr.Tab(bench.name, id=f"tab-{bench.id}", elem_id=f"tab-{bench.id}") as tab:
            drawn_at = gr.Textbox(visible=False, elem_id=f"{bench.id}-drawn-at")
            board = cls(bench.id, pages, tab, drawn_at, *_board_components(bench))
        board._wire(timer, redraw_on_open=not first)
        return board

    def _wire(self, timer: gr.Timer, redraw_on_open: bool) -> None:
        reads = {"api_visibility": "private", **page.READS}  # reads skip the queue (ui/page.py)
        defaults = {
            "bench": self.bench_id,
            "types": ",".join(sorted(display.TYPE_FILTERS)),
            "sources": ",".join(sorted(display.SOURCES)),
            "sizes": ",".join(sorted(fields.SIZE_CHOICES)),
        }
        url_js = URL_JS % json.dumps(defaults)
        for control in (
            self.view,
            self.types,
            self.sources,
            self.hidden,
            self.sizes,
        ):  # a visitor's choice, not a deep link's
            control.input(self.render, self.filters, list(self.outputs), **reads)
            control.input(None, self.filters, None, js=url_js, queue=False)
        for trigger in (self.query.submit, self.search.click):
            trigger(self.render, self.filters, list(self.outputs), **reads)
            trigger(None, self.filters, None, js=url_js, queue=False)
        self.refresh.click(self.refresh_and_draw, self.filters, self.drawn, api_visibility="private")
        if redraw_on_open:
            self.tab.select(self.tick, [self.fingerprint, *self.filters], self.drawn, show_progress="hidden", **reads)
        timer.tick(self.tick, [self.fingerprint, *self.filters], self.drawn, show_progress="hidden", **reads)


def _board_components(bench: Benchmark) -> tuple:
    """Create the tab's components: view, types, sources, query, hidden column groups, sizes,
    search, refresh, outputs."""
    gr.Markdown(f"{bench.description} *{bench.paper}.*")
    with gr.Row(equal_height=True, elem_classes="board-controls"):
        view = gr.Radio(
            [(label, v) for v, label in views(bench)],
            value="overall",
            label="View",
            elem_id=f"{bench.id}-view",
            scale=2,
            min_width=240,
        )
        types = gr.CheckboxGroup(
            [(display.MODEL_TYPE_LABELS[key], key) for key in display.TYPE_FILTERS],
            value=list(display.TYPE_FILTERS),
            label="Model type",
            elem_id=f"{bench.id}-types",
            scale=1,
            min_width=160,
        )
        sizes = gr.CheckboxGroup(
            list(fields.SIZE_CHOICES),
            value=list(fields.SIZE_CHOICES),
            label="Size (parameters, from the Hub)",
            elem_id=f"{bench.id}-sizes",
            scale=2,
            min_width=240,
        )
        sources = gr.CheckboxGroup(
            list(display.SOURCES),
            value=list(display.SOURCES),
            label="Source",
            elem_id=f"{bench.id}-sources",
            scale=1,
            min_width=160,
        )
        with gr.Column(scale=2, min_width=240):
            query = gr.Textbox(
                label="Search model or team (separate terms with ;)",
                placeholder="e.g. qwen; gpt",
                elem_id=f"{bench.id}-query",
                submit_btn=False,
            )
            with gr.Row():
                search = gr.Button("Search", size="sm", elem_id=f"{bench.id}-search", min_width=80)
                refresh = gr.Button("Refresh", size="sm", elem_id=f"{bench.id}-refresh", min_width=80)
                copy = gr.Button("Copy link", size="sm", elem_id=f"{bench.id}-copy", min_width=80)
    copy.click(None, None, None, js=COPY_LINK_JS)
    with gr.Accordion("Columns", open=False, elem_id=f"{bench.id}-columns-box"):
        hidden = gr.CheckboxGroup(
            _all_groups(bench),
            value=[],
            label="Hide column groups (Rank and Model always stay)",
            elem_id=f"{bench.id}-hide",
        )
    return view, types, sources, query, hidden, sizes, search, refresh, _board_outputs(bench)


COPY_LINK_JS = """() => {
  const url = window.location.href;
  const ask = () => window.prompt("Copy this link", url);
  const done = () => {
    const b = document.activeElement;
    if (b) { const t = b.innerText; b.innerText = "Link copied"; setTimeout(() => b.innerText = t, 1500); }
  };
  if (navigator.clipboard && window.isSecureContext) { navigator.clipboard.writeText(url).then(done, ask); }
  else { ask(); }
  return [];
}"""


def _all_groups(bench: Benchmark) -> list[str]:
    """Every hideable column group of every view, once, in page order."""
    groups: list[str] = []
    for v, _ in views(bench):
        groups += [g for g in display.column_groups(bench, v) if g not in groups]
    return groups


def _board_outputs(bench: Benchmark) -> tuple[Component, ...]:
    legend = gr.HTML(elem_id=f"{bench.id}-legend")
    table = gr.Dataframe(
        interactive=False,
        datatype=display.datatypes(bench),
        max_height=620,
        elem_id=f"{bench.id}-table",
        elem_classes="board-table",
        show_label=False,
        buttons=["fullscreen", "copy"],
        pinned_columns=2,
        column_widths=PINNED_WIDTHS,
    )
    summary = gr.Markdown(elem_id=f"{bench.id}-summary")
    with gr.Row():
        csv = gr.DownloadButton("Download CSV", size="sm", elem_id=f"{bench.id}-csv", scale=0)
        parquet = gr.DownloadButton("Download Parquet", size="sm", elem_id=f"{bench.id}-parquet", scale=0)
    gr.Markdown("### Plots\nClick a row of the table to open the model's page.")
    return (table, legend, summary, csv, parquet, *_plot_outputs(bench))


def _plot_outputs(bench: Benchmark) -> list[Component]:
    """One component per declared plot (a scatter also gets a note of the rows it leaves out)."""
    out: list[Component] = []
    for i, plot in enumerate(display.drawn_plots(bench)):
        if isinstance(plot, Scatter):
            gr.Markdown(f"#### {display.plot_title(bench, plot)}")  # a heading wraps on a phone
            out.append(  # labelled points (ui/scatter.py: gr.ScatterPlot cannot label them)
                gr.HTML(elem_id=f"{bench.id}-scatter" if i == 0 else f"{bench.id}-scatter-{i}",
                        elem_classes="board-scatter")
            )  # fmt: skip
            out.append(gr.Markdown(elem_id=f"{bench.id}-scatter-note"))
        else:
            suffix = "" if plot.metric == bench.primary_metric else f"-{plot.metric}"
            out.append(gr.HTML(elem_id=f"{bench.id}-heat-{plot.grouping}{suffix}"))
    return out


@dataclass(frozen=True, eq=False)
class Redraw:
    """The one rule for changes made on other tabs: after them, redraw every board."""

    boards: tuple[BoardTab, ...]

    def after(self, event):
        """Chain a redraw of each board after ``event``; returns the last link."""
        for board in self.boards:
            event = event.then(board.draw, board.filters, board.drawn, api_visibility="private")
        return event
