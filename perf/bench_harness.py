"""What recognising a file's shape (scoring/readers/harness_files.py) costs before validation, and what reading a
harness file costs against the same answers in our JSONL (CPU time, ``process_time``).

    .venv/bin/python perf/bench_harness.py

Uses the demo K-Viscuit and SCB golds (scoring/benchmarks/<id>/demo.py), written to a temporary folder.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import scoring  # noqa: E402
from scoring.readers import harness_files as harness  # noqa: E402
from tests.support import demo  # noqa: E402


def cpu_ms(fn, runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        t = time.process_time()
        fn()
        times.append((time.process_time() - t) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.9 * (len(times) - 1))]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        scb = demo.scb_gold(seed=0)
        scb_gold = scoring.load_gold("scb", demo.write_jsonl(folder / "scb.jsonl", scb))
        boxes = demo.write_jsonl(folder / "boxes.jsonl", demo.scb_submission(scb, 0.85, "bbox_good", 1))
        kv = demo.kviscuit_gold()
        kv_gold = scoring.load_gold("kviscuit", demo.write_jsonl(folder / "kv.jsonl", kv))
        texts = [f"Image {'ABCD'[r['answer']]}" for r in kv]
        ours = folder / "kv-ours.jsonl"
        ours.write_text("".join(json.dumps({"question_id": i, "response": t}) + "\n" for i, t in enumerate(texts)))
        samples = folder / "samples_kviscuit.jsonl"
        samples.write_text("".join(json.dumps({"doc_id": i, "filtered_resps": t}) + "\n" for i, t in enumerate(texts)))
        bench = scoring.get_benchmark("scb")
        rows = [
            ("as_submission on an SCB JSONL file of 3,178 boxes (sniff only)",
             cpu_ms(lambda: harness.as_submission(bench, scb_gold, boxes, 50 << 20), 200)),
            ("score_file, SCB, 3,178 boxes", cpu_ms(lambda: scoring.score_file("scb", scb_gold, boxes), 20)),
            ("score_file, K-Viscuit, 657 responses, our JSONL",
             cpu_ms(lambda: scoring.score_file("kviscuit", kv_gold, ours), 20)),
            ("score_file, K-Viscuit, 657 responses, lmms-eval samples",
             cpu_ms(lambda: scoring.score_file("kviscuit", kv_gold, samples), 20)),
        ]  # fmt: skip
        print("| what | CPU median / p90 |\n|---|---|")
        for what, (median, p90) in rows:
            print(f"| {what} | {median:.2f} / {p90:.2f} ms |")


if __name__ == "__main__":
    main()
