"""Benchmark: validate and score a raw-grounding file (``grounding_response`` text read by its
declared family) beside the same boxes as a plain pixel file, on the full-size demo SCB gold.

A pixel file takes the fast path (scoring/batch.py); a raw file is read line by line and its
texts parsed, so it costs more: this says how much, old (pixel) and new (raw) in one run. Each
file answers every question right with the tight box of its gold region; the ``qwen3_vl x3``
file gives every line three boxes (a union, scored as polygons).

    .venv/bin/python perf/bench_raw_grounding.py            # best of 3
    .venv/bin/python perf/bench_raw_grounding.py --repeat 1
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import scoring  # noqa: E402
from scoring.engine import score_file  # noqa: E402
from scoring.grounding_formats import parse_format  # noqa: E402
from tests.support import demo  # noqa: E402
from tests.support.scoring import gold_box, with_options  # noqa: E402


def files(records: list[dict]) -> dict[str, tuple[bytes, str]]:
    """name -> (file bytes, declared grounding_format)."""
    out: dict[str, list[str]] = {"pixel (fast path)": [], "gemini": [], "qwen2_5_vl:lmms-eval": [], "florence2": []}
    out["qwen3_vl x3"] = []
    for r in records:
        w, h = r["width"], r["height"]
        x0, y0, x1, y1 = gold_box(r)
        key = {"question_id": r["question_id"], "answer": r["answer"]}
        per_mille = [round(x0 / w * 1000), round(y0 / h * 1000), round(x1 / w * 1000), round(y1 / h * 1000)]
        fw, fh = parse_format("qwen2_5_vl:lmms-eval").frame(w, h)
        qwen = [round(x0 * fw / w), round(y0 * fh / h), round(x1 * fw / w), round(y1 * fh / h)]
        a, b, c, d = per_mille
        texts = {
            "pixel (fast path)": None,
            "gemini": json.dumps([{"box_2d": [b, a, d, c], "label": "artifact"}]),
            "qwen2_5_vl:lmms-eval": "```json\n" + json.dumps([{"bbox_2d": qwen, "label": "artifact"}]) + "\n```",
            "florence2": "artifact" + "".join(f"<loc_{min(999, v)}>" for v in per_mille),
            "qwen3_vl x3": json.dumps(
                [
                    {"bbox_2d": [a, b, (a + c) // 2, d]},
                    {"bbox_2d": [(a + c) // 2, b, c, d]},
                    {"bbox_2d": [a, b, c, (b + d) // 2]},
                ]
            ),  # fmt: skip
        }
        for name, text in texts.items():
            line = key | ({"bbox": [x0, y0, x1, y1]} if text is None else {"grounding_response": text})
            out[name].append(json.dumps(line))
    formats = {"pixel (fast path)": "", "qwen3_vl x3": "qwen3_vl"}
    return {name: ("\n".join(lines).encode(), formats.get(name, name)) for name, lines in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    records = with_options(demo.scb_gold(), same_size=1.0)  # option sizes: the frames lines are read in
    with tempfile.TemporaryDirectory() as tmp:
        gold = scoring.load_gold("scb", demo.write_jsonl(Path(tmp) / "gold.jsonl", records))
    print(f"{len(records):,} questions, best of {args.repeat}")
    for name, (data, fmt) in files(records).items():
        best, result = float("inf"), None
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = score_file("scb", gold, data, grounding_format=fmt)
            best = min(best, time.perf_counter() - start)
        miou = result.overall["miou"]
        print(f"{name:<24} {len(data) / 2**20:5.2f} MB  {best * 1000:7.1f} ms  mIoU {miou:6.2f}")


if __name__ == "__main__":
    main()
