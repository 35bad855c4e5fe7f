"""The public board as a page of its own: baked once per data change, served beside Gradio.

``GET /`` answers the page: HTML with every board's data in it as JSON (:mod:`ui.board_data`),
the same bytes for every visitor, gzipped once per bake, with an ``ETag`` (a revisit with
``If-None-Match`` gets a 304). Every view of it (benchmark, grouping, filters, search, sort,
columns, the model page) is computed in the browser (``ui/static/board.js``, on the vendored
Tabulator table), so a view change costs the server nothing. The page holds no request-derived
text: its links are relative (``app?tab=submit``) and its canonical address is configuration
(``LEADERBOARD_PUBLIC_URL``), never a Host header.

``GET /questions`` is the question browser, static and baked once: ``ui/static/questions.js`` reads
the public lists (``/questions/<bench>.jsonl``, what teams download) in the browser, so it shows
no more than they do.

Old deep links keep working: a board's ``?bench=..&view=..`` (and ``&model=``) is read by the
page itself, and so are ``?tab=compare`` and ``?bench=..&compare=..`` (Compare is computed in the
browser from the page's data, ``ui/static/compare.js``); ``?tab=<tab>`` of a Gradio tab is
redirected to the Gradio page at ``app`` with the same query (its tabs live there).

:class:`BoardBaker` polls the boards' fingerprints (cheap) every ``POLL_SECONDS`` and re-bakes
when one moved, at most every ``BAKE_AT_MOST_EVERY`` seconds; a failed bake keeps serving the last
page. Static files (the script, the style, Tabulator and its licence) are read once and served
with an immutable cache lifetime under a content-hash query.
"""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from string import Template
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from leaderboard.config import UiSettings
from scoring.benchmarks import BENCHMARKS
from ui.board_data import ReadSide, board_data, fingerprints
from ui.first_screen import first_screen

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
ASSETS = {
    "board.js": (STATIC / "board.js", "text/javascript; charset=utf-8"),
    "compare.js": (STATIC / "compare.js", "text/javascript; charset=utf-8"),
    "focus.js": (STATIC / "focus.js", "text/javascript; charset=utf-8"),
    "board.css": (STATIC / "board.css", "text/css; charset=utf-8"),
    "tabulator.min.js": (STATIC / "vendor" / "tabulator" / "tabulator.min.js", "text/javascript; charset=utf-8"),
    "tabulator.min.css": (STATIC / "vendor" / "tabulator" / "tabulator.min.css", "text/css; charset=utf-8"),
    "tabulator-LICENSE.txt": (STATIC / "vendor" / "tabulator" / "LICENSE", "text/plain; charset=utf-8"),
    "questions.js": (STATIC / "questions.js", "text/javascript; charset=utf-8"),
    "questions.css": (STATIC / "questions.css", "text/css; charset=utf-8"),
}
ASSET_PATH = "/board-assets"
ASSET_SLOTS = {  # the page template's $names for the static files
    "tabulator_css": "tabulator.min.css",
    "board_css": "board.css",
    "licence": "tabulator-LICENSE.txt",
    "tabulator_js": "tabulator.min.js",
    "board_js": "board.js",
    "compare_js": "compare.js",
    "focus_js": "focus.js",
}
PAGE = Template((STATIC / "board.html").read_text())  # $-placeholders: the page holds no request text
QUESTIONS_PAGE = Template((STATIC / "questions.html").read_text())  # the question browser, no data in it
GRADIO_PAGE = "app"  # the Gradio page's path (ui.app.build_app's route): Submit, My submissions, About, Maintainers
GRADIO_TABS = ("submit", "mine", "about", "admin")  # Compare is this page's own (ui/static/compare.js)
POLL_SECONDS = 0.25
BAKE_AT_MOST_EVERY = 2.0
TITLE = "Cultural VLM Leaderboard"


@dataclass(frozen=True)
class Body:
    """Bytes served as they are, gzipped once, with their ETag."""

    raw: bytes
    gzipped: bytes
    etag: str
    media_type: str

    @classmethod
    def of(cls, raw: bytes, media_type: str) -> Body:
        digest = hashlib.sha256(raw).hexdigest()[:20]
        return cls(raw, gzip.compress(raw, 6, mtime=0), f'"{digest}"', media_type)

    def response(self, request: Request, cache_control: str) -> Response:
        headers = {"etag": self.etag, "cache-control": cache_control, "vary": "accept-encoding"}
        if self.etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        accepts = request.headers.get("accept-encoding", "")
        if any(part.split(";")[0].strip() == "gzip" for part in accepts.lower().split(",")):
            return Response(self.gzipped, media_type=self.media_type, headers={**headers, "content-encoding": "gzip"})
        return Response(self.raw, media_type=self.media_type, headers=headers)


