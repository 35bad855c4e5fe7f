"""Scoring speed: ``score_file`` on full submissions, and the CLI against a naive pycocotools loop.

Run from the repository root::

    .venv/bin/python perf/bench_scoring.py            # full: 3,178 SCB questions, 657 K-Viscuit
    .venv/bin/python perf/bench_scoring.py --quick    # a tenth of SCB, fewer runs
    .venv/bin/python perf/bench_scoring.py --warm-only --against /tmp/old   # (a) only, old and new alternated

(a) ``score_file`` (parse + validate + IoU + aggregate + bootstrap intervals) with the gold already
    loaded: median and p90 of wall and CPU time (``process_time``: every thread of the process,
    OpenBLAS's included) over ``--runs`` runs, for an SCB submission with boxes, one with
    polygons, and a K-Viscuit one; with ``SHARED_DATA_DIR``, also a box file on the shared SCB gold
    (which lists option image sizes, so every box is checked in its option's frame), and the box
    file scored as the leaderboard does it, with a new bootstrap seed per submission (its
    resampling weights drawn afresh each time). Target: <= 30 ms for 3,178 boxes.
    ``--against DIR`` times (a) for the checkout in DIR and this one, each in its own process,
    alternated ``--rounds`` times, and reports each side's median of the rounds' medians.
(b) A cold ``python -m scoring score ... --json`` (interpreter start and gold loading included),
    with a warm compiled-gold cache and without the cache, against a naive loop timed in the same
    run: read gold and submission, and for every correctly answered question rasterise the gold
    (pycocotools ``frPyObjects`` + ``merge``, or its RLE) and the predicted box with pycocotools,
    decode both to dense masks and compute the IoU with numpy; plus the accuracy. Target: >= 5x.
(c) Memory: the CLI's peak resident memory, and the size of the compiled gold (cache entry) of the
    demo gold and, when ``SHARED_DATA_DIR`` holds it, of ``scb-synthetic/gold.jsonl`` (target <= 50 MB).

Data is the project's demo data (``scoring.benchmarks.<id>.demo``), generated into a temporary folder.
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
CODE = Path(os.environ.get("BENCH_SCORING_CODE") or REPO_ROOT)
"""Whose ``scoring`` is timed: this checkout, or another one (``--against`` sets it per process)."""
sys.path.insert(0, str(CODE))

from pycocotools import mask as coco_mask  # noqa: E402

import scoring  # noqa: E402
from tests.support import demo  # noqa: E402


def timed(fn, runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU times in seconds of ``runs`` calls of ``fn`` (after one warm-up call); ``fn``
    gets the run's number."""
    fn(-1)
    wall, cpu = [], []
    for k in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        fn(k)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - t0)
    return wall, cpu


def summary(times: list[float]) -> tuple[float, float]:
    return statistics.median(times), float(np.percentile(times, 90))


_PEAK = (
    "import resource, subprocess, sys; r = subprocess.run(sys.argv[2:]);"
    "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); sys.exit(r.returncode)"
)
"""Runs a command and writes its peak RSS (KiB). The CLI is started from this small process, not
from the benchmark: a child started by vfork (what subprocess uses) is charged the parent's
resident memory as its peak, which made the CLI's peak that of the benchmark process."""


def run_cli(args: list[str], env: dict) -> tuple[float, float]:
    """Wall seconds and peak resident memory (MB) of one ``python -m scoring score`` run (started
    from a small wrapper process, so that the peak is the CLI's own; the wall time includes the
    wrapper's start, ~50 ms on this host)."""
    cmd = [sys.executable, "-m", "scoring", "score", *args]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryDirectory() as tmp:
        peak_file = Path(tmp) / "peak"
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", _PEAK, str(peak_file), *cmd], cwd=REPO_ROOT, env=env, stdout=out, stderr=err
        )
        elapsed = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"CLI failed ({proc.returncode}): {err.read()[-2000:]!r}")
        json.loads(out.read())
        return elapsed, int(peak_file.read_text()) / 1024


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


SHARED_SCB = Path(os.environ.get("SHARED_DATA_DIR", "/nonexistent")) / "scb-synthetic" / "gold.jsonl"


