"""The leaderboard's Gradio app: one small module per tab, placed and connected here.

Each tab module holds a frozen dataclass of its components with a ``mount`` that creates and
wires them, and a small object whose methods are its callbacks (unit-testable without a
browser). Identity is :mod:`ui.auth`, download files :mod:`ui.downloads`, background jobs
:mod:`ui.jobs`, rendering helpers :mod:`ui.display`.
"""

from __future__ import annotations

import gradio as gr

from leaderboard.config import UiSettings
from leaderboard.service import Leaderboard
from scoring import BENCHMARKS
from ui.about import AboutFiles, AboutTab
from ui.admin import AdminTab, Maintainers
from ui.auth import Auth
from ui.board import BoardPages, BoardTab, Redraw
from ui.compare import CompareTab, Comparisons
from ui.downloads import Downloads
from ui.links import DeepLinks
from ui.mine import MineTab, MySubmissions
from ui.model import ModelPages, ModelTab
from ui.style import CSS, theme
from ui.submit import SubmitTab, Submitter

TITLE = "Cultural VLM Leaderboard"


def intro() -> str:
    """The header, from the registered benchmarks' names and descriptions."""
    listed = "\n".join(f"- **{b.name}**: {b.description}" for b in BENCHMARKS.values())
    return (
        "# Cultural vision-language leaderboard\n"
        f"{listed}\n\n"
        "Rows marked *reported in paper* are the papers' published figures, not scored here. "
        "Ranks are shared where the 95% intervals cannot tell models apart; click a row for the model's page."
    )


def build_app(leaderboard: Leaderboard, settings: UiSettings) -> gr.Blocks:
    """Place the header and the tabs; every board is redrawn after changes made on other tabs."""
    auth = Auth(settings)
    downloads = Downloads()
    pages = BoardPages(leaderboard, downloads)
    with gr.Blocks(title=TITLE, fill_width=True) as page:
        header(auth, page)
        timer = gr.Timer(settings.refresh_seconds)
        with gr.Tabs(elem_id="main-tabs") as tabs:
            first, *others = BENCHMARKS.values()  # the first board draws with the page, others when opened
            boards = [BoardTab.mount(pages, first, timer, opened=page.load)]
            boards += [BoardTab.mount(pages, bench, timer) for bench in others]
            redraw = Redraw(tuple(boards))
            model_pages, comparisons = ModelPages(leaderboard), Comparisons(leaderboard)
            model = ModelTab.mount(model_pages)
            compare = CompareTab.mount(comparisons)
            submit = SubmitTab.mount(Submitter(leaderboard, auth), page, redraw)
            MineTab.mount(MySubmissions(leaderboard, auth), after=submit.finished)
            AboutTab.mount(AboutFiles(leaderboard, downloads))
            AdminTab.mount(Maintainers(leaderboard, auth), redraw)
        for board in boards:  # a click on a row opens the model's page
            picked = board.table.select(board.picked, board.filters, model.row, api_visibility="private")
            model.open(picked.then(lambda b=board.bench_id: b, None, model.bench, api_visibility="private"),
                       model_pages, tabs)  # fmt: skip
        DeepLinks(tabs, tuple(boards), model, compare, comparisons, model_pages).wire(page)
    return page


def header(auth: Auth, page: gr.Blocks) -> None:
    gr.Markdown(intro())
    with gr.Row():
        if auth.oauth:
            gr.LoginButton(scale=0)
        identity = gr.Markdown(auth.greeting(), elem_classes="identity", elem_id="identity")
    page.load(auth.greeting, None, identity, api_visibility="private")


def launch_options(settings: UiSettings) -> dict:
    """Keyword arguments of ``Blocks.launch``: where to listen, and the page's look."""
    return {"server_name": settings.server_name, "server_port": settings.server_port, "css": CSS, "theme": theme()}
