"""Benchmark: the app with 1,000 scored rows per benchmark, in real headless Chromium.

Setup (not timed): a data folder with the demo golds and paper rows (``seed_demo``), then
``--rows`` scored submissions per benchmark written through the store as the intake and the
lifecycle would write them (raw file, meta record, validated marker, result record). The
results are real: a pool of 12 files per benchmark is scored once and each stored submission
reuses the raw file and result of one pool entry, under its own team and model, so every one
is a board row.

Timed, in Chromium (``/usr/bin/chromium``), each load in a fresh browser context: from the
navigation request to the SCB table visible with its rows (``Showing N of N rows`` and the
first data rows drawn); median of ``--loads`` loads (target <= 2 s). Then the K-Viscuit tab
the same way, and the app's resident memory (VmRSS of /proc/PID/status) after both boards
were loaded (target <= 600 MB).

    .venv/bin/python perf/bench_app.py            # 1,000 rows per board, 7 loads
    .venv/bin/python perf/bench_app.py --quick    # 200 rows, 5 loads
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leaderboard.config import Settings  # noqa: E402
from leaderboard.service import Leaderboard  # noqa: E402
from scoring import SCORER_VERSION, Limits  # noqa: E402
from store import layout  # noqa: E402
from store.records import StoredResult, Validated  # noqa: E402
from submissions import lifecycle  # noqa: E402
from submissions.intake import file_sha256  # noqa: E402
from submissions.records import SubmissionMeta  # noqa: E402
from tests.support import demo  # noqa: E402
from tests.support.app_server import CHROMIUM, CHROMIUM_ARGS, AppServer  # noqa: E402

LOAD_TARGET_S = 2.0
RSS_TARGET_MB = 600.0
POOL = 12


def pool_files(gold: list[dict], benchmark: str, folder: Path) -> list[Path]:
    paths = []
    for k in range(POOL):
        accuracy = 0.3 + 0.05 * k
        if benchmark == "scb":
            grounding = ("none", "bbox_good", "bbox_poor")[k % 3]
            lines = demo.scb_submission(gold, accuracy, grounding, seed=500 + k)
        else:
            lines = demo.kviscuit_submission(gold, accuracy, seed=600 + k)
        paths.append(demo.write_jsonl(folder / f"{benchmark}-pool-{k}.jsonl", lines))
    return paths


def fill(data_dir: Path, rows: int, tmp: Path) -> dict[str, float]:
    """Seed the demo, then store ``rows`` scored submissions per benchmark; returns timings."""
    t0 = time.perf_counter()
    lb = Leaderboard(Settings(data_dir=data_dir))
    lb.seed_demo()
    golds = {"scb": demo.scb_gold(0), "kviscuit": demo.kviscuit_gold(0)}
    timings = {"seed demo": time.perf_counter() - t0}
    start = datetime.now(UTC) - timedelta(days=2)
    for benchmark, gold_records in golds.items():
        t0 = time.perf_counter()
        gold = lb.golds.get(benchmark)
        pool = []
        for k, path in enumerate(pool_files(gold_records, benchmark, tmp)):
            meta = _meta(benchmark, f"pool-{k}", k, path, start)
            outcome = lifecycle.evaluate(meta, gold, path, Limits())
            assert outcome.result is not None, outcome.issues[:3]
            pool.append((path, path.read_bytes(), file_sha256(path), outcome.result))
        t1 = time.perf_counter()
        for i in range(rows):
            path, raw, digest, result = pool[i % POOL]
            when = start + timedelta(seconds=i)
            meta = _meta(benchmark, f"{i:04d}", i, path, when, digest)
            body = StoredResult(meta.id, when.isoformat(), result)
            files = {
                layout.raw(benchmark, meta.id): raw,
                layout.meta(benchmark, meta.id): meta.to_bytes(),
                layout.validated(benchmark, meta.id, gold.version): Validated().to_bytes(),
                layout.result(benchmark, meta.id, gold.version, SCORER_VERSION): body.to_bytes(),
            }
            lb.store.put("submissions", files, f"Bench {meta.id}")
        timings[f"{benchmark}: score pool of {POOL}"] = t1 - t0
        timings[f"{benchmark}: store {rows} scored submissions"] = time.perf_counter() - t1
    t0 = time.perf_counter()
    lb = Leaderboard(Settings(data_dir=data_dir))
    for benchmark in golds:
        lb.publisher.publish(benchmark)
        n = len([r for r in lb.board(benchmark).rows if r.submission_id])
        assert n >= rows, (benchmark, n)
    timings["reload catalog + publish"] = time.perf_counter() - t0
    return timings


def _meta(benchmark: str, tag: str, i: int, path: Path, when: datetime, digest: str = "") -> SubmissionMeta:
    return SubmissionMeta(
        id=f"{when:%Y%m%d-%H%M%S}-{benchmark[:3]}{tag.replace('-', '')}".ljust(26, "0")[:26],
        benchmark=benchmark, model=f"bench-model-{tag}", team=f"bench-team-{i:04d}", model_type="open",
        paper_url="", code_url="", description="", submitter=f"bench-user-{i:04d}", sha256=digest,
        bbox_format="xyxy", submitted_at=when.isoformat(), size_bytes=path.stat().st_size, filename=path.name,
    )  # fmt: skip


def rows_ready(bench: str, total: int) -> str:
    """JS: the board's summary says all rows are there and the table has drawn data rows."""
    return (
        f"() => {{ const s = document.querySelector('#{bench}-summary'); "
        f"const rows = document.querySelectorAll('#{bench}-table div.virtual-row, #{bench}-table tbody tr'); "
        f"return s && s.innerText.includes('of {total} rows') && rows.length >= 10; }}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000, help="scored submissions per benchmark (default 1000)")
    parser.add_argument("--loads", type=int, default=7, help="page loads measured (default 7, at least 5)")
    parser.add_argument("--quick", action="store_true", help="200 rows, 5 loads")
    args = parser.parse_args(argv)
    rows, loads = (200, 5) if args.quick else (args.rows, max(5, args.loads))
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench-app-") as tmp:
        root = Path(tmp)
        data_dir = root / "data"
        setup = fill(data_dir, rows, root)
        totals = {b: len(Leaderboard(Settings(data_dir=data_dir)).table(b)) for b in ("scb", "kviscuit")}
        t0 = time.perf_counter()
        app = AppServer(data_dir)
        app.start()
        t_start = time.perf_counter() - t0
        rss_idle = app.rss_mb()
        scb_times, kv_times = [], []
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
                for _ in range(loads):
                    context = browser.new_context(viewport={"width": 1440, "height": 1000})
                    page = context.new_page()
                    page.set_default_timeout(60_000)
                    t0 = time.perf_counter()
                    page.goto(app.url, wait_until="commit")
                    page.wait_for_function(rows_ready("scb", totals["scb"]), polling=20)
                    scb_times.append(time.perf_counter() - t0)
                    page.get_by_role("tab", name="K-Viscuit", exact=True).click()
                    t1 = time.perf_counter()
                    page.wait_for_function(rows_ready("kviscuit", totals["kviscuit"]), polling=20)
                    kv_times.append(time.perf_counter() - t1)
                    context.close()
                browser.close()
            rss = app.rss_mb()
            peak = next(
                int(line.split()[1]) / 1024
                for line in Path(f"/proc/{app.pid}/status").read_text().splitlines()
                if line.startswith("VmHWM:")
            )
        finally:
            app.stop()

    median = statistics.median(scb_times)
    verdict_load = "PASS" if median <= LOAD_TARGET_S else "FAIL"
    verdict_rss = "PASS" if rss <= RSS_TARGET_MB else "FAIL"
    table = [
        (
            "scored rows per board",
            f"{rows:,} (+ demo and paper rows: SCB {totals['scb']:,}, K-Viscuit {totals['kviscuit']:,} shown)",
        ),  # fmt: skip
        *((f"setup: {k}", f"{v:.1f} s") for k, v in setup.items()),
        ("app start (to /config answering)", f"{t_start:.1f} s"),
        ("loads (fresh context each)", f"{loads} on {os.cpu_count()} cores"),
        (
            "**SCB: navigation to table with rows, median**",
            f"**{median:.2f} s** (min {min(scb_times):.2f}, max {max(scb_times):.2f}; first {scb_times[0]:.2f})",
        ),  # fmt: skip
        (
            "K-Viscuit: tab click to table with rows, median",
            f"{statistics.median(kv_times):.2f} s (max {max(kv_times):.2f})",
        ),  # fmt: skip
        ("app RSS after start (idle)", f"{rss_idle:.0f} MB"),
        ("**app RSS after loading both boards**", f"**{rss:.0f} MB** (peak VmHWM {peak:.0f} MB)"),
        ("target: load <= 2 s (median)", verdict_load),
        ("target: RSS <= 600 MB", verdict_rss),
    ]
    print("| App benchmark | |\n|---|---|")
    for name, value in table:
        print(f"| {name} | {value} |")
    print("SCB loads (s): " + ", ".join(f"{t:.2f}" for t in scb_times))
    return 0 if verdict_load == verdict_rss == "PASS" else 1


if __name__ == "__main__":
    raise SystemExit(main())
