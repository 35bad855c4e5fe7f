"""The board's first screen: when its first rows with figures are on screen, against the first
contentful paint, old and new in one run (issue 44).

Two apps on the same demo data: this checkout and another (``--old-root``, e.g. a worktree of an older
commit), each on its own port. Each trial is a first visit in a fresh browser context (nothing cached)
at 1440x900, at 390x844, and at 390x844 with the CPU slowed 4x (CDP ``Emulation.setCPUThrottlingRate``),
the two apps taking turns so a loaded host weighs on both alike. Measured in the page:

- FCP: the ``first-contentful-paint`` paint entry;
- FMP (first meaningful paint): when the first cell of the board's table holding a figure (``12.34``)
  was painted inside the window, by Element Timing (each cell, baked or drawn by the script, is marked
  ``elementtiming`` by a mutation observer before its first paint; hidden cells are not painted);
- CLS: the layout-shift entries without recent input, summed over the visit.

Prints medians and the spread (min-max) per app and layout, and FMP/FCP.

    git -C ../main worktree add /tmp/old-culture 2880999
    .venv/bin/python perf/first_screen.py --old-root /tmp/old-culture --trials 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.support import app_server  # noqa: E402
from tests.support.app_server import AppServer  # noqa: E402

PROBE = """
window.__fs = { cells: [], frame: null, cls: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (!e.hadRecentInput) window.__fs.cls += e.value;
}).observe({ type: "layout-shift", buffered: true });
// Element Timing: every cell of the board's table, baked or drawn by the script, is marked before it
// is first painted (a mutation observer runs before the next paint), so its entry tells when its text
// was painted.
const CELLS = "#board-table td, #board-table .tabulator-cell";
const FIGURE = /\\d+\\.\\d\\d/;
new MutationObserver((changes) => {
  for (const change of changes) for (const node of change.addedNodes) {
    if (node.nodeType !== 1) continue;
    const cells = node.matches(CELLS) ? [node] : [...node.querySelectorAll(CELLS)];
    for (const cell of cells) cell.setAttribute("elementtiming", "cell");
  }
}).observe(document, { childList: true, subtree: true });
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const text = e.element ? e.element.textContent : "";
    if (e.identifier === "cell" && e.intersectionRect.height > 0 && FIGURE.test(text)) {
      window.__fs.cells.push(e.renderTime || e.loadTime);
    }
  }
}).observe({ type: "element", buffered: true });
"""
LAYOUTS = {
    "desktop 1440": ({"width": 1440, "height": 900}, 1),
    "phone 390": ({"width": 390, "height": 844}, 1),
    "phone 390, CPU x4": ({"width": 390, "height": 844}, 4),
}


def visit(browser, url: str, viewport: dict, throttle: int) -> dict[str, float]:
    context = browser.new_context(
        viewport=viewport, is_mobile=viewport["width"] < 640, has_touch=viewport["width"] < 640
    )
    try:
        page = context.new_page()
        page.set_default_timeout(120_000)
        if throttle > 1:
            context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": throttle})
        page.add_init_script(PROBE)
        page.goto(url + "/")
        page.wait_for_function("() => window.__fs.cells.length > 0 && document.getElementById('board').dataset.drawn")
        page.wait_for_timeout(1500)  # shifts after the first draw count too
        fcp = page.evaluate("() => performance.getEntriesByName('first-contentful-paint')[0].startTime")
        fmp, cls = page.evaluate("() => [Math.min(...window.__fs.cells), window.__fs.cls]")
        return {"fcp": fcp, "fmp": fmp, "ratio": fmp / fcp, "cls": cls}
    finally:
        context.close()


def start(root: Path, data: Path) -> AppServer:
    """An app of the checkout ``root`` on its own demo seed (tests/support/app_server.py seeds it)."""
    app_server.ROOT = root
    app_server.SEEDED_ROOT = data.parent / f"seeds-{root.name}"
    try:
        return AppServer(data, cwd=None).start()
    finally:
        app_server.ROOT = ROOT


def spread(values: list[float], scale: float = 1.0, digits: int = 0) -> str:
    shown = [round(v * scale, digits) for v in values]
    return f"{statistics.median(values) * scale:.{digits}f} ({min(shown):.{digits}f}-{max(shown):.{digits}f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old-root", type=Path, required=True, help="the older checkout to compare with")
    parser.add_argument("--trials", type=int, default=5)
    args = parser.parse_args(argv)
    results: dict[tuple[str, str], list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="first-screen-") as tmp:
        apps = {
            "old": start(args.old_root.resolve(), Path(tmp) / "old" / "data"),
            "new": start(ROOT, Path(tmp) / "new" / "data"),
        }
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium")
                for trial in range(args.trials):
                    for layout, (viewport, throttle) in LAYOUTS.items():
                        order = ("old", "new") if trial % 2 == 0 else ("new", "old")  # interleaved, alternating
                        for name in order:
                            results.setdefault((name, layout), []).append(
                                visit(browser, apps[name].url, viewport, throttle)
                            )
                browser.close()
        finally:
            for app in apps.values():
                app.stop()
    print("| app | layout | FCP ms | FMP ms | FMP/FCP | CLS |")
    print("|---|---|---|---|---|---|")
    for (name, layout), runs in sorted(results.items(), key=lambda kv: (kv[0][1], kv[0][0])):

        def col(key: str, runs: list[dict] = runs) -> list[float]:
            return [r[key] for r in runs]

        print(
            f"| {name} | {layout} | {spread(col('fcp'))} | {spread(col('fmp'))} | "
            f"{spread(col('ratio'), digits=2)} | {spread(col('cls'), digits=3)} |"
        )
    print(f"({args.trials} trials each, medians (min-max); old = {args.old_root})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
