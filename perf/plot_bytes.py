"""Bytes the board page's plots add for an N-row SCB board (ui/display.py plot_values), raw and
gzipped, and with the heatmaps holding only the top 20 rows they show. Synthetic figures; the
markup is the page's. Old and new: run it in each checkout (``git worktree add /tmp/old COMMIT``).

    .venv/bin/python perf/plot_bytes.py --rows 1000
    (cd /tmp/old && PYTHONPATH=. ~/.venv/bin/python /path/to/new/perf/plot_bytes.py --root . --rows 1000)
"""

from __future__ import annotations

import argparse
import gzip
import random
import sys
from pathlib import Path
from unittest import mock

import pandas as pd

ROOT = Path(sys.argv[sys.argv.index("--root") + 1]) if "--root" in sys.argv else Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT.resolve()))

from leaderboard.columns import figure_key  # noqa: E402
from scoring.benchmarks import get_benchmark  # noqa: E402
from ui import display  # noqa: E402


def frame(rows: int) -> pd.DataFrame:
    bench, rng = get_benchmark("scb"), random.Random(0)
    records = []
    for i in range(rows):
        record = {"model": f"Model-{i:04d}", "team": f"Team {i % 40}", "source": "scored here", "row_id": f"{i:012x}"}
        for metric in ("acc", "miou"):
            record[figure_key(metric)] = rng.uniform(10, 90)
            for grouping in bench.groupings:
                for label in grouping.order:
                    record[figure_key(metric, grouping.name, label)] = rng.uniform(0, 100)
        records.append(record)
    return pd.DataFrame(records)


def size(rows: pd.DataFrame, held: int | None) -> tuple[int, int]:
    original = display.heatmap_html
    extra = {} if held is None else {"held_rows": held}
    with mock.patch.object(display, "heatmap_html", lambda *a, **k: original(*a, **k, **extra)):
        text = "".join(display.plot_values(rows, get_benchmark("scb"))).encode()
    return len(text), len(gzip.compress(text))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--root", type=Path, help="the checkout whose ui/ to measure (default: this one)")
    rows = frame(parser.parse_args().rows)
    held = getattr(display, "HEATMAP_HELD", None)  # None: a checkout before the charts followed the filters
    for holding in (None, 20) if held else (None,):
        raw, packed = size(rows, holding)
        what = f"heatmaps holding {holding or held or 20} rows"
        print(f"{ROOT.name}: {len(rows)} rows, {what}: plots {raw / 1024:,.0f} KiB, gzipped {packed / 1024:,.0f} KiB")


if __name__ == "__main__":
    main()
