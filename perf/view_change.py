"""A board's view change in Chromium, from the click to the redrawn table, on a large board.

Starts each app (this checkout, and any ``--app-root`` given: e.g. a worktree of an older commit)
on the same data, ``--rows`` scored rows per board (``perf/bench_app.py``'s fill, kept in
``--seed-dir`` across runs), opens its page in headless Chromium (``/usr/bin/chromium``) and clicks
the SCB board's View choices in turn (Overview, By type, By country, By category, ...), ``--changes``
times. Each change is timed as a visitor sees it: from the click until the table's text differs
from before and the browser has painted once more (``requestAnimationFrame``), measured by the same
Playwright code on either page (the Gradio board of old: ``#scb-view`` / ``#scb-table``; the board
page: ``#view-choice`` / ``#board-table``), so the round trip of the test driver is in both ("driver"),
and in the page itself from the click event's time stamp to the frame after the redrawn one ("in
page": what a visitor waits, without the driver's own checks before it clicks).

    .venv/bin/python perf/view_change.py --rows 1000 --seed-dir /tmp/seed --app-root /tmp/old-main
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support import app_server  # noqa: E402
from tests.support.app_server import CHROMIUM, CHROMIUM_ARGS, AppServer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
VIEWS = ("By type", "By country", "By category", "Overview")
PAGES = {  # how each page names its View choice and its table
    "board page": ("#view-choice label", "#board-table"),
    "Gradio board": ("#scb-view label", "#scb-table"),
}


def seeded(rows: int, keep: Path | None, tmp: Path) -> Path:
    """A data folder with ``rows`` scored rows per board (filled once into ``keep``)."""
    from perf.bench_app import fill

    source = (keep / f"rows-{rows}") if keep else tmp / "seed"
    if not (source / "data").is_dir():
        source.mkdir(parents=True, exist_ok=True)
        fill(source / "data", rows, source)
    return source / "data"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


# In the page, independent of the driver: from the click event's time stamp (when the browser took
# the click) to the start of the frame after the one that showed the changed table (it has painted).
IN_PAGE_WAIT = """([sel, before]) => { window.__viewChanged = new Promise((done) => {
  let at = null;
  document.addEventListener("click", (e) => { at = e.timeStamp; }, { capture: true, once: true });
  const tick = () => {
    if (at !== null && document.querySelector(sel).innerText.slice(0, 3000) !== before)
      requestAnimationFrame((t) => done(t - at));
    else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}); }"""


def measure(url: str, changes: int, width: int) -> tuple[str, list[float], list[float], float]:
    """(which page, click-to-redraw seconds per change as the driver saw it and as the page did,
    seconds until the first table showed)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.set_default_timeout(120_000)
        t0 = time.perf_counter()
        page.goto(url + "/")
        page.wait_for_selector("#board-table .tabulator-row, #scb-table [role=row] >> nth=1")
        first = time.perf_counter() - t0
        kind = "board page" if page.locator("#board-data").count() else "Gradio board"
        choice, table = PAGES[kind]
        times, in_page = [], []
        for i in range(changes):
            before = page.evaluate(f"() => document.querySelector('{table}').innerText.slice(0, 3000)")
            page.evaluate(IN_PAGE_WAIT, [table, before])
            target = page.locator(choice, has_text=VIEWS[i % len(VIEWS)]).first
            t0 = time.perf_counter()
            target.click()
            page.wait_for_function(
                "([sel, before]) => document.querySelector(sel).innerText.slice(0, 3000) !== before",
                arg=[table, before],
                polling="raf",
            )
            page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")  # painted
            times.append(time.perf_counter() - t0)
            in_page.append(page.evaluate("() => window.__viewChanged") / 1000)
        browser.close()
    return kind, times, in_page, first


def run(app_root: Path, data: Path, tmp: Path, changes: int, width: int) -> tuple[str, list[float], list[float], float]:
    app_server.ROOT = app_root.resolve()
    folder = tmp / f"data-{app_root.name}-{time.time_ns()}"
    shutil.copytree(data, folder)
    app = AppServer(folder, log=tmp / f"{app_root.name}.log").start(timeout=600)
    try:
        return measure(app.url, changes, width)
    finally:
        app.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000, help="scored rows per board (default 1000)")
    parser.add_argument("--seed-dir", type=Path, help="keep the filled data folder here and reuse it")
    parser.add_argument("--app-root", type=Path, action="append", default=[], help="another checkout (repeatable)")
    parser.add_argument("--changes", type=int, default=20, help="view changes per app (default 20)")
    parser.add_argument("--width", type=int, default=1440, help="viewport width (default 1440)")
    args = parser.parse_args(argv)
    results = []
    load_before = f"{os.getloadavg()[0]:.2f}"
    with tempfile.TemporaryDirectory(prefix="view-change-") as tmp_name:
        tmp = Path(tmp_name)
        data = seeded(args.rows, args.seed_dir, tmp)
        for root in [*args.app_root, ROOT]:
            kind, times, in_page, first = run(root, data, tmp, args.changes, args.width)
            results.append((root, kind, times, in_page, first))
    title = f"{args.rows} scored rows per board, {args.width} px, {args.changes} changes"
    print(f"\n### View change in Chromium, {title}\n")
    print(f"load average before: {load_before}, after: {os.getloadavg()[0]:.2f} (of {os.cpu_count()} cores)\n")
    print("| app | page | first table s | driver p50 ms | driver p95 ms | in page p50 ms | in page p95 ms | max ms |")
    print("|---|---|---|---|---|---|---|---|")
    for root, kind, times, in_page, first in results:
        print(
            f"| {root} | {kind} | {first:.1f} | {1000 * statistics.median(times):.0f} | "
            f"{1000 * pct(times, 0.95):.0f} | {1000 * statistics.median(in_page):.0f} | "
            f"{1000 * pct(in_page, 0.95):.0f} | {1000 * max(times):.0f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