def write_data(tmp_path: Path, sizes) -> dict[str, Path]:
    """The demo golds and submissions (the same seeds give the same files in every checkout)."""
    scb_records = demo.scb_gold(seed=0, sizes=sizes)
    kv_records = demo.kviscuit_gold()
    paths = {
        "scb_gold": demo.write_jsonl(tmp_path / "scb_gold.jsonl", scb_records),
        "kv_gold": demo.write_jsonl(tmp_path / "kviscuit_gold.jsonl", kv_records),
        "boxes": demo.write_jsonl(
            tmp_path / "scb_boxes.jsonl", demo.scb_submission(scb_records, 0.85, "bbox_good", seed=1)
        ),
        "polygons": demo.write_jsonl(
            tmp_path / "scb_polygons.jsonl", demo.scb_submission(scb_records, 0.63, "polygon", seed=2)
        ),
        "kv_sub": demo.write_jsonl(
            tmp_path / "kviscuit.jsonl", demo.kviscuit_submission(kv_records, 0.66, seed=3, as_response=0.15)
        ),
    }
    if SHARED_SCB.exists():
        shared = [json.loads(line) for line in SHARED_SCB.read_text(encoding="utf-8").splitlines() if line.strip()]
        paths["shared_boxes"] = demo.write_jsonl(
            tmp_path / "shared_boxes.jsonl", demo.scb_submission(shared, 0.85, "bbox_good", seed=1)
        )
    return paths


def warm_rows(paths: dict[str, Path], runs: int) -> list[dict]:
    """(a): score_file with the gold loaded, wall and CPU, median and p90 in ms."""
    from scoring.engine import score_predictions, validate_file

    scb_gold = scoring.load_gold("scb", paths["scb_gold"])
    kv_gold = scoring.load_gold("kviscuit", paths["kv_gold"])
    n = scb_gold.size

    def score(bench: str, gold, name: str):
        return lambda k: scoring.score_file(bench, gold, paths[name])

    def fresh_seed(k: int):
        return score_predictions("scb", scb_gold, validate_file("scb", scb_gold, paths["boxes"]), seed=1000 + k)

    cases = [
        (f"score_file, SCB, {n:,} lines with boxes", score("scb", scb_gold, "boxes")),
        (f"score_file, SCB, {n:,} lines with polygons", score("scb", scb_gold, "polygons")),
        (f"score_file, K-Viscuit, {kv_gold.size} lines", score("kviscuit", kv_gold, "kv_sub")),
        ("SCB boxes, a new bootstrap seed per submission", fresh_seed),
    ]
    if "shared_boxes" in paths:
        shared = scoring.load_gold("scb", SHARED_SCB)
        cases.append(("score_file, SCB shared gold (option frames), boxes", score("scb", shared, "shared_boxes")))
    rows = []
    for label, fn in cases:
        wall, cpu = timed(fn, runs)
        (wm, w90), (cm, c90) = summary(wall), summary(cpu)
        rows.append({"what": label, "wall": [wm * 1e3, w90 * 1e3], "cpu": [cm * 1e3, c90 * 1e3], "runs": runs})
    return rows


def cold_rows(paths: dict[str, Path], quick: bool) -> tuple[list[tuple[str, str, str, str]], str]:
    """(b) and (c): the CLI, cold, against the naive loop; memory and compiled sizes."""
    cli_runs = 3 if quick else 5
    t0 = time.perf_counter()
    scb_gold = scoring.load_gold("scb", paths["scb_gold"])
    compile_s = time.perf_counter() - t0
    env = dict(os.environ)
    cli_args = ["--benchmark", "scb", "--gold", str(paths["scb_gold"]), "--predictions", str(paths["boxes"]), "--json"]
    no_cache = [run_cli([*cli_args, "--no-cache"], env)[0] for _ in range(cli_runs)]
    env["SCORING_CACHE_DIR"] = str(paths["boxes"].parent / "cache")
    run_cli(cli_args, env)  # fills the cache
    warm_runs = [run_cli(cli_args, env) for _ in range(cli_runs)]
    warm = [t for t, _ in warm_runs]
    peak_mb = max(m for _, m in warm_runs)

    t0 = time.perf_counter()
    naive_acc, naive_miou = naive_score(paths["scb_gold"], paths["boxes"])
    naive_s = time.perf_counter() - t0
    result = scoring.score_file("scb", scb_gold, paths["boxes"])
    assert abs(result.overall["acc"] - naive_acc) < 1e-9, (result.overall["acc"], naive_acc)
    assert abs(result.overall["miou"] - naive_miou) < 1e-6, (result.overall["miou"], naive_miou)

    cold_warm, cold_none = statistics.median(warm), statistics.median(no_cache)
    rows = [
        ("gold compile (load_gold, in process)", f"{compile_s * 1000:.0f} ms", "", "1 run"),
        ("CLI cold start, warm gold cache", f"{cold_warm * 1000:.0f} ms", "", f"median of {cli_runs}"),
        ("CLI cold start, no cache", f"{cold_none * 1000:.0f} ms", "", f"median of {cli_runs}"),
        ("naive pycocotools + numpy loop", f"{naive_s * 1000:.0f} ms", "", "1 run"),
        ("speed-up, CLI warm cache vs naive", f"{naive_s / cold_warm:.1f}x", "", "target >= 5x"),
        ("speed-up, CLI no cache vs naive", f"{naive_s / cold_none:.1f}x", "", ""),
        ("CLI peak memory, warm gold cache (demo gold)", f"{peak_mb:.0f} MB", "", f"max of {cli_runs}"),
        ("compiled gold (cache entry), demo SCB gold", f"{compiled_size_mb(paths['scb_gold']):.1f} MB", "", ""),
    ]
    if "shared_boxes" in paths:
        shared_args = ["--benchmark", "scb", "--gold", str(SHARED_SCB), "--predictions", str(paths["shared_boxes"])]
        run_cli([*shared_args, "--json"], env)  # fills the cache
        shared_runs = [run_cli([*shared_args, "--json"], env) for _ in range(cli_runs)]
        rows += [
            ("CLI cold start, shared gold, warm cache", f"{statistics.median(t for t, _ in shared_runs) * 1000:.0f} ms",
             "", f"median of {cli_runs}"),
            ("CLI peak memory, shared gold, warm cache", f"{max(m for _, m in shared_runs):.0f} MB", "",
             f"max of {cli_runs}"),
            (f"compiled gold (cache entry), {SHARED_SCB}", f"{compiled_size_mb(SHARED_SCB):.1f} MB", "", "<= 50 MB"),
        ]  # fmt: skip
    return rows, f"acc {naive_acc:.2f}, mIoU {naive_miou:.2f}, same in both paths"


