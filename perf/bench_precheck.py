"""What the checks before a scored slot cost: one extra validation pass per scored upload.

Times, on the same 3,178-question SCB gold (the synthetic shared data if present, else the demo
gold) and one file with a box per line: validate_file alone (the pre-check), validate_file with
the box-format and coverage checks, and score_file (what follows in any case).

    PYTHONPATH=. /work/venv/bin/python perf/bench_precheck.py
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

import scoring
from tests.support import demo


def best_of(n: int, fn) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    shared = Path(os.environ.get("SHARED_DATA_DIR", "/work/shared/data")) / "scb-synthetic" / "gold.jsonl"
    with tempfile.TemporaryDirectory() as tmp:
        if shared.exists():
            gold_path, records = shared, [json.loads(line) for line in shared.read_text().splitlines()]
        else:
            records = demo.scb_gold(seed=0)
            gold_path = demo.write_jsonl(Path(tmp) / "gold.jsonl", records)
        gold = scoring.load_gold("scb", gold_path)
        lines = [
            {"question_id": r["question_id"], "answer": r["answer"], "bbox": [100, 200, 600, 900]} for r in records
        ]
        data = "".join(json.dumps(line) + "\n" for line in lines).encode()
        plain = best_of(5, lambda: scoring.validate_file("scb", gold, data, bbox_format="yxyx_1000"))
        checked = best_of(
            5,
            lambda: scoring.validate_file(
                "scb", gold, data, bbox_format="yxyx_1000", min_coverage=0.95, check_box_format=True
            ),
        )
        scored = best_of(5, lambda: scoring.score_file("scb", gold, data, bbox_format="yxyx_1000"))
    print(f"{len(lines):,} lines: validate {plain * 1000:.0f} ms, validate + checks {checked * 1000:.0f} ms, "
          f"validate + score {scored * 1000:.0f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
