"""Server CPU per page view, one visitor at a time: the app's CPU (from /proc) over N sequential
pages, each what a browser tab does (``GET /``, the page's load events that reach the server,
one view change, in one session; see ``perf/load_test.py``). Sequential, so neighbours on a
shared host change the wall time but hardly the CPU each request costs.

    .venv/bin/python perf/page_cost.py                          # this checkout, 100 pages
    .venv/bin/python perf/page_cost.py --app-root /tmp/old      # another checkout, same harness
    .venv/bin/python perf/page_cost.py --rows 1000 --seed-dir /tmp/seed   # 1,000-row boards
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from load_test import Browser, Recorder, page_events, process_tree_cpu, seed_data  # noqa: E402

from tests.support import app_server  # noqa: E402
from tests.support.app_server import AppServer  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--app-root", type=Path, help="run app.py of this checkout (e.g. an old commit)")
    parser.add_argument("--rows", type=int, default=0, help="scored rows per board to start with")
    parser.add_argument("--seed-dir", type=Path, help="keep the filled data folder here and reuse it")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="page-cost-") as tmp:
        if args.app_root:
            app_server.ROOT = args.app_root.resolve()
        if args.rows:
            seed_data(Path(tmp) / "data", args.rows, args.seed_dir)
        app = AppServer(Path(tmp) / "data").start()
        try:
            loads, renders, direct = page_events(httpx.get(app.url + "/config", timeout=60).json())
            rec = Recorder()
            browser = Browser(app.url, rec, direct)
            for _ in range(5):  # warm up: first renders, lazy imports
                browser.visit(loads, renders)
            cpu, wall = process_tree_cpu(app.proc.pid), time.perf_counter()
            for _ in range(args.pages):
                browser.visit(loads, renders)
            cpu, wall = process_tree_cpu(app.proc.pid) - cpu, time.perf_counter() - wall
            browser.close()
            page_bytes = len(httpx.get(app.url + "/", headers={"Accept-Encoding": "gzip"}).content)
            wire = httpx.get(app.url + "/", headers={"Accept-Encoding": "gzip"})
            on_wire = int(wire.headers.get("content-length", len(wire.content)))
        finally:
            app.stop()
    root = args.app_root or "this checkout"
    print(f"| {root} | {args.pages} pages | {len(loads)} load events | CPU per page {1000 * cpu / args.pages:.1f} ms "
          f"| wall per page {1000 * wall / args.pages:.0f} ms | page {page_bytes / 1024:.0f} KiB, "
          f"{on_wire / 1024:.0f} KiB on the wire | errors {len(rec.errors)} |")  # fmt: skip
    return 1 if rec.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
