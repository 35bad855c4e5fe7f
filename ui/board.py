"""One benchmark's board tab: the table, its filters, downloads and plots.

:class:`BoardPages` renders a board for some filters and keeps the last renderings (shared by
every visitor); :class:`BoardTab` holds one tab's components and draws into them. The one rule
"a submission or a moderation changed the rows: redraw every board" is :class:`Redraw`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import gradio as gr
import pandas as pd
from gradio.components import Component

from leaderboard.service import Leaderboard
from leaderboard.table import to_csv_bytes, to_parquet_bytes, views
from scoring.benchmarks import get_benchmark
from scoring.benchmarks.base import Benchmark
from store.golds import GoldInfo
from ui import display, page
from ui.downloads import Downloads

RENDERINGS_KEPT = 64


@dataclass(frozen=True)
class Filters:
    """What a visitor chose on a board. Order-insensitive, so it keys the render cache."""

    view: str
    types: tuple[str, ...]
    sources: tuple[str, ...]
    query: str

    @classmethod
    def of(cls, view: str, types: list[str] | None, sources: list[str] | None, query: str | None) -> Filters:
        return cls(view, tuple(sorted(types or ())), tuple(sorted(sources or ())), query or "")

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
        table = gr.Dataframe(value=self.table, datatype=list(self.datatypes))
        return [table, self.legend, self.summary, self.csv, self.parquet, *self.plots]


def summary_markdown(bench: Benchmark, total: int, shown: int, gold: GoldInfo | None) -> str:
    """The "showing n of m rows" line, plus why a board is empty or has no scored rows."""
    note = ""
    if gold is None:
        note = (
            f"\n\n**No gold is loaded for {bench.name} yet**: only the papers' published rows are shown and "
            "submissions open once a maintainer adds the gold (`python -m leaderboard gold add`)."
        )
    if total == 0:
        note += "\n\nNo rows yet: be the first to submit (Submit tab)."
    elif shown == 0:
        note += "\n\nNo rows match these filters."
    return display.summary_text(total, shown, gold.questions if gold else None) + note


def heatmap_groupings(bench: Benchmark):
    """The groupings drawn as heatmaps: all of them, except the first of a grounding benchmark
    (its place is taken by the accuracy/mIoU scatter)."""
    return bench.groupings[1:] if bench.grounding else bench.groupings


def plots(bench: Benchmark, rows: pd.DataFrame) -> tuple[object, ...]:
    """The scatter (grounding benchmarks) and one heatmap per grouping, from every view's rows."""
    scatter = (display.scatter_frame(rows),) if bench.grounding else ()
    heatmaps = tuple(
        display.heatmap_html(rows, bench, g.name, title=f"Accuracy by {g.label.lower()}")
        for g in heatmap_groupings(bench)
    )
    return scatter + heatmaps


class BoardPages:
    """Renders boards and keeps the last ``RENDERINGS_KEPT`` renderings, keyed by benchmark,
    filters and the board's fingerprint (so a new row or gold is never served stale)."""

    def __init__(self, leaderboard: Leaderboard, downloads: Downloads) -> None:
        self.leaderboard = leaderboard
        self.downloads = downloads
        self._kept: OrderedDict[tuple, BoardPage] = OrderedDict()
        self._lock = threading.Lock()

    def fingerprint(self, bench_id: str) -> str:
        return self.leaderboard.fingerprint(bench_id)

    def page(self, bench_id: str, filters: Filters) -> BoardPage:
        key = (bench_id, filters, self.fingerprint(bench_id))
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        page = self.render(bench_id, filters)
        with self._lock:
            self._kept[key] = page
            while len(self._kept) > RENDERINGS_KEPT:
                self._kept.popitem(last=False)
        return page

    def render(self, bench_id: str, filters: Filters) -> BoardPage:
        bench = get_benchmark(bench_id)
        full = self.leaderboard.table(bench_id, filters.view)
        shown = filters.apply(full)
        stem = f"{bench_id}-{filters.view}"
        return BoardPage(
            table=display.table_value(shown, bench, filters.view),
            datatypes=tuple(display.datatypes(bench, filters.view)),
            legend=display.group_legend_html(bench, filters.view)
            + display.group_css(bench, filters.view, f"{bench_id}-table"),
            summary=summary_markdown(bench, len(full), len(shown), self.leaderboard.gold_info(bench_id)),
            csv=self.downloads.write(f"{stem}.csv", to_csv_bytes(shown)),
            parquet=self.downloads.write(f"{stem}.parquet", to_parquet_bytes(shown)),
            plots=plots(bench, filters.apply(self.leaderboard.table(bench_id, "all"))),
        )


