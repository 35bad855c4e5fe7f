"""Deep links: the page's state lives in its query string and is restored from it on load.

``?bench=<id>&view=<view>&types=open&sources=...&q=qwen;gpt&hide=<groups>&sizes=~7B,~14B`` opens a board
with those choices; ``?bench=<id>&model=<row id>`` a model's page; ``?bench=<id>&compare=<id>,<id>``
the comparison; ``?tab=about`` (any other tab by its id) that tab. The address bar follows the
visitor's choices client-side (each tab's ``js``) and a click on a tab (:data:`TAB_SWITCH_JS`);
this module reads it back once, when the page loads (in the browser; the server hears of it only
when there is a query string to restore). Unknown values are ignored, never trusted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qs

import gradio as gr

from leaderboard.columns import views
from scoring.benchmarks import BENCHMARKS, get_benchmark
from submissions import fields
from ui import display
from ui.board import BoardTab
from ui.compare import CompareTab, Comparisons
from ui.model import ModelPages, ModelTab

READ_ADDRESS_JS = "() => window.location.search"
"""The query string as the visitor opened the page, read in the browser (before any tab rewrites
it). A browser-only load event: nothing is sent to the server. Only a non-empty query string
changes the hidden address box, and only that change asks the server to restore the page, so a
plain visit (the baked page, :mod:`ui.baked`) fires no event at all."""
TAB_SWITCH_JS = """() => {
  const boards = %s;
  const tabOf = (q) => {
    const p = new URLSearchParams(q);
    if (p.get("model")) return "tab-model";
    if (p.get("compare")) return "tab-compare";
    if (p.get("bench")) return "tab-" + p.get("bench");
    return p.get("tab") ? "tab-" + p.get("tab") : boards[0];
  };
  const write = (tries) => {  // the tab bar settles a moment after the click (one selected tab)
    const on = document.querySelectorAll('#main-tabs [role="tab"][aria-selected="true"][data-tab-id]');
    const ids = new Set([...on].map((b) => b.getAttribute("data-tab-id")));
    if (ids.size !== 1) { if (tries > 0) setTimeout(() => write(tries - 1), 25); return; }
    const id = [...ids][0];
    const kept = window.lbTabAddress = window.lbTabAddress || {};
    kept[tabOf(window.location.search)] = window.location.search;
    const fresh = boards.includes(id) ? "?bench=" + id.slice(4) : "?tab=" + id.slice(4);
    history.replaceState(null, "", (kept[id] || fresh) + window.location.hash);
  };
  setTimeout(() => write(40), 0);
  return [];
}"""
"""A click on a tab puts it in the address bar (client-side): the address that tab last had
(a board's choices, a model, a comparison), else ``?bench=<id>`` or ``?tab=<id>``. The Tabs'
select fires on clicks only (a Tab's own select also fires when the page mounts or restores it)."""


def _listed(params: Mapping[str, str], key: str, known: list[str], default: list[str]) -> list[str]:
    if key not in params:
        return default
    return [v for v in params[key].split(",") if v in known]


def board_choices(bench_id: str, params: Mapping[str, str]) -> list:
    """A board's (view, types, sources, query, hidden groups, sizes) from the query string."""
    bench = get_benchmark(bench_id)
    known_views = [v for v, _ in views(bench)]
    view = params.get("view", "overall")
    return [
        view if view in known_views else "overall",
        _listed(params, "types", list(display.TYPE_FILTERS), list(display.TYPE_FILTERS)),
        _listed(params, "sources", list(display.SOURCES), list(display.SOURCES)),
        params.get("q", "")[:200],
        _listed(params, "hide", _groups(bench_id), []),
        _listed(params, "sizes", list(fields.SIZE_CHOICES), list(fields.SIZE_CHOICES)),
    ]


def _groups(bench_id: str) -> list[str]:
    bench = get_benchmark(bench_id)
    out: list[str] = []
    for v, _ in views(bench):
        out += [g for g in display.column_groups(bench, v) if g not in out]
    return out


@dataclass(frozen=True, eq=False)
class DeepLinks:
    """Restores the page from its address once on load: which tab, which choices, which model."""

    tabs: gr.Tabs
    boards: tuple[BoardTab, ...]
    model: ModelTab
    compare: CompareTab | None  # None on a reader: a ?compare= link then opens the board
    comparisons: Comparisons
    model_pages: ModelPages

    @property
    def outputs(self) -> list:
        out = [self.tabs, self.model.bench, self.model.row]
        out += [self.compare.bench, self.compare.models] if self.compare else []
        for board in self.boards:
            out += board.filters
        return out

    def restore(self, search: str | None) -> list:
        """Updates for the address's query string (``search``, as ``window.location.search`` gives it)."""
        params = {k: v[-1] for k, v in parse_qs((search or "").lstrip("?")).items()}
        bench_id = params.get("bench", "")
        no_compare = [gr.skip(), gr.skip()] if self.compare else []
        skip_boards = [gr.skip()] * sum(len(b.filters) for b in self.boards)
        if bench_id not in BENCHMARKS:
            tab = f"tab-{params.get('tab', '')}"
            known = {t.id for t in self.tabs.children if isinstance(t, gr.Tab)}
            opened = gr.Tabs(selected=tab) if tab in known else gr.skip()
            return [opened, gr.skip(), gr.skip(), *no_compare, *skip_boards]
        if params.get("model"):
            return [gr.skip(), bench_id, params["model"][:64], *no_compare, *skip_boards]
        if params.get("compare") and self.compare:
            picked = params["compare"].split(",")[:4]
            dropdown = self.comparisons.options(bench_id, picked)
            return [gr.Tabs(selected="tab-compare"), gr.skip(), gr.skip(), bench_id, dropdown, *skip_boards]
        updates = []
        for board in self.boards:
            updates += (
                board_choices(bench_id, params) if board.bench_id == bench_id else [gr.skip()] * len(board.filters)
            )
        return [gr.Tabs(selected=f"tab-{bench_id}"), gr.skip(), gr.skip(), *no_compare, *updates]

    def wire(self, page: gr.Blocks) -> None:
        boards = json.dumps([f"tab-{b.bench_id}" for b in self.boards])
        self.tabs.select(None, None, None, js=TAB_SWITCH_JS % boards, queue=False)
        address = gr.Textbox("", visible="hidden", elem_id="page-address")  # in the DOM: its change fires
        page.load(None, None, address, js=READ_ADDRESS_JS)
        restored = address.change(self.restore, address, self.outputs, api_visibility="private")
        # a ?model= link: draw the page once the states are set (and only then switch to it)
        restored.then(self._open_model, [self.model.bench, self.model.row], [self.model.page, self.tabs],
                      api_visibility="private")  # fmt: skip
        if self.compare:
            restored.then(self._open_compare, [self.compare.bench, self.compare.models], self.compare.result,
                          api_visibility="private")  # fmt: skip
        # the filters' own events fire on a visitor's input only: the linked board is drawn once, here
        filters = [c for board in self.boards for c in board.filters]
        drawn = [c for board in self.boards for c in board.outputs]
        restored.then(self._draw_linked, [address, *filters], drawn, api_visibility="private", queue=False)

    def _draw_linked(self, search: str | None, *choices) -> list:
        """The board a ``?bench=`` link chose, drawn with its restored choices; the others skipped."""
        params = {k: v[-1] for k, v in parse_qs((search or "").lstrip("?")).items()}
        linked = params.get("bench") if not (params.get("model") or params.get("compare")) else None
        out: list = []
        at = 0
        for board in self.boards:
            n = len(board.filters)
            if board.bench_id == linked:
                out += board.render(*choices[at : at + n])
            else:
                out += [gr.skip()] * len(board.outputs)
            at += n
        return out

    def _open_model(self, bench_id: str, row_id: str):
        if not row_id:
            return gr.skip(), gr.skip()
        return self.model_pages.show(bench_id, row_id), gr.Tabs(selected="tab-model")

    def _open_compare(self, bench_id: str, picked: list[str] | None):
        if not picked or len(picked) < 2:
            return gr.skip()
        return self.comparisons.show(bench_id, picked)
