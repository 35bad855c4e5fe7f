"""CPU cost of one four-model Compare on the demo board: ``Leaderboard.compare`` (the figures)
and the tab's callback (figures and HTML), so a Compare flood can be judged against it; and the
web process's share when the figures are combined in the compare pool (app.py's default): the
round trip's pickling and threads, the worker's own CPU not counted.

    .venv/bin/python perf/bench_compare.py [--calls 300]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app import open_leaderboard  # noqa: E402
from leaderboard.config import Settings  # noqa: E402
from leaderboard.table import SCORED_SOURCE  # noqa: E402
from ui.compare import Comparisons  # noqa: E402


def cpu_ms(fn, calls: int, rounds: int = 3) -> float:
    """The median over ``rounds`` of the CPU milliseconds per call."""
    per_call = []
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(calls):
            fn()
        per_call.append(1000 * (time.process_time() - start) / calls)
    return statistics.median(per_call)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-compare-") as tmp:
        lb = open_leaderboard(Settings(data_dir=Path(tmp) / "data"))
        table = lb.table("scb")
        rows = list(table[table["source"] == SCORED_SOURCE]["row_id"])[:4]
        tab = Comparisons(lb)
        tab.show("scb", rows)  # first use: imports, the board's first build
        print(f"| four-model Compare, SCB demo board ({len(table)} rows) | CPU ms per call |\n|---|---|")
        print(f"| Leaderboard.compare (figures) | {cpu_ms(lambda: lb.compare('scb', rows), args.calls):.2f} |")
        print(f"| Comparisons.show (figures and HTML) | {cpu_ms(lambda: tab.show('scb', rows), args.calls):.2f} |")
        pool = lb.use_compare_pool(1)
        try:
            lb.compare("scb", rows)  # the worker's first call: its imports
            pooled = cpu_ms(lambda: lb.compare("scb", rows), args.calls)
            print(f"| Leaderboard.compare, figures in the compare pool (web process's CPU) | {pooled:.2f} |")
            shown = cpu_ms(lambda: tab.show("scb", rows), args.calls)
            print(f"| Comparisons.show, figures in the compare pool (web process's CPU) | {shown:.2f} |")
        finally:
            pool.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