@dataclass(frozen=True, eq=False)
class BoardTab:
    """The components of one benchmark's tab; its methods are the tab's callbacks."""

    bench_id: str
    pages: BoardPages
    tab: gr.Tab
    fingerprint: gr.State  # what the page shows was drawn at this fingerprint
    view: gr.Radio
    types: gr.CheckboxGroup
    sources: gr.CheckboxGroup
    query: gr.Textbox
    search: gr.Button
    refresh: gr.Button
    outputs: tuple[Component, ...]  # table, legend, summary, csv, parquet, *plots

    @property
    def filters(self) -> list[Component]:
        return [self.view, self.types, self.sources, self.query]

    @property
    def drawn(self) -> list[Component]:
        return [self.fingerprint, *self.outputs]

    def render(self, view: str, types: list[str], sources: list[str], query: str) -> list:
        return self.pages.page(self.bench_id, Filters.of(view, types, sources, query)).updates()

    def draw(self, view: str, types: list[str], sources: list[str], query: str) -> list:
        """The board and the fingerprint it was drawn at."""
        return [self.pages.fingerprint(self.bench_id), *self.render(view, types, sources, query)]

    def refresh_and_draw(self, view: str, types: list[str], sources: list[str], query: str) -> list:
        self.pages.leaderboard.refresh()
        return self.draw(view, types, sources, query)

    def tick(self, drawn_at: str, view: str, types: list[str], sources: list[str], query: str) -> list:
        """Redraw only when the rows could have changed (the scheduler refreshes the store)."""
        if self.pages.fingerprint(self.bench_id) == drawn_at:
            return [gr.skip()] * len(self.drawn)
        return self.draw(view, types, sources, query)

    @classmethod
    def mount(cls, pages: BoardPages, bench: Benchmark, timer: gr.Timer, opened=None) -> BoardTab:
        """Place the tab in the current Tabs and wire it. ``opened`` is the event that draws it
        first (the page's load for the first board); by default, the select of its own tab."""
        with gr.Tab(bench.name, id=f"tab-{bench.id}", elem_id=f"tab-{bench.id}") as tab:
            board = cls(bench.id, pages, tab, gr.State(""), *_board_components(bench))
        board._wire(opened or tab.select, timer)
        return board

    def _wire(self, opened, timer: gr.Timer) -> None:
        reads = {"api_visibility": "private", **page.READS}  # reads skip the queue (ui/page.py)
        for control in (self.view, self.types, self.sources):
            control.change(self.render, self.filters, list(self.outputs), **reads)
        self.query.submit(self.render, self.filters, list(self.outputs), **reads)
        self.search.click(self.render, self.filters, list(self.outputs), **reads)
        self.refresh.click(self.refresh_and_draw, self.filters, self.drawn, api_visibility="private")
        opened(self.draw, self.filters, self.drawn, **reads)
        timer.tick(self.tick, [self.fingerprint, *self.filters], self.drawn, show_progress="hidden", **reads)


def _board_components(bench: Benchmark) -> tuple:
    """Create the tab's components (in page order): view, types, sources, query, search,
    refresh, outputs."""
    gr.Markdown(f"{bench.description} *{bench.paper}.*")
    with gr.Row(equal_height=True):
        view = gr.Radio(
            [(label, v) for v, label in views(bench)],
            value="overall",
            label="View",
            elem_id=f"{bench.id}-view",
            scale=2,
        )
        types = gr.CheckboxGroup(
            [(label, key) for key, label in display.MODEL_TYPE_LABELS.items()],
            value=list(display.MODEL_TYPE_LABELS),
            label="Model type",
            elem_id=f"{bench.id}-types",
            scale=1,
        )
        sources = gr.CheckboxGroup(
            list(display.SOURCES), value=list(display.SOURCES), label="Source", elem_id=f"{bench.id}-sources", scale=1
        )
        with gr.Column(scale=2):
            query = gr.Textbox(
                label="Search model or team", placeholder="e.g. qwen", elem_id=f"{bench.id}-query", submit_btn=False
            )
            with gr.Row():
                search = gr.Button("Search", size="sm", elem_id=f"{bench.id}-search")
                refresh = gr.Button("Refresh", size="sm", elem_id=f"{bench.id}-refresh")
    return view, types, sources, query, search, refresh, _board_outputs(bench)


def _board_outputs(bench: Benchmark) -> tuple[Component, ...]:
    legend = gr.HTML(elem_id=f"{bench.id}-legend")
    table = gr.Dataframe(
        interactive=False,
        datatype=display.datatypes(bench),
        max_height=620,
        elem_id=f"{bench.id}-table",
        show_label=False,
        buttons=["fullscreen", "copy"],
        pinned_columns=2,
    )
    summary = gr.Markdown(elem_id=f"{bench.id}-summary")
    with gr.Row():
        csv = gr.DownloadButton("Download CSV", size="sm", elem_id=f"{bench.id}-csv", scale=0)
        parquet = gr.DownloadButton("Download Parquet", size="sm", elem_id=f"{bench.id}-parquet", scale=0)
    gr.Markdown("### Plots")
    scatter = (
        (
            gr.ScatterPlot(
                x="mIoU",
                y="Accuracy",
                color="Source",
                title="Reasoning vs grounding: accuracy against mIoU (one point per model)",
                tooltip=["Model", "Team", "Accuracy", "mIoU"],
                x_lim=[0, 100],
                y_lim=[0, 100],
                height=380,
                elem_id=f"{bench.id}-scatter",
            ),
        )
        if bench.grounding
        else ()
    )
    heatmaps = tuple(gr.HTML(elem_id=f"{bench.id}-heat-{g.name}") for g in heatmap_groupings(bench))
    return (table, legend, summary, csv, parquet, *scatter, *heatmaps)


@dataclass(frozen=True, eq=False)
class Redraw:
    """The one rule for changes made on other tabs: after them, redraw every board."""

    boards: tuple[BoardTab, ...]

    def after(self, event):
        """Chain a redraw of each board after ``event``; returns the last link."""
        for board in self.boards:
            event = event.then(board.draw, board.filters, board.drawn, api_visibility="private")
        return event
