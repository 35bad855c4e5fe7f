"""The leaderboard's Gradio app: one small module per tab, placed and connected here.

Each tab module holds a frozen dataclass of its components with a ``mount`` that creates and
wires them, and a small object whose methods are its callbacks (unit-testable without a
browser). Identity is :mod:`ui.auth`, download files :mod:`ui.downloads`, background jobs
:mod:`ui.jobs`, rendering helpers :mod:`ui.display`.
"""

from __future__ import annotations

import logging

import gradio as gr
from starlette.middleware import Middleware

from leaderboard.config import UiSettings
from leaderboard.reader import PublishedLeaderboard
from leaderboard.service import Leaderboard
from scoring import BENCHMARKS
from ui.about import AboutFiles, AboutTab
from ui.admin import AdminTab, Maintainers
from ui.auth import Auth
from ui.baked import PageBaker, attach, baker_of
from ui.board import EMPTY_BOARD, BoardPages, BoardTab, Redraw
from ui.compare import CompareTab, Comparisons
from ui.downloads import Downloads
from ui.jobs import REFRESH_AT_LEAST_EVERY
from ui.links import DeepLinks
from ui.mine import MineTab, MySubmissions
from ui.model import ModelPages, ModelTab
from ui.oauth import use_real_oauth
from ui.origin import OriginGuard, PublicOrigin, restrict_gradio_cors, serving_port
from ui.page import launch_extras
from ui.page_cache import PageCache
from ui.sessions import NoSavedStates, build_sessions_on_demand
from ui.style import CSS, theme
from ui.submit import SubmitTab, Submitter
from ui.uploads import DELETE_CACHE, UploadBudget, UploadGate, UploadPolicy, upload_budget

log = logging.getLogger(__name__)

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


def build_app(leaderboard: Leaderboard | PublishedLeaderboard, settings: UiSettings) -> gr.Blocks:
    """Place the header and the tabs; every board is redrawn after changes made on other tabs.
    A reader (``settings.reader``, a :class:`PublishedLeaderboard`) gets only the read tabs:
    boards, model pages and About; no write path is mounted (docs/topology.md).

    With sign-in on, only the real OAuth routes are mounted (:mod:`ui.oauth`): Gradio builds
    its server when the ``Blocks`` context closes, so this comes first."""
    if settings.oauth:
        use_real_oauth(settings)
    auth = Auth(settings)
    downloads = Downloads()
    pages = BoardPages(leaderboard, downloads, reader_empty_board(settings) if settings.reader else EMPTY_BOARD)
    with gr.Blocks(title=TITLE, fill_width=True, delete_cache=DELETE_CACHE) as page:
        if settings.reader:
            reader_note(settings)
        else:
            header(auth, page)
        timer = gr.Timer(settings.refresh_seconds)
        with gr.Tabs(elem_id="main-tabs") as tabs:
            boards = [BoardTab.mount(pages, bench, timer, first=i == 0) for i, bench in enumerate(BENCHMARKS.values())]
            redraw = Redraw(tuple(boards))
            model_pages, comparisons = ModelPages(leaderboard), Comparisons(leaderboard)
            model = ModelTab.mount(model_pages)
            compare = None if settings.reader else CompareTab.mount(comparisons)  # needs per-question answers
            if not settings.reader:
                submit = SubmitTab.mount(Submitter(leaderboard, auth), redraw)
                mine = MySubmissions(leaderboard, auth)
                MineTab.mount(mine, after=submit.finished)
            AboutTab.mount(AboutFiles(leaderboard, downloads))
            if not settings.reader:
                AdminTab.mount(Maintainers(leaderboard, auth), redraw)
        for board in boards:  # a click on a row opens the model's page
            picked = board.table.select(board.picked, board.filters, model.row, api_visibility="private")
            model.open(picked.then(lambda b=board.bench_id: b, None, model.bench, api_visibility="private"),
                       model_pages, tabs)  # fmt: skip
        if not settings.reader:
            mine.expose_api()  # outside the Tabs (ui/mine.py)
        DeepLinks(tabs, tuple(boards), model, compare, comparisons, model_pages).wire(page)
    baker = PageBaker(page, boards)
    baker.refresh_or_keep()  # the first bake, before anyone visits (retried by the baker's thread)
    attach(page, baker)
    if not settings.reader:  # a reader takes no uploads at all
        page.uploads = UploadPolicy(auth, upload_budget(leaderboard.settings))  # type: ignore[attr-defined]
    return page


