"""Scoring speed: ``score_file`` on full submissions, and the CLI against a naive pycocotools loop.

Run from the repository root::

    .venv/bin/python perf/bench_scoring.py            # full: 3,178 SCB questions, 657 K-Viscuit
    .venv/bin/python perf/bench_scoring.py --quick    # a tenth of SCB, fewer runs

(a) ``score_file`` (parse + validate + IoU + aggregate + bootstrap intervals) with the gold already
    loaded: median and p90 over ``--runs`` runs, for an SCB submission with boxes, one with
    polygons, and a K-Viscuit one. Target: median <= 100 ms for 3,178 boxes.
(b) A cold ``python -m scoring score ... --json`` (interpreter start and gold loading included),
    with a warm compiled-gold cache and without the cache, against a naive loop timed in the same
    run: read gold and submission, and for every correctly answered question rasterise the gold
    (pycocotools ``frPyObjects`` + ``merge``, or its RLE) and the predicted box with pycocotools,
    decode both to dense masks and compute the IoU with numpy; plus the accuracy. Target: >= 5x.
(c) Memory: the CLI's peak resident memory, and the size of the compiled gold (cache entry) of the
    demo gold and, when ``SHARED_DATA_DIR`` holds it, of ``scb-synthetic/gold.jsonl`` (target <= 50 MB).

Data is the project's demo data (``leaderboard.demo``), generated into a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from pycocotools import mask as coco_mask  # noqa: E402

import scoring  # noqa: E402
from leaderboard import demo  # noqa: E402


def timed(fn, runs: int) -> list[float]:
    """Wall times in seconds of ``runs`` calls of ``fn`` (after one warm-up call)."""
    fn()
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def summary(times: list[float]) -> tuple[float, float]:
    return statistics.median(times), float(np.percentile(times, 90))


def run_cli(args: list[str], env: dict) -> tuple[float, float]:
    """Wall seconds and peak resident memory (MB) of one ``python -m scoring score`` run."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "scoring", "score", *args], cwd=REPO_ROOT, env=env, stdout=out, stderr=err
        )
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"CLI failed ({proc.returncode}): {err.read()[-2000:]!r}")
        json.loads(out.read())
    return elapsed, usage.ru_maxrss / 1024


def compiled_size_mb(gold_path: Path) -> float:
    """Size of the compiled-gold cache entry of an SCB gold file (what the CLI and app load)."""
    from scoring.cache import GoldCache

    with tempfile.TemporaryDirectory() as tmp:
        cache = GoldCache(Path(tmp))
        cache.load("scb", gold_path)
        return sum(p.stat().st_size for p in Path(tmp).glob("*.pickle")) / 1e6