def load_assets() -> dict[str, Body]:
    return {name: Body.of(path.read_bytes(), media) for name, (path, media) in ASSETS.items()}


SCRIPT_SAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(data: dict | list) -> str:
    """JSON that cannot end its ``<script>`` element (no ``<``, ``>``, ``&`` or line separators)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, escaped in SCRIPT_SAFE.items():
        text = text.replace(char, escaped)
    return text


def site_links(settings: UiSettings) -> str:
    """The links to the Gradio tabs (relative); a reader links where submissions are made."""
    tab = lambda t, label, cls="": f'<a href="{GRADIO_PAGE}?{urlencode({"tab": t})}"{cls}>{label}</a>'  # noqa: E731
    if settings.reader:
        writer = html.escape(settings.writer_url or "", quote=True)
        submit = f'<a class="primary" href="{writer}" rel="noopener">Submit</a>' if writer else ""
        return submit + COMPARE_LINK + tab("about", "About")
    return (
        tab("submit", "Submit", ' class="primary"')
        + tab("mine", "My submissions")
        + COMPARE_LINK
        + tab("about", "About")
        + tab("admin", "Maintainers", ' class="wide-only"')
    )


COMPARE_LINK = '<a href="?tab=compare" id="compare-link">Compare</a>'  # this page's own (compare.js)


def inputs_html() -> str:
    """What a team runs its model on, one link from the board (ui.public_files serves them)."""
    links = " · ".join(
        f'{html.escape(b.name)} <a href="questions/{b.id}.jsonl">questions (JSONL)</a>'
        + (f', <a href="questions/{b.id}.tsv">VLMEvalKit TSV</a>' if b.family else "")
        for b in BENCHMARKS.values()
    )
    return (
        f"Run your model on the inputs: {links} (<code>python -m scoring.harness.runner</code> reads them). "
        f'<a href="questions">Browse the questions</a> with their images.'
    )


def empty_board_html(settings: UiSettings) -> str:
    if settings.reader:
        if settings.writer_url:
            where = f'<a href="{html.escape(settings.writer_url, quote=True)}">the leaderboard\'s main page</a>'
        else:
            where = "the leaderboard's main page"
        return f"No rows yet: submissions are made on {where}."
    return f'No rows yet: be the first to <a href="{GRADIO_PAGE}?tab=submit">submit</a>.'


def page_html(data: dict, settings: UiSettings, assets: dict[str, Body]) -> str:
    def asset(name: str) -> str:
        return f"{ASSET_PATH.lstrip('/')}/{name}?v={assets[name].etag.strip(chr(34))[:12]}"

    maintainers = "" if settings.reader else f' <a href="{GRADIO_PAGE}?tab=admin">Maintainers</a>.'
    canonical = ""
    if settings.public_url:
        canonical = f'<link rel="canonical" href="{html.escape(settings.public_url.rstrip("/") + "/", quote=True)}">'
    return PAGE.substitute(
        title=TITLE,
        canonical=canonical,
        site_links=site_links(settings),
        maintainers=maintainers,
        inputs=inputs_html(),
        data=script_json(data),
        **first_screen(data),
        **{name: asset(file) for name, file in ASSET_SLOTS.items()},
    )


def questions_html(assets: dict[str, Body]) -> str:
    """The question browser (``/questions``): static, it reads the public lists in the browser."""

    def asset(name: str) -> str:
        return f"{ASSET_PATH.lstrip('/')}/{name}?v={assets[name].etag.strip(chr(34))[:12]}"

    benches = [
        {
            "id": b.id,
            "name": b.name,
            "key": b.key_field,
            "echo": b.key_echo,
            "fields": b.family.browser_fields() if b.family else {"kind": ""},
        }
        for b in BENCHMARKS.values()
    ]  # each benchmark's own field names (its family's): the browser knows no benchmark by name
    tabs = "".join(
        f'<a class="bench-tab" data-bench="{html.escape(b.id)}" href="questions?{urlencode({"bench": b.id})}">'
        f"{html.escape(b.name)}</a>"
        for b in BENCHMARKS.values()
    )
    return QUESTIONS_PAGE.substitute(
        title=TITLE,
        bench_tabs=tabs,
        benches=script_json(benches),
        board_css=asset("board.css"),
        questions_css=asset("questions.css"),
        questions_js=asset("questions.js"),
    )


class BoardBaker:
    """Keeps the baked page current (module doc); ``page`` is the current :class:`Body`."""

    def __init__(
        self,
        read: ReadSide,
        settings: UiSettings,
        at_most_every: float = BAKE_AT_MOST_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.read = read
        self.settings = settings
        self.assets = load_assets()
        self.at_most_every = at_most_every
        self.clock = clock
        self.page: Body | None = None
        self.version = ""  # of the data in the page: an open page polls it (``/board-version``)
        self.bakes = 0
        self._keys: tuple[str, ...] | None = None
        self._baked_at = float("-inf")
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._last_error: str | None = None

    def refresh(self) -> bool:
        """Re-bake if a board's fingerprint moved and the last bake is old enough; True if it baked."""
        if fingerprints(self.read) == self._keys:
            return False
        with self._lock:
            keys = fingerprints(self.read)
            if keys == self._keys or self.clock() - self._baked_at < self.at_most_every:
                return False
            data = board_data(self.read, empty_board_html(self.settings))
            data["version"] = hashlib.sha256(script_json(data).encode()).hexdigest()[:16]
            data["refresh_seconds"] = self.settings.refresh_seconds
            self.page = Body.of(page_html(data, self.settings, self.assets).encode(), "text/html; charset=utf-8")
            self.version = data["version"]
            self._keys, self._baked_at = keys, self.clock()
            self.bakes += 1
        return True

    def refresh_or_keep(self) -> bool:
        """:meth:`refresh`, but a failed bake keeps serving the last page and is retried (at start on
        the Hub a gold's pointer can arrive before its file)."""
        try:
            baked = self.refresh()
        except Exception as err:
            if repr(err) != self._last_error:
                log.exception("baking the board page failed; retrying")
            self._last_error = repr(err)
            return False
        if baked:
            self._last_error = None
        return baked

    def start(self, poll_seconds: float = POLL_SECONDS) -> threading.Thread:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, args=(poll_seconds,), name="board-baker", daemon=True)
            self._thread.start()
        return self._thread

    def _run(self, poll_seconds: float) -> None:
        while True:
            self.refresh_or_keep()
            time.sleep(poll_seconds)


