"""Benchmark: rescore 1,000 stored SCB submissions on a new gold version (target: <= 120 s on 2 cores).

Setup (not timed as the target): the full-size demo SCB gold (3,178 questions), then N
submissions of varied quality and formats (``scoring.benchmarks.scb.demo.scb_submission``: no grounding,
good and poor boxes in several box formats, polygons, missing lines, free-text responses),
stored as raw file + meta record through the store, then scored once on that gold. Timed: a
new gold version (one answer changed) and ``Leaderboard.corrections.rescore("scb")`` end to end: reading
every raw file, scoring on ``--workers`` processes, writing the result files, rank changes
and the public table.

    .venv/bin/python perf/bench_rescore.py            # 1,000 submissions, 2 workers
    .venv/bin/python perf/bench_rescore.py --quick    # 100 submissions
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leaderboard.config import Settings  # noqa: E402
from leaderboard.service import Leaderboard  # noqa: E402
from store import layout  # noqa: E402
from submissions.intake import file_sha256  # noqa: E402
from submissions.records import SubmissionMeta  # noqa: E402
from tests.support import demo  # noqa: E402

TARGET_SECONDS = 120.0
# (grounding, box format, missing lines, share of free-text answers): the demo teams' mix
VARIANTS = (
    ("none", "xyxy", 0, 0.0),
    ("bbox_good", "yxyx_1000", 0, 0.0),
    ("bbox_good", "xyxy", 0, 0.1),
    ("bbox_poor", "xyxy_1000", 0, 0.0),
    ("bbox_poor", "xyxy_norm", 40, 0.0),
    ("polygon", "xywh", 25, 0.0),
)
ACCURACIES = (0.35, 0.5, 0.62, 0.74)


def make_pool(gold: list[dict], folder: Path) -> list[tuple[Path, str, str]]:
    """One file per (variant, accuracy): (path, box format, grounding)."""
    pool = []
    for v, (grounding, fmt, missing, as_response) in enumerate(VARIANTS):
        for a, acc in enumerate(ACCURACIES):
            seed = 1000 + 10 * v + a
            lines = demo.scb_submission(gold, acc, grounding, seed, fmt, missing=missing, as_response=as_response)
            pool.append((demo.write_jsonl(folder / f"pool-{v}-{a}.jsonl", lines), fmt, grounding))
    return pool


def store_submissions(lb: Leaderboard, pool: list[tuple[Path, str, str]], n: int) -> Counter:
    """Store N submissions (raw + meta, one put each) as the intake would, cycling the pool."""
    start = datetime.now(UTC) - timedelta(days=1)
    kinds: Counter = Counter()
    digests = {path: file_sha256(path) for path, _, _ in pool}
    for i in range(n):
        path, fmt, grounding = pool[(i * 7) % len(pool)]
        kinds[grounding] += 1
        when = start + timedelta(seconds=i)
        sid = f"{when:%Y%m%d-%H%M%S}-{i:010x}"
        meta = SubmissionMeta(
            id=sid, benchmark="scb", model=f"bench-model-{i:04d}", team=f"bench-team-{i % 250:03d}",
            model_type="open", paper_url="", code_url="", description="", submitter=f"bench-user-{i % 50:02d}",
            sha256=digests[path], bbox_format=fmt, submitted_at=when.isoformat(), size_bytes=path.stat().st_size,
            filename=path.name,
        )  # fmt: skip
        files = {layout.raw("scb", sid): path.read_bytes(), layout.meta("scb", sid): meta.to_bytes()}
        lb.store.put("submissions", files, f"Receive {sid} (scb)")
    return kinds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="stored submissions (default 1000)")
    parser.add_argument("--quick", action="store_true", help="100 submissions")
    parser.add_argument("--workers", type=int, default=2, help="scoring processes (default 2)")
    parser.add_argument("--data-dir", type=Path, help="keep the data here (default: a temp folder)")
    args = parser.parse_args(argv)
    n = 100 if args.quick else args.n
    with tempfile.TemporaryDirectory(prefix="bench-rescore-") as tmp:
        root = args.data_dir or Path(tmp)
        t0 = time.perf_counter()
        gold = demo.scb_gold()
        gold_v1 = demo.write_jsonl(root / "gold-v1.jsonl", gold)
        lb = Leaderboard(Settings(data_dir=root / "data", demo=False))
        lb.corrections.add_gold("scb", gold_v1, "bench")
        pool = make_pool(gold, root / "pool")
        t_setup = time.perf_counter() - t0
        t0 = time.perf_counter()
        kinds = store_submissions(lb, pool, n)
        t_store = time.perf_counter() - t0
        raw_mb = sum(p.stat().st_size for p in (root / "data/submissions/scb").glob("*/submission.jsonl")) / 2**20
        t0 = time.perf_counter()
        lb = Leaderboard(Settings(data_dir=root / "data", demo=False))
        t_catalog = time.perf_counter() - t0
        t0 = time.perf_counter()
        first = lb.corrections.rescore("scb", workers=args.workers)["scb"]
        t_first = time.perf_counter() - t0

        changed = [dict(r) for r in gold]
        changed[0]["answer"] = "ABCD"[("ABCD".index(changed[0]["answer"]) + 1) % 4]
        lb.corrections.add_gold("scb", demo.write_jsonl(root / "gold-v2.jsonl", changed), "bench")
        t0 = time.perf_counter()
        report = lb.corrections.rescore("scb", workers=args.workers)["scb"]
        t_rescore = time.perf_counter() - t0

    verdict = "PASS" if t_rescore <= TARGET_SECONDS * n / 1000 else "FAIL"
    rows = [
        ("submissions stored", f"{n} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})"),
        ("raw data", f"{raw_mb:.0f} MB"),
        ("gold questions", f"{len(gold):,}"),
        ("workers / cores", f"{args.workers} / {os.cpu_count()}"),
        ("setup: gold + submission pool", f"{t_setup:.1f} s"),
        ("storing raw + meta", f"{t_store:.1f} s ({1000 * t_store / n:.1f} ms each)"),
        ("catalog load (restart)", f"{t_catalog:.2f} s"),
        ("first scoring on gold v1", f"{t_first:.1f} s, {first['counts']}"),
        ("**rescore on gold v2 (end to end)**", f"**{t_rescore:.1f} s**, {report['counts']}"),
        ("throughput", f"{n / t_rescore:.1f} submissions/s ({1000 * t_rescore / n:.0f} ms each)"),
        ("rank changes reported", f"{len(report['rank_changes'])}"),
        ("target", f"<= {TARGET_SECONDS * n / 1000:.0f} s for {n} (120 s per 1,000): {verdict}"),
    ]
    print("| Rescore benchmark | |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    raise SystemExit(main())