def naive_score(gold_path: Path, submission_path: Path) -> tuple[float, float]:
    """Accuracy and mIoU the slow, obvious way: dense pycocotools masks and numpy, per question."""
    gold = {}
    with open(gold_path, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            gold[rec["question_id"]] = rec
    answers = {}
    with open(submission_path, encoding="utf-8") as f:
        for line in f:
            obj = json.loads(line)
            answers[obj["question_id"]] = obj
    ious = []
    correct = 0
    for qid, rec in gold.items():
        obj = answers.get(qid)
        if obj is None or obj.get("answer") != rec["answer"]:
            continue
        correct += 1
        h, w = rec["height"], rec["width"]
        seg = rec["segmentation"]
        if isinstance(seg, dict):
            g_rle = {"size": seg["size"], "counts": seg["counts"].encode("ascii")}
        else:
            g_rle = coco_mask.merge(coco_mask.frPyObjects(seg, h, w))
        g = coco_mask.decode(g_rle).astype(bool)
        if "bbox" in obj:
            x0, y0, x1, y1 = obj["bbox"]
            p_rle = coco_mask.frPyObjects(np.array([[x0, y0, x1 - x0, y1 - y0]], dtype=float), h, w)
            p = coco_mask.decode(p_rle)[:, :, 0].astype(bool)
            ious.append(np.logical_and(g, p).sum() / np.logical_or(g, p).sum())
        else:
            ious.append(0.0)
    return 100 * correct / len(gold), 100 * float(np.mean(ious))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the SCB questions and fewer runs")
    parser.add_argument("--runs", type=int, default=None, help="timed runs of score_file (default 25, quick 15)")
    args = parser.parse_args(argv)
    runs = args.runs or (15 if args.quick else 25)
    sizes = (84, 83, 150) if args.quick else demo.SCB_TYPE_SIZES
    cli_runs = 3 if args.quick else 5

    with tempfile.TemporaryDirectory(prefix="bench-scoring-") as tmp:
        tmp_path = Path(tmp)
        scb_records = demo.scb_gold(seed=0, sizes=sizes)
        kv_records = demo.kviscuit_gold()
        scb_gold_path = demo.write_jsonl(tmp_path / "scb_gold.jsonl", scb_records)
        kv_gold_path = demo.write_jsonl(tmp_path / "kviscuit_gold.jsonl", kv_records)
        boxes = demo.write_jsonl(
            tmp_path / "scb_boxes.jsonl", demo.scb_submission(scb_records, 0.85, "bbox_good", seed=1)
        )
        polygons = demo.write_jsonl(
            tmp_path / "scb_polygons.jsonl", demo.scb_submission(scb_records, 0.63, "polygon", seed=2)
        )
        kv_sub = demo.write_jsonl(
            tmp_path / "kviscuit.jsonl", demo.kviscuit_submission(kv_records, 0.66, seed=3, as_response=0.15)
        )

        t0 = time.perf_counter()
        scb_gold = scoring.load_gold("scb", scb_gold_path)
        compile_s = time.perf_counter() - t0
        kv_gold = scoring.load_gold("kviscuit", kv_gold_path)

        n = len(scb_records)
        rows: list[tuple[str, str, str, str]] = []
        for label, bench, gold, path in [
            (f"score_file, SCB, {n:,} lines with boxes", "scb", scb_gold, boxes),
            (f"score_file, SCB, {n:,} lines with polygons", "scb", scb_gold, polygons),
            (f"score_file, K-Viscuit, {len(kv_records)} lines", "kviscuit", kv_gold, kv_sub),
        ]:
            med, p90 = summary(timed(lambda b=bench, g=gold, p=path: scoring.score_file(b, g, p), runs))
            rows.append((label, f"{med * 1000:.1f} ms", f"{p90 * 1000:.1f} ms", f"{runs} runs"))

        env = dict(os.environ)
        cli_args = ["--benchmark", "scb", "--gold", str(scb_gold_path), "--predictions", str(boxes), "--json"]
        no_cache = [run_cli([*cli_args, "--no-cache"], env)[0] for _ in range(cli_runs)]
        env["SCORING_CACHE_DIR"] = str(tmp_path / "cache")
        run_cli(cli_args, env)  # fills the cache
        warm_runs = [run_cli(cli_args, env) for _ in range(cli_runs)]
        warm = [t for t, _ in warm_runs]
        peak_mb = max(m for _, m in warm_runs)

        t0 = time.perf_counter()
        naive_acc, naive_miou = naive_score(scb_gold_path, boxes)
        naive_s = time.perf_counter() - t0
        result = scoring.score_file("scb", scb_gold, boxes)
        assert abs(result.overall["acc"] - naive_acc) < 1e-9, (result.overall["acc"], naive_acc)
        assert abs(result.overall["miou"] - naive_miou) < 1e-6, (result.overall["miou"], naive_miou)

        cold_warm, cold_none = statistics.median(warm), statistics.median(no_cache)
        rows += [
            ("gold compile (load_gold, in process)", f"{compile_s * 1000:.0f} ms", "", "1 run"),
            ("CLI cold start, warm gold cache", f"{cold_warm * 1000:.0f} ms", "", f"median of {cli_runs}"),
            ("CLI cold start, no cache", f"{cold_none * 1000:.0f} ms", "", f"median of {cli_runs}"),
            ("naive pycocotools + numpy loop", f"{naive_s * 1000:.0f} ms", "", "1 run"),
            ("speed-up, CLI warm cache vs naive", f"{naive_s / cold_warm:.1f}x", "", "target >= 5x"),
            ("speed-up, CLI no cache vs naive", f"{naive_s / cold_none:.1f}x", "", ""),
            ("CLI peak memory, warm gold cache", f"{peak_mb:.0f} MB", "", f"max of {cli_runs}"),
            ("compiled gold (cache entry), demo SCB gold", f"{compiled_size_mb(scb_gold_path):.1f} MB", "", ""),
        ]
        shared = Path(os.environ.get("SHARED_DATA_DIR", "/nonexistent")) / "scb-synthetic" / "gold.jsonl"
        if shared.exists():
            rows.append(
                (f"compiled gold (cache entry), {shared}", f"{compiled_size_mb(shared):.1f} MB", "", "<= 50 MB")
            )

    print(f"Scoring benchmark ({'quick' if args.quick else 'full'}; Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs; acc {naive_acc:.2f}, mIoU {naive_miou:.2f}, same in both paths)\n")  # fmt: skip
    print("| what | median | p90 | runs |")
    print("|---|---:|---:|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