def warm_against(other: Path, runs: int, rounds: int, quick: bool) -> list[tuple[str, ...]]:
    """(a) for ``other`` and this checkout, each in its own process, alternated ``rounds`` times."""
    medians: dict[tuple[str, str], list[tuple[float, float, float, float]]] = {}
    for _ in range(rounds):
        for side, code in (("old", other.resolve()), ("new", REPO_ROOT)):
            env = dict(os.environ, BENCH_SCORING_CODE=str(code))
            cmd = [
                sys.executable,
                __file__,
                "--warm-only",
                "--json",
                "--runs",
                str(runs),
                *(["--quick"] if quick else []),
            ]
            out = subprocess.run(cmd, env=env, cwd=code, check=True, capture_output=True, text=True).stdout
            for row in json.loads(out):
                medians.setdefault((row["what"], side), []).append((*row["wall"], *row["cpu"]))
    table = []
    for what in dict.fromkeys(w for w, _ in medians):
        cells = []
        for side in ("old", "new"):
            wall, wall90, cpu, cpu90 = (statistics.median(col) for col in zip(*medians[(what, side)], strict=True))
            cells.append(f"{wall:.1f} / {wall90:.1f} ms wall, {cpu:.1f} / {cpu90:.1f} ms CPU")
        table.append((what, *cells))
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the SCB questions and fewer runs")
    parser.add_argument("--runs", type=int, default=None, help="timed runs of score_file (default 25, quick 15)")
    parser.add_argument("--warm-only", action="store_true", help="only (a), the warm score_file timings")
    parser.add_argument("--json", action="store_true", help="(a) as JSON rows (what --against reads)")
    parser.add_argument("--against", type=Path, help="another checkout: time (a) for it and this one, alternated")
    parser.add_argument("--rounds", type=int, default=3, help="alternations with --against (default 3)")
    args = parser.parse_args(argv)
    runs = args.runs or (15 if args.quick else 25)
    sizes = (84, 83, 150) if args.quick else demo.SCB_TYPE_SIZES
    blas = f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}"
    header = f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {blas}"

    if args.against is not None:
        table = warm_against(args.against, runs, args.rounds, args.quick)
        print(f"Warm scoring, {args.against} (old) vs this checkout (new); median / p90; {header}\n")
        print("| what | old | new |\n|---|---|---|")
        for row in table:
            print("| " + " | ".join(row) + " |")
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-scoring-") as tmp:
        paths = write_data(Path(tmp), sizes)
        warm = warm_rows(paths, runs)
        if args.json:
            print(json.dumps(warm))
            return 0
        rows = [
            (r["what"], f"{r['wall'][0]:.1f} / {r['cpu'][0]:.1f} ms", f"{r['wall'][1]:.1f} / {r['cpu'][1]:.1f} ms",
             f"{runs} runs, wall / CPU")
            for r in warm
        ]  # fmt: skip
        checked = ""
        if not args.warm_only:
            cold, checked = cold_rows(paths, args.quick)
            rows += cold
    print(f"Scoring benchmark ({'quick' if args.quick else 'full'}; {header}{'; ' + checked if checked else ''})\n")
    print("| what | median | p90 | runs |")
    print("|---|---:|---:|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
