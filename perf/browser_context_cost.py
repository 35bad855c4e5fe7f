"""CPU of opening a page for a browser test in Chromium: a new context per page (what each browser
test did) against a new page in a kept context (tests/support/browser_pages.py) and one page
navigated again. The whole machine's CPU seconds (``/proc/stat``: Chromium's processes, Playwright's
driver and the page's server), for ``--pages`` loads of a small page served on 127.0.0.1; run it
on an idle machine. ``--launches N`` adds what a test module's browser cost: Playwright's driver
started and Chromium launched for it (the module-scoped fixture before) against a context of its
own in the test process's one browser (tests/conftest.py), N of each, with one page loaded.

    .venv/bin/python perf/browser_context_cost.py --pages 12 --launches 6
"""

from __future__ import annotations

import argparse
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.app_server import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

PAGE = b"<!doctype html><title>t</title><main><h1>A board</h1><p>" + b"row " * 2000 + b"</p></main>"


class Small(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args) -> None:
        pass


def busy_seconds() -> float:
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (fields[0] + fields[1] + fields[2] + fields[5] + fields[6]) / 100  # user nice system irq softirq


def loads(browser, url: str, pages: int, mode: str) -> float:
    before, kept, page, last = busy_seconds(), None, None, None
    for _ in range(pages):
        if mode == "new context" or kept is None:
            kept = browser.new_context(viewport={"width": 1440, "height": 900})
        if mode != "one page" or page is None:
            page = kept.new_page()
        page.goto(url)
        page.wait_for_selector("h1")
        if last is not None:
            last.close()  # the page before, closed once this one has its renderer
        if mode == "new page, the last closed after":
            last = page
        elif mode == "new page, the last blanked and closed after":
            page.goto("about:blank")
            last = page
        elif mode != "one page":
            page.close()
        if mode == "new context":
            kept.close()
    spent = busy_seconds() - before
    kept.close()
    return spent


def one_module(browser, url: str) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("h1")
    context.close()


def module_browsers(url: str, modules: int) -> None:
    """A driver and a browser per module, then a context per module in one browser."""
    from playwright.sync_api import sync_playwright

    before = busy_seconds()
    for _ in range(modules):
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            one_module(browser, url)
            browser.close()
    launched = (busy_seconds() - before) / modules
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        one_module(browser, url)  # warm
        before = busy_seconds()
        for _ in range(modules):
            one_module(browser, url)
        kept = (busy_seconds() - before) / modules
        browser.close()
    print(f"a module's own driver and browser: {launched:.2f} s of CPU ({modules} modules)")
    print(f"a module's context in the process's one browser: {kept:.2f} s of CPU ({modules} modules)")


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=12)
    parser.add_argument("--launches", type=int, default=0, help="also time N modules' browsers both ways")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Small)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    if args.launches:
        module_browsers(url, args.launches)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        loads(browser, url, 2, "new context")  # warm
        for mode in (
            "new context",
            "new page in a kept context",
            "new page, the last closed after",
            "new page, the last blanked and closed after",
            "one page",
        ):
            spent = loads(browser, url, args.pages, mode)
            print(f"{mode}: {spent / args.pages:.2f} s of CPU a page ({args.pages} pages)")
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