def old_link_target(query: dict[str, str], reader: bool = False) -> str | None:
    """Where an old deep link of a Gradio tab now lives (``app?...``), or None for the board's own
    (its views, and Compare). A reader has About only."""
    tabs = ("about",) if reader else GRADIO_TABS
    if query.get("tab") in tabs:
        return f"{GRADIO_PAGE}?{urlencode(query)}"
    return None


def routes(baker: BoardBaker) -> list[Route]:
    """``/`` (the page, or a redirect for an old Gradio-tab link), ``/board-version`` (what an open
    page polls to learn of new results) and ``/board-assets/{name}``."""

    async def board(request: Request) -> Response:
        target = old_link_target(dict(request.query_params), baker.settings.reader)
        if target is not None:
            return RedirectResponse(target, status_code=307)  # relative: no Host header in it
        if baker.page is None:
            return Response(
                "The board is being prepared; reload in a moment.", status_code=503, headers={"retry-after": "2"}
            )
        return baker.page.response(request, "no-cache")

    async def asset(request: Request) -> Response:
        body = baker.assets.get(request.path_params["name"])
        if body is None:
            return Response("Not Found", status_code=404)
        return body.response(request, "public, max-age=31536000, immutable")

    questions_page = Body.of(questions_html(baker.assets).encode(), "text/html; charset=utf-8")

    async def questions(request: Request) -> Response:
        return questions_page.response(request, "no-cache")

    async def version(request: Request) -> Response:
        return JSONResponse({"version": baker.version}, headers={"cache-control": "no-store"})

    return [
        Route("/", board, methods=["GET", "HEAD"]),
        Route("/board-version", version, methods=["GET"]),
        Route("/questions", questions, methods=["GET", "HEAD"]),
        Route(ASSET_PATH + "/{name}", asset, methods=["GET", "HEAD"]),
    ]
