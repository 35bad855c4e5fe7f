"""What the box-format check of every grounding costs (issue 42): the pre-check of an SCB pair of
lmms-eval samples files (3,178 ``grounding_response`` texts read as ``plain`` with ``xyxy_norm``),
which now samples every text's box where it sampled only ``bbox`` lines and Qwen2.5-VL texts.

Prints the CPU seconds of one ``validate_file(..., check_box_format=True)`` (best of ``--runs``), so
the same command under two checkouts compares old and new (docs/benchmarks.md)::

    PYTHONPATH=. .venv/bin/python perf/bench_grounding_check.py GOLD STAGE1 STAGE2
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import scoring
from scoring.readers import bundle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold", type=Path)
    parser.add_argument("stage1", type=Path)
    parser.add_argument("stage2", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    gold = scoring.load_gold("scb", args.gold)
    data = bundle.gather([bundle.Part(p.name, p.read_bytes()) for p in (args.stage1, args.stage2)], 10**8)
    times = []
    for _ in range(args.runs):
        start = time.process_time()
        scoring.validate_file(
            "scb", gold, data, grounding_format="plain", bbox_format="xyxy_norm", check_box_format=True
        )
        times.append(time.process_time() - start)
    print(f"validate_file with the box-format check, {gold.size:,} questions: best {min(times) * 1000:.0f} ms CPU")


if __name__ == "__main__":
    main()
