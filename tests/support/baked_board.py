"""The board page baked in the test's own process and served to Chromium through Playwright's
request routing: for a page whose data needs something only the test has (a field declared in
the test, a store built in it), with no app process to start."""

from __future__ import annotations

from urllib.parse import urlparse

from starlette.applications import Starlette
from starlette.testclient import TestClient

from leaderboard.config import UiSettings
from ui.board_data import ReadSide
from ui.board_page import BoardBaker, routes

ORIGIN = "http://board.test"


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
