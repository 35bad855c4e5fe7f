"""The board page baked in the test's own process and served to Chromium through Playwright's
request routing: for a page whose data needs something only the test has (a field declared in
the test, a store built in it), with no app process to start."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlparse

from starlette.applications import Starlette
from starlette.testclient import TestClient

from leaderboard.config import UiSettings
from tests.support import browser_pages
from tests.support.browser_pages import ROWS, TIMEOUT, Pages
from ui.board_data import ReadSide
from ui.board_page import BoardBaker, routes

__all__ = ["ORIGIN", "ROWS", "WIDTHS", "baked", "baked_client", "baked_page", "baked_pages", "open_board", "route_to"]

ORIGIN = "http://board.test"
WIDTHS = {1440: (1440, 900), 390: (390, 844)}  # the desktop and phone viewports the board is tested at


def baked_client(read: ReadSide) -> TestClient:
    """A client of the board's routes (``/``, its assets, ``/board-version``) on a page baked now."""
    return baked(read)[0]


def baked(read: ReadSide, settings: UiSettings | None = None) -> tuple[TestClient, BoardBaker]:
    """:func:`baked_client` and its baker (``baker.refresh()`` bakes the page again after a change)."""
    baker = BoardBaker(read, settings or UiSettings(), at_most_every=0)
    assert baker.refresh(), "the page bakes"
    return TestClient(Starlette(routes=routes(baker))), baker


def route_to(context, client: TestClient) -> None:
    """Answer every request the browser context makes to :data:`ORIGIN` from ``client``."""

    def answer(route, request) -> None:
        url = urlparse(request.url)
        got = client.request(request.method, url.path + (f"?{url.query}" if url.query else ""))
        route.fulfill(status=got.status_code, headers=dict(got.headers), body=got.content)

    context.route(f"{ORIGIN}/**", answer)


@contextmanager
def baked_pages(browser, client: TestClient) -> Iterator[Pages]:
    """Fresh pages in contexts kept for a module (:class:`tests.support.browser_pages.Pages`), each
    context's requests to :data:`ORIGIN` answered by ``client``; ``open(width, **options)``."""
    kept = BakedPages(browser, lambda context: route_to(context, client))
    try:
        yield kept
    finally:
        kept.close()


class BakedPages(Pages):
    @contextmanager
    def open(self, width: int, **options) -> Iterator:  # type: ignore[override]
        w, h = WIDTHS[width]
        with super().open(viewport={"width": w, "height": h}, **options) as page:
            yield page


@contextmanager
def baked_page(browser, client: TestClient, width: int, **context_options) -> Iterator:
    """A page in a new context of ``width`` (a key of :data:`WIDTHS`) whose requests to :data:`ORIGIN`
    ``client`` answers; the context is closed after."""
    w, h = WIDTHS[width]
    context = browser.new_context(viewport={"width": w, "height": h}, **context_options)
    route_to(context, client)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    try:
        yield page
    finally:
        context.close()


def open_board(page, query: str = "") -> None:
    """The baked board at ``query``, once its table has drawn."""
    browser_pages.open_board(page, ORIGIN, query)
