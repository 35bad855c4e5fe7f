"""Benchmark: build the public SCB table from 10,000 result records (target: <= 1 s).

Result records are real SCB result shapes (overall + type/country/category figures, taken from
scoring a demo submission on a small demo gold) with varied numbers, for N submissions of
``--pairs`` distinct (team, model) pairs. Timed:

1. the table from in-memory states: ``scored_rows`` + ``frame`` for each view and the
   export frame ("all", what ``publish`` writes) -- the target;
2. the same files stored under ``data/submissions`` (meta.json + result file each): a cold
   ``Catalog.refresh`` (a restart), a warm one (nothing new), and ``Leaderboard.board``.

    .venv/bin/python perf/bench_table.py            # 10,000 results
    .venv/bin/python perf/bench_table.py --quick    # 1,000 results

``--publish`` (once ``perf/bench_publish.py``): what the reader role adds to a publish, and what a
reader pays when a board moves. For ``--n`` scored rows plus the paper rows, best of ``--repeat``:
the writer's Parquet + CSV of the public table against its board snapshot
(``BoardSnapshot.of(...).to_bytes()``), and sizes; the reader's rows again from the Parquet and the
snapshot and the overview ranked (``read_parquet`` + ``from_bytes`` + ``board_rows`` + ``Board.view``),
what a reader does once per change of a board.

    .venv/bin/python perf/bench_table.py --publish --n 1000
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leaderboard.config import Settings  # noqa: E402
from leaderboard.publish import BoardSnapshot, board_rows, public_frame  # noqa: E402
from leaderboard.service import Leaderboard  # noqa: E402
from leaderboard.table import Board, baseline_rows, frame, scored_rows, to_csv_bytes, to_parquet_bytes, views  # noqa: E402
from scoring import SCORER_VERSION, ResultRecord, get_benchmark, load_gold, score_file  # noqa: E402
from store import layout  # noqa: E402
from store.layout import ResultKey, SubmissionFile  # noqa: E402
from store.records import StoredResult, Validated  # noqa: E402
from submissions.catalog import Catalog, SubmissionState  # noqa: E402
from submissions.records import SubmissionMeta  # noqa: E402
from tests.support import demo  # noqa: E402

TARGET_SECONDS = 1.0


def template(tmp: Path) -> tuple[str, dict]:
    """(gold version, a real SCB result dict with grounding figures) from a small demo gold."""
    gold_records = demo.scb_gold(sizes=(40, 40, 60))
    gold = load_gold("scb", demo.write_jsonl(tmp / "gold.jsonl", gold_records))
    sub = demo.write_jsonl(tmp / "sub.jsonl", demo.scb_submission(gold_records, 0.6, "bbox_good", 1))
    return gold.version, score_file("scb", gold, sub).to_dict()


def varied(result: dict, rng: random.Random) -> dict:
    """The same shape with other numbers (every figure moved, intervals kept around them)."""

    def walk(node: object) -> object:
        if isinstance(node, dict):
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list) and len(node) == 2 and all(isinstance(v, float) for v in node):
            return [v + rng.uniform(-5, 5) for v in node]
        if isinstance(node, float):
            return min(100.0, max(0.0, node + rng.uniform(-30, 30)))
        return node

    return walk(result)


def states(n: int, pairs: int, gold_version: str, result: dict) -> list[SubmissionState]:
    rng = random.Random(0)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    out = []
    for i in range(n):
        when = start + timedelta(minutes=i)
        pair = i % pairs
        meta = SubmissionMeta(
            id=f"{when:%Y%m%d-%H%M%S}-{i:010x}", benchmark="scb", model=f"model-{pair:05d}",
            team=f"team-{pair % 997:03d}", model_type="open", paper_url="https://example.org/p", code_url="",
            description="", submitter=f"user-{pair % 500}", sha256=f"{i:064x}", bbox_format="xyxy",
            submitted_at=when.isoformat(), size_bytes=1,
        )  # fmt: skip
        stored = StoredResult(meta.id, when.isoformat(), ResultRecord.from_dict(varied(result, rng)))
        key = ResultKey.of(gold_version, SCORER_VERSION)
        out.append(SubmissionState(meta, results={key: stored}, validated={key.gold}))
    return out


def build(all_states: list[SubmissionState], gold_version: str, rule: str) -> tuple[dict[str, float], int]:
    """Seconds per step of building every view of the table; the number of rows."""
    times: dict[str, float] = {}
    t0 = time.perf_counter()
    rows = scored_rows(all_states, gold_version, SCORER_VERSION, rule) + baseline_rows("scb")
    times["scored_rows"] = time.perf_counter() - t0
    for view, _ in [*views(get_benchmark("scb")), ("all", "export")]:
        t = time.perf_counter()
        frame("scb", rows, view)
        times[f"frame {view}"] = time.perf_counter() - t
    times["total"] = time.perf_counter() - t0
    return times, len(rows)


def write_files(root: Path, all_states: list[SubmissionState]) -> None:
    """meta.json + result file per submission, laid out as the store keeps them (no fsync: setup)."""
    for s in all_states:
        folder = root / "submissions" / layout.submission_dir("scb", s.meta.id)
        folder.mkdir(parents=True)
        files = {SubmissionFile.meta("scb", s.meta.id): s.meta.to_bytes()}
        for key, stored in s.results.items():
            files[SubmissionFile.result("scb", s.meta.id, key.gold, str(key.scorer))] = stored.to_bytes()
        for gold in s.validated:
            files[SubmissionFile.validated("scb", s.meta.id, gold)] = Validated().to_bytes()
        for file, data in files.items():
            (root / "submissions" / file.path).write_bytes(data)


def best_of(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def publish_costs(n: int, repeat: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        version, result = template(Path(tmp))
    rows = scored_rows(states(n, n, version, result), version, SCORER_VERSION) + baseline_rows("scb")

    def table() -> tuple[bytes, bytes]:
        df = public_frame("scb", rows)
        return to_parquet_bytes(df), to_csv_bytes(df)

    t_table, (parquet, csv) = best_of(table, repeat)
    t_snap, snapshot = best_of(lambda: BoardSnapshot.of("scb", rows, None, {}).to_bytes(), repeat)

    def read():
        import pandas as pd

        table = pd.read_parquet(io.BytesIO(parquet))
        return Board("scb", board_rows("scb", table, BoardSnapshot.from_bytes(snapshot, "x"))).view()

    t_read, _ = best_of(read, repeat)
    print(f"{len(rows)} rows, best of {repeat}")
    print(f"writer: Parquet + CSV   {t_table * 1000:8.1f} ms  {(len(parquet) + len(csv)) / 1024:8.1f} KiB")
    print(f"writer: board snapshot  {t_snap * 1000:8.1f} ms  {len(snapshot) / 1024:8.1f} KiB")
    print(f"reader: read + overview {t_read * 1000:8.1f} ms")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="result records (default 10,000)")
    parser.add_argument("--pairs", type=int, default=2_000, help="distinct (team, model) pairs (default 2,000)")
    parser.add_argument("--quick", action="store_true", help="1,000 results")
    parser.add_argument("--publish", action="store_true", help="time a publish's files and a reader's instead")
    parser.add_argument("--repeat", type=int, default=5, help="--publish: best of this many (default 5)")
    args = parser.parse_args(argv)
    if args.publish:
        return publish_costs(args.n, args.repeat)
    n = 1_000 if args.quick else args.n
    pairs = min(args.pairs, n)
    with tempfile.TemporaryDirectory(prefix="bench-table-") as tmp:
        root = Path(tmp)
        gold_version, result = template(root)
        all_states = states(n, pairs, gold_version, result)
        latest, rows_latest = build(all_states, gold_version, "latest")
        best, _ = build(all_states, gold_version, "best")
        every, rows_every = build(states(n, n, gold_version, result), gold_version, "latest")

        data = root / "data"
        lb = Leaderboard(Settings(data_dir=data, demo=False))
        lb.corrections.add_gold("scb", root / "gold.jsonl", "bench")
        write_files(data, all_states)
        t0 = time.perf_counter()
        catalog = Catalog(lb.store)
        catalog.refresh()
        t_cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        catalog.refresh()
        t_warm = time.perf_counter() - t0
        lb.catalog.refresh()  # the facade's own catalog, which its boards read, takes in the files too
        t0 = time.perf_counter()
        board = lb.board("scb")
        for view, _ in views(get_benchmark("scb")):
            board.view(view)
        t_board = time.perf_counter() - t0
        assert len(catalog.all("scb")) == n

    verdict = "PASS" if latest["total"] <= TARGET_SECONDS else "FAIL"
    columns = f"latest ({rows_latest:,} rows) | best | all distinct ({rows_every:,} rows)"
    print(f"| Table benchmark: {n:,} results | {columns} |")
    print("|---|---|---|---|")
    for step in latest:
        name = f"**{step}**" if step == "total" else step
        print(f"| {name} | {latest[step] * 1000:.0f} ms | {best[step] * 1000:.0f} ms | {every[step] * 1000:.0f} ms |")
    print(f"| target: total <= {TARGET_SECONDS:.0f} s (latest) | {verdict} | | |")
    print()
    print(f"| From the store ({n:,} submissions, {3 * n:,} files) | |\n|---|---|")
    print(f"| catalog refresh, cold (restart) | {t_cold:.2f} s |")
    print(f"| catalog refresh, warm (nothing new) | {t_warm * 1000:.0f} ms |")
    print(f"| Leaderboard.board + every view | {t_board * 1000:.0f} ms |")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    raise SystemExit(main())
