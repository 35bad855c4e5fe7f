"""Benchmark: one view of the Maintainers tab's gold section (and its Rescore all confirmation)
with N stored SCB submissions and a staged gold, old and new in the same run.

Old (before the preview was kept): each view computed the staged gold's preview twice, once for
the gold section and once for the confirmation (``corrections.preview_staged``, which scores every
stored submission on the staged gold). New: ``ui.admin.gold_markdown`` and ``rescore_plan`` read
the preview kept at staging. Also timed: staging (where the preview is now computed, once), and a
view after a new upload made the kept preview outdated (it returns at once; one background job
recomputes it).

Setup as perf/bench_rescore.py: the full-size demo SCB gold, N submissions of the demo teams' mix,
scored on it; the staged gold changes one answer.

    .venv/bin/python perf/bench_admin_preview.py           # 200 submissions
    .venv/bin/python perf/bench_admin_preview.py --n 50
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leaderboard.config import Settings  # noqa: E402
from leaderboard.service import Leaderboard  # noqa: E402
from perf.bench_rescore import make_pool, store_submissions  # noqa: E402
from tests.support import demo  # noqa: E402
from ui.admin import gold_markdown, rescore_plan  # noqa: E402


def timed(job) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds of this process, result) of ``job()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = job()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def old_view(lb: Leaderboard) -> None:
    """What one view cost before: the preview computed for the section and for the confirmation."""
    for _ in range(2):
        lb.corrections.preview_staged("scb")


def new_view(lb: Leaderboard) -> str:
    return gold_markdown(lb) + rescore_plan(lb)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="stored submissions (default 200)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-preview-") as tmp:
        root = Path(tmp)
        gold = demo.scb_gold()
        lb = Leaderboard(Settings(data_dir=root / "data", demo=False))
        lb.corrections.add_gold("scb", demo.write_jsonl(root / "gold-v1.jsonl", gold), "bench")
        pool = make_pool(gold, root / "pool")
        store_submissions(lb, pool, args.n)
        lb = Leaderboard(Settings(data_dir=root / "data", demo=False))
        lb.corrections.rescore("scb", workers=2)
        changed = [dict(r) for r in gold]
        changed[0]["answer"] = "ABCD"[("ABCD".index(changed[0]["answer"]) + 1) % 4]
        v2 = demo.write_jsonl(root / "gold-v2.jsonl", changed)
        stage = timed(lambda: lb.corrections.add_gold("scb", v2, "bench"))
        old = timed(lambda: old_view(lb))
        new = timed(lambda: new_view(lb))
        again = timed(lambda: new_view(lb))
        assert "being computed" not in new[2], "the kept preview was not read"
        store_submissions(lb, pool[:1], 1)  # a new upload (as another process stores it)
        lb.refresh()
        stale = timed(lambda: new_view(lb))
        assert "being computed" in stale[2]
        job = timed(lambda: lb.corrections.preview_jobs.wait())
    rows = [
        ("stored submissions", f"{args.n}"),
        ("staging the gold (preview computed once, kept)", f"{stage[0]:.2f} s wall, {stage[1]:.2f} s CPU"),
        ("**one tab view, old** (preview x2)", f"**{old[0]:.2f} s wall, {old[1]:.2f} s CPU**"),
        ("**one tab view, new** (kept preview read)", f"**{new[0]:.3f} s wall, {new[1]:.3f} s CPU**"),
        ("a second view, new", f"{again[0]:.3f} s wall, {again[1]:.3f} s CPU"),
        ("a view after a new upload (job started)", f"{stale[0]:.3f} s wall, {stale[1]:.3f} s CPU"),
        ("the background job until ready", f"{job[0]:.2f} s wall"),
    ]
    print("| Maintainers tab preview | |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