def header(auth: Auth, page: gr.Blocks) -> None:
    gr.Markdown(intro())
    with gr.Row():
        if auth.oauth:
            gr.LoginButton(scale=0)
        first = "Checking who is signed in…" if auth.oauth else auth.greeting()
        identity = gr.Markdown(first, elem_classes="identity", elem_id="identity")
    if auth.oauth:  # signed in or not is per visitor: the page's load says who (locally it is in the page)
        page.load(auth.greeting, None, identity, api_visibility="private", queue=False)


def writer_link(settings: UiSettings) -> str:
    """Where a reader sends visitors who want to submit (``LEADERBOARD_WRITER_URL``)."""
    main_page = "the leaderboard's main page"
    return f"[{main_page}]({settings.writer_url})" if settings.writer_url else main_page


def reader_empty_board(settings: UiSettings) -> str:
    """What an empty board says on a reader, which has no Submit tab."""
    return f"No rows yet: submissions are made on {writer_link(settings)}."


def reader_note(settings: UiSettings) -> None:
    """A reader's header: the intro, and where submissions go instead."""
    gr.Markdown(intro())
    writer = writer_link(settings)
    gr.Markdown(
        f"This is a read-only copy of the leaderboard, refreshed every {reader_refresh_seconds(settings)} s from its "
        f"public results dataset. To submit a model or see your submissions, use {writer}.",
        elem_classes="reader-note",
        elem_id="reader-note",
    )


def reader_refresh_seconds(settings: UiSettings) -> int:
    return max(REFRESH_AT_LEAST_EVERY, settings.refresh_seconds)  # what ui.jobs.start_reader_jobs uses


def launch_options(
    settings: UiSettings, max_upload_bytes: int, baker: PageBaker | None = None, uploads: UploadPolicy | None = None
) -> dict:
    """Keyword arguments of ``Blocks.launch``: where to listen (127.0.0.1 unless
    ``GRADIO_SERVER_NAME`` says otherwise), the page's root URL pinned from configuration
    (:mod:`ui.origin`: no request header sets it), the upload limit Gradio enforces while the
    upload streams in (nothing larger reaches the disk), the page's look, and, through FastAPI's
    ``middleware=`` argument, the refusal of foreign-origin writes (:class:`ui.origin.OriginGuard`),
    who may upload and how much (:mod:`ui.uploads`; ``uploads`` None: no one), the cache that
    serves the baked page (:mod:`ui.page_cache`) and the closed save-a-session endpoint
    (:class:`ui.sessions.NoSavedStates`)."""
    port = serving_port(settings)
    origin = PublicOrigin.of(settings, port)
    restrict_gradio_cors(origin)
    log.info("the page's root is %s (LEADERBOARD_PUBLIC_URL, SPACE_HOST, else this address)", origin.root)
    options = {
        "server_name": settings.server_name,
        "server_port": port,
        "root_path": origin.root,
        "max_file_size": max_upload_bytes,
        "css": CSS,
        "theme": theme(),
        **launch_extras(settings.session_capacity),
    }
    uploads = uploads or UploadPolicy(None, UploadBudget(max_upload_bytes))
    middleware = [
        Middleware(OriginGuard, origin=origin),
        Middleware(UploadGate, auth=uploads.auth, budget=uploads.budget),
        Middleware(NoSavedStates),
    ]
    if baker is not None:
        middleware.append(Middleware(PageCache, version=lambda: baker.version))
    options["app_kwargs"] = {"middleware": middleware}
    return options


def launch(page: gr.Blocks, settings: UiSettings, max_upload_bytes: int) -> None:
    """Serve the app built by :func:`build_app`, keeping its baked page current."""
    baker = baker_of(page)
    if baker is not None:
        baker.start()
    # Reads are cached and thread-safe: let many visitors load at once (Gradio runs one at a time by default).
    page.queue(default_concurrency_limit=16).launch(
        prevent_thread_lock=True, **launch_options(settings, max_upload_bytes, baker, getattr(page, "uploads", None))
    )
    build_sessions_on_demand(page)
    page.block_thread()
