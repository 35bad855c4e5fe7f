"""The leaderboard's Gradio app, assembled: the tabs placed and connected, mounted beside the
board page on one server, and served (``python app.py`` calls :func:`build_app` then :func:`launch`)."""

from __future__ import annotations

import logging
from dataclasses import replace

import gradio as gr
import uvicorn
from fastapi import FastAPI
from starlette.middleware import Middleware

from leaderboard.config import UiSettings
from leaderboard.reader import PublishedLeaderboard
from leaderboard.service import Leaderboard
from scoring import BENCHMARKS
from ui import accessible_names, public_files
from ui.about import AboutFiles, AboutTab
from ui.admin import AdminTab, Maintainers
from ui.auth import Auth
from ui.board_page import GRADIO_PAGE, BoardBaker, routes
from ui.downloads import Downloads
from ui.errata import ErrataFiles
from ui.eval_results_route import EvalResultsFiles
from ui.gradio_pin import serves
from ui.jobs import REFRESH_AT_LEAST_EVERY
from ui.links import DeepLinks
from ui.mine import MineTab, MySubmissions
from ui.oauth import use_real_oauth
from ui.origin import OriginGuard, PublicOrigin, restrict_gradio_cors, serving_port
from ui.page import launch_extras
from ui.report import ReportQuestions
from ui.saved_states import NoSavedStates
from ui.style import CSS, theme
from ui.submit import SubmitTab, Submitter
from ui.uploads import DELETE_CACHE, UPLOAD_PATH, UploadBudget, UploadGate, UploadPolicy, upload_budget

log = logging.getLogger(__name__)

TITLE = "Cultural VLM Leaderboard"


def intro() -> str:
    """The header, from the registered benchmarks' names and descriptions."""
    listed = "\n".join(f"- **{b.name}**: {b.description}" for b in BENCHMARKS.values())
    return (
        "# Cultural vision-language leaderboard\n"
        f"{listed}\n\n"
        "[← The board](./): every benchmark's rankings, sorted and filtered in your browser."
    )


def build_app(leaderboard: Leaderboard | PublishedLeaderboard, settings: UiSettings) -> gr.Blocks:
    """The Gradio part of the app: what is interactive (Submit, My submissions, Maintainers) and
    About, as tabs of the page at ``/app`` (a route of the Blocks: its home page at ``/`` is
    shadowed by the board page, :mod:`ui.board_page`, whose Compare is computed in the browser:
    ``ui/static/compare.js``). A reader (``settings.reader``, a
    :class:`PublishedLeaderboard`) gets About only; no write path is mounted (docs/topology.md).

    With sign-in on, only the real OAuth routes are mounted (:mod:`ui.oauth`): Gradio builds
    its server when the ``Blocks`` context closes, so this comes first."""
    if settings.oauth:
        use_real_oauth(settings)
    auth = Auth(settings)
    downloads = Downloads()
    with gr.Blocks(title=TITLE, fill_width=True, delete_cache=DELETE_CACHE) as page:
        gr.Markdown("[The board](./) · [Submit, compare and more](app)")  # served only if the board route is absent
    with page.route("Submit, compare and more", GRADIO_PAGE, show_in_navbar=False):
        gr.Navbar(visible=False)
        if settings.reader:
            reader_note(settings)
        else:
            header(auth, page)
        with gr.Tabs(elem_id="main-tabs") as tabs:
            if not settings.reader:
                submit = SubmitTab.mount(Submitter(leaderboard, auth))  # the board page re-bakes itself
                mine = MySubmissions(leaderboard, auth, downloads)
                MineTab.mount(mine, after=submit.finished)
            AboutTab.mount(AboutFiles(leaderboard, downloads))
            if not settings.reader:
                ReportQuestions(leaderboard, auth).mount(page)
            if not settings.reader:
                AdminTab.mount(Maintainers(leaderboard, auth))
        if not settings.reader:
            mine.expose_api()  # outside the Tabs (ui/mine.py)
        DeepLinks(tabs).wire(page)
        accessible_names.wire(page)
    if not settings.reader:  # a reader takes no uploads at all
        policy = UploadPolicy(auth, upload_budget(leaderboard.settings), leaderboard.submissions.checks_of)
        page.uploads = policy  # type: ignore[attr-defined]
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


