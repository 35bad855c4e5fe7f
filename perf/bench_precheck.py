"""What the checks before a scored slot cost: one extra validation pass per scored upload.

Default: on the same 3,178-question SCB gold (the synthetic shared data if present, else the demo
gold) and one file with a box per line, the CPU seconds of validate_file alone (the pre-check),
validate_file with the box-format and coverage checks, and score_file (what follows in any case).

``--lmms GOLD STAGE1 STAGE2`` (issue 42, once ``perf/bench_grounding_check.py``): the pre-check of an SCB
pair of lmms-eval samples files (3,178 ``grounding_response`` texts read as ``plain`` with
``xyxy_norm``), where the box-format check samples every text's box. The same command under two
checkouts compares old and new (docs/benchmarks.md)::

    PYTHONPATH=. .venv/bin/python perf/bench_precheck.py
    PYTHONPATH=. .venv/bin/python perf/bench_precheck.py --lmms GOLD STAGE1 STAGE2 --runs 7
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import scoring
from scoring.readers import bundle
from tests.support import demo
from tests.support.scoring import SHARED_DATA


def best_of(n: int, fn) -> float:
    """The least CPU seconds of ``n`` calls (``process_time``: neighbours on the host weigh little)."""
    times = []
    for _ in range(n):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def bbox_file(runs: int) -> None:
    shared = SHARED_DATA / "scb-synthetic" / "gold.jsonl"
    with tempfile.TemporaryDirectory() as tmp:
        if shared.exists():
            gold_path, records = shared, [json.loads(line) for line in shared.read_text().splitlines()]
        else:
            records = demo.scb_gold(seed=0)
            gold_path = demo.write_jsonl(Path(tmp) / "gold.jsonl", records)
        gold = scoring.load_gold("scb", gold_path)
    lines = [{"question_id": r["question_id"], "answer": r["answer"], "bbox": [100, 200, 600, 900]} for r in records]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    plain = best_of(runs, lambda: scoring.validate_file("scb", gold, data, bbox_format="yxyx_1000"))
    checked = best_of(
        runs,
        lambda: scoring.validate_file(
            "scb", gold, data, bbox_format="yxyx_1000", min_coverage=0.95, check_box_format=True
        ),
    )
    scored = best_of(runs, lambda: scoring.score_file("scb", gold, data, bbox_format="yxyx_1000"))
    print(f"{len(lines):,} lines, CPU: validate {plain * 1000:.0f} ms, validate + checks {checked * 1000:.0f} ms, "
          f"validate + score {scored * 1000:.0f} ms")  # fmt: skip


def lmms_pair(gold_path: Path, stage1: Path, stage2: Path, runs: int) -> None:
    gold = scoring.load_gold("scb", gold_path)
    data = bundle.gather([bundle.Part(p.name, p.read_bytes()) for p in (stage1, stage2)], 10**8)
    best = best_of(
        runs,
        lambda: scoring.validate_file(
            "scb", gold, data, grounding_format="plain", bbox_format="xyxy_norm", check_box_format=True
        ),
    )
    print(f"validate_file with the box-format check, {gold.size:,} questions: best {best * 1000:.0f} ms CPU")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lmms", nargs=3, type=Path, metavar=("GOLD", "STAGE1", "STAGE2"),
                        help="time the pre-check of this lmms-eval samples pair instead")  # fmt: skip
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    if args.lmms:
        lmms_pair(*args.lmms, args.runs)
    else:
        bbox_file(args.runs)


if __name__ == "__main__":
    main()
