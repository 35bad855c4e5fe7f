"""The board's first screen: when its first rows with figures are on screen, against the first
contentful paint, old and new in one run (issue 44).

Two apps on the same demo data: this checkout and another (``--old-root``, e.g. a worktree of an older
commit), each on its own port. Each trial is a first visit in a fresh browser context (nothing cached)
at 1440x900, at 390x844, and at 390x844 with the CPU slowed 4x (CDP ``Emulation.setCPUThrottlingRate``),
the two apps taking turns so a loaded host weighs on both alike. Measured in the page:

- FCP: the ``first-contentful-paint`` paint entry;
- FMP (first meaningful paint): the first frame in which a row of the board's table with a figure
  (``12.34``) is laid out, visible (``checkVisibility``: not hidden by ``visibility`` or ``display``)
  and inside the window, taken at the next frame's start (when that frame has been painted: an upper
  bound by one frame), from navigation start;
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
window.__fs = { fmp: null, cls: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (!e.hadRecentInput) window.__fs.cls += e.value;
}).observe({ type: "layout-shift", buffered: true });
// A row of the board's table with a figure, laid out, visible (not hidden by visibility or display)
// and inside the window: checked before every frame from the start of the visit.
const FIGURE = /\\d+\\.\\d\\d/;
function rowsOnScreen() {
  const table = document.getElementById("board-table");
  if (!table) return false;
  for (const row of table.querySelectorAll(".tabulator-row, tbody tr")) {
    const box = row.getBoundingClientRect();
    const seen = row.checkVisibility({ visibilityProperty: true, opacityProperty: true });
    if (seen && box.height > 0 && box.top < innerHeight && box.bottom > 0 && FIGURE.test(row.textContent)) return true;
  }
  return false;
}
// The frame in which the rows are first seen is painted after its callbacks: the next frame's time is
// when they are on screen (an upper bound, by a frame at most).
function frame() {
  if (rowsOnScreen()) requestAnimationFrame((t) => { window.__fs.fmp = t; });
  else requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
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
        page.wait_for_function("() => window.__fs.fmp !== null && document.getElementById('board').dataset.drawn")
        page.wait_for_timeout(1500)  # shifts after the first draw count too
        fcp = page.evaluate("() => performance.getEntriesByName('first-contentful-paint')[0].startTime")
        fmp, cls = page.evaluate("() => [window.__fs.fmp, window.__fs.cls]")
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
    parser.add_argument("--layouts", nargs="+", choices=list(LAYOUTS), default=list(LAYOUTS))
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
                    for layout in args.layouts:
                        viewport, throttle = LAYOUTS[layout]
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