def build_server(
    page: gr.Blocks, leaderboard: Leaderboard | PublishedLeaderboard, settings: UiSettings, max_upload_bytes: int
) -> tuple[FastAPI, BoardBaker]:
    """The Space's one ASGI app: the board page at ``/`` (:mod:`ui.board_page`, baked once before
    anyone visits) and Gradio mounted beside it at the root (``/app``, ``/config``, ``/gradio_api``:
    ``gradio_client`` and the ``/submit`` API stay where they were). Gradio's root URL is the
    configured public address (:mod:`ui.origin`: no request header sets it)."""
    settings = replace(settings, server_port=serving_port(settings))  # one port for the root and the routes
    baker = BoardBaker(leaderboard, settings)
    baker.refresh_or_keep()  # the first bake (retried by the baker's thread)
    demo = isinstance(leaderboard, Leaderboard) and leaderboard.settings.demo and not leaderboard.settings.uses_hub
    inputs = public_files.routes(leaderboard, demo)  # the question list and (embedded default) its images
    if isinstance(leaderboard, Leaderboard):  # a row's .eval_results file (a reader has no submissions)
        inputs += EvalResultsFiles(leaderboard, PublicOrigin.of(settings, settings.server_port)).routes()
        inputs += ErrataFiles(leaderboard).routes()  # every gold correction made, built once per gold change
    server = FastAPI(routes=[*routes(baker), *inputs], docs_url=None, redoc_url=None, openapi_url=None)
    page.queue(default_concurrency_limit=16)  # reads are thread-safe: many visitors at once
    page.state_session_capacity = launch_extras(settings.session_capacity)["state_session_capacity"]  # launch's own
    options = mount_options(settings, max_upload_bytes, getattr(page, "uploads", None))
    gr.mount_gradio_app(server, page, path="/", **options)
    if not serves(server, UPLOAD_PATH):  # a gate in front of a route Gradio moved would gate nothing
        log.error("Gradio %s serves no %s: the upload gate (ui.uploads) guards nothing", gr.__version__, UPLOAD_PATH)
    return server, baker


def mount_options(settings: UiSettings, max_upload_bytes: int, uploads: UploadPolicy | None = None) -> dict:
    """Keyword arguments of ``gr.mount_gradio_app``: the upload limit Gradio enforces while the
    upload streams in (nothing larger reaches the disk), the page's look, the page's root URL
    pinned from configuration (:mod:`ui.origin`), and, through FastAPI's ``middleware=`` argument
    of Gradio's own app, the refusal of foreign-origin writes (:class:`ui.origin.OriginGuard`),
    who may upload and how much (:mod:`ui.uploads`; ``uploads`` None: no one) and the closed
    save-a-session endpoint
    (:class:`ui.saved_states.NoSavedStates`)."""
    port = serving_port(settings)
    origin = PublicOrigin.of(settings, port)
    restrict_gradio_cors(origin)
    log.info("the page's root is %s (LEADERBOARD_PUBLIC_URL, SPACE_HOST, else this address)", origin.root)
    options: dict = {
        "max_file_size": max_upload_bytes,
        "css": CSS,
        "theme": theme(),
        "server_name": settings.server_name,
        "server_port": port,
    }
    uploads = uploads or UploadPolicy(None, UploadBudget(max_upload_bytes))
    options["root_path"] = origin.root
    options["app_kwargs"] = {
        "middleware": [
            Middleware(OriginGuard, origin=origin),
            Middleware(UploadGate, auth=uploads.auth, budget=uploads.budget, checks=uploads.checks),
            Middleware(NoSavedStates),
        ]
    }
    return options


def launch(
    page: gr.Blocks, leaderboard: Leaderboard | PublishedLeaderboard, settings: UiSettings, max_upload_bytes: int
) -> None:
    """Serve the app (``python app.py``): the board page and Gradio on one port, the baker running.
    The port is resolved once, so the root Gradio is told and the port uvicorn binds are the same."""
    settings = replace(settings, server_port=serving_port(settings))
    server, baker = build_server(page, leaderboard, settings, max_upload_bytes)
    baker.start()
    uvicorn.run(server, **uvicorn_options(settings))


def uvicorn_options(settings: UiSettings) -> dict:
    """How uvicorn serves the app. Its proxy-headers layer believes ``X-Forwarded-For`` (and
    ``-Proto``) from exactly the proxies the deployment names (LEADERBOARD_TRUSTED_PROXIES, as
    :func:`ui.throttle.client_of` does), none when none are named: left to its default
    (``FORWARDED_ALLOW_IPS``, else 127.0.0.1) it rewrote the peer of every loopback connection from
    the header, so a same-host proxy passed on whatever the caller wrote (docs/deployment-identity.md)."""
    return {
        "host": settings.server_name,
        "port": settings.server_port,
        "log_level": "warning",
        "proxy_headers": True,
        "forwarded_allow_ips": ",".join(settings.trusted_proxies),
    }
