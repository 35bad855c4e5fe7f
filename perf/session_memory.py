"""App RSS per Gradio session: the memory each visitor who changed a view keeps on the server.

Gradio keeps one state per session (``gradio/state_holder.py``): a copy of every component's
config and what each event sent it (the board's table and scatter). This script starts the real
app (``python app.py``), opens sessions one after another, each sending the View radio's event
of ``--boards`` boards (what a visitor who changes a view does; a plain visit creates no session),
and reads the app's RSS every ``--step`` sessions. With a capacity above ``--sessions`` nothing
is evicted and the slope is the cost of one session; with a lower one RSS should level off.

    .venv/bin/python perf/session_memory.py --rows 1000 --seed-dir /tmp/seed --sessions 300
    .venv/bin/python perf/session_memory.py --rows 1000 --seed-dir /tmp/seed --sessions 600 --capacity 200
    .venv/bin/python perf/session_memory.py --rows 1000 --seed-dir /tmp/seed --app-root /tmp/old   # another checkout
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from load_test import Browser, Recorder, page_events, seed_data  # noqa: E402

from tests.support import app_server  # noqa: E402
from tests.support.app_server import AppServer  # noqa: E402

NO_EVICTION = 1_000_000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=0, help="scored rows per board to start with")
    parser.add_argument("--seed-dir", type=Path, help="keep the filled data folder here and reuse it")
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--step", type=int, default=50, help="read RSS every this many sessions")
    parser.add_argument("--boards", type=int, choices=(1, 2), default=1, help="view changes per session")
    parser.add_argument("--capacity", type=int, default=NO_EVICTION, help="LEADERBOARD_SESSION_CAPACITY")
    parser.add_argument("--app-root", type=Path, help="run app.py of this checkout (e.g. an old commit)")
    args = parser.parse_args(argv)
    if args.app_root:
        app_server.ROOT = args.app_root.resolve()
    with tempfile.TemporaryDirectory(prefix="session-memory-") as tmp:
        if args.rows:
            seed_data(Path(tmp) / "data", args.rows, args.seed_dir)
        app = AppServer(Path(tmp) / "data", LEADERBOARD_SESSION_CAPACITY=str(args.capacity)).start()
        try:
            readings, errors = measure(app, args)
        finally:
            app.stop()
    report(readings, errors, args)
    return 1 if errors else 0


def measure(app: AppServer, args) -> tuple[list[tuple[int, float]], list[str]]:
    """(sessions opened, app RSS in MB) every ``step`` sessions, after a warm-up of 5 sessions."""
    _, renders, direct = page_events(httpx.get(app.url + "/config", timeout=60).json())
    if not renders:  # the board page (ui/board_page.py): a visit and its view changes open no Gradio session
        raise SystemExit("this app's board sends no view events (the board page): nothing to measure here")
    events = [renders[b] for b in ("scb", "kviscuit")[: args.boards]]
    rec = Recorder()
    browser = Browser(app.url, rec, direct)
    for _ in range(5):  # first renders, lazy imports: not the sessions' cost
        browser.run_events(events, "warm-up", secrets.token_hex(6))
    time.sleep(1)
    readings = [(0, app.rss_mb())]
    for n in range(1, args.sessions + 1):
        try:
            browser.run_events(events, "view change", secrets.token_hex(6))
        except Exception as e:
            rec.error(f"{type(e).__name__}: {e}")
        if n % args.step == 0 or n == args.sessions:
            readings.append((n, app.rss_mb()))
    browser.close()
    return readings, rec.errors


def report(readings: list[tuple[int, float]], errors: list[str], args) -> None:
    capacity = "none" if args.capacity >= NO_EVICTION else str(args.capacity)
    where = args.app_root or "this checkout"
    print(f"\n### Session memory ({where}): {args.rows or 'demo'} rows per board, "
          f"{args.boards} view change(s) a session, capacity {capacity}\n")  # fmt: skip
    print("| sessions | app RSS MB | MB per session since the start |\n|---|---|---|")
    base = readings[0][1]
    for n, rss in readings:
        print(f"| {n} | {rss:.0f} | {(rss - base) / n:.2f} |" if n else f"| 0 | {rss:.0f} | |")
    print(f"\nerrors: {len(errors)}")
    for error in errors[:5]:
        print("error:", error)


if __name__ == "__main__":
    raise SystemExit(main())
