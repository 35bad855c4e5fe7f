"""A new page per test in one browser context per set of options, kept for the module.

Most of what a browser test's page costs Chromium is a renderer process started for it. A new
context and page per test cost 0.53 s of CPU a small page here; a new page in a kept context whose
last test's page is closed only after the new one has its renderer, 0.35 s
(``perf/browser_context_cost.py`` at 3860df9); and a kept context keeps the compiled scripts of Gradio's and
the board's assets between tests, as a visitor's browser does between views. What a test could
leave to the next is wiped before the next gets its page: the context's cookies (a new session),
the app origin's local storage; sessionStorage and every script go with the page, which is sent to
``about:blank`` at once (nothing of it runs on into the next test)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

TIMEOUT = 60_000  # ms: a bound on a hang on a loaded host, not a speed check


class Pages:
    """``pages.open(viewport=..., **options)`` as a context manager: a fresh page in the kept context
    for those options (made, and ``setup(context)`` run on it, the first time)."""

    def __init__(self, browser, setup: Callable[[object], None] | None = None) -> None:
        self.browser = browser
        self.setup = setup
        self.contexts: dict[str, object] = {}
        self.spare: object | None = None  # the last test's page, blank: its renderer serves the next page

    def context(self, **options):
        key = repr(sorted(options.items()))
        if key not in self.contexts:
            context = self.browser.new_context(**options)
            if self.setup is not None:
                self.setup(context)
            self.contexts[key] = context
        return self.contexts[key]

    @contextmanager
    def open(self, **options) -> Iterator:
        context = self.context(**options)
        context.clear_cookies()
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        try:
            yield page
        finally:
            self._retire(page)

    def _retire(self, page) -> None:
        with suppress(Exception):  # a page already closed or off the origin leaves nothing to wipe
            if page.url.startswith("http"):
                page.evaluate("() => localStorage.clear()")
            page.goto("about:blank")
        if self.spare is not None:
            self.spare.close()
        self.spare = None if page.is_closed() else page

    def close(self) -> None:
        for context in self.contexts.values():
            context.close()  # and its pages, the spare with them
        self.contexts.clear()
        self.spare = None


ROWS = "#board-table .tabulator-row"


def open_board(page, url: str, query: str = "", rows: bool = True) -> None:
    """The board page at ``url`` + ``query``, once it has drawn (and its table has rows, unless
    ``rows=False``: a view that may show none)."""
    page.goto(url + "/" + query)
    if rows:
        page.wait_for_selector(ROWS)
    page.wait_for_function("() => Number(document.getElementById('board').dataset.drawn) >= 1")
