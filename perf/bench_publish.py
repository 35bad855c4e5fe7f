"""Benchmark: what the reader role adds to a publish, and what a reader pays when a board moves.

For a board of N scored rows (real SCB result shapes with varied numbers, as perf/bench_table.py
makes them) plus the paper rows, in one run, best of ``--repeat``:

- writer: the Parquet + CSV of the public table (what publish wrote before) against the board
  snapshot (``BoardSnapshot.of(...).to_bytes()``, what it writes now besides them), and sizes;
- reader: the rows again from the Parquet and the snapshot, and the overview ranked
  (``read_parquet`` + ``from_bytes`` + ``board_rows`` + ``Board.view``), what a reader does once
  per change of a board.

    .venv/bin/python perf/bench_publish.py              # 1,000 rows
    .venv/bin/python perf/bench_publish.py --rows 10000
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd  # noqa: E402
from bench_table import states, template  # noqa: E402

from leaderboard.publish import BoardSnapshot, board_rows, public_frame  # noqa: E402
from leaderboard.table import Board, baseline_rows, scored_rows, to_csv_bytes, to_parquet_bytes  # noqa: E402
from scoring import SCORER_VERSION  # noqa: E402


def best(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        version, result = template(Path(tmp))
    rows = scored_rows(states(args.rows, args.rows, version, result), version, SCORER_VERSION) + baseline_rows("scb")

    def table() -> tuple[bytes, bytes]:
        df = public_frame("scb", rows)
        return to_parquet_bytes(df), to_csv_bytes(df)

    t_table, (parquet, csv) = best(table, args.repeat)
    t_snap, snapshot = best(lambda: BoardSnapshot.of("scb", rows, None, {}).to_bytes(), args.repeat)

    def read() -> pd.DataFrame:
        table = pd.read_parquet(io.BytesIO(parquet))
        return Board("scb", board_rows("scb", table, BoardSnapshot.from_bytes(snapshot, "x"))).view()

    t_read, _ = best(read, args.repeat)
    print(f"{len(rows)} rows, best of {args.repeat}")
    print(f"writer: Parquet + CSV   {t_table * 1000:8.1f} ms  {(len(parquet) + len(csv)) / 1024:8.1f} KiB")
    print(f"writer: board snapshot  {t_snap * 1000:8.1f} ms  {len(snapshot) / 1024:8.1f} KiB")
    print(f"reader: read + overview {t_read * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
