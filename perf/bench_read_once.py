"""Read once, in the bounded worker (issue 41), and each piece of gold work once (issue 40 item 3): the red
team's hostile files (notes turn 5, red.md N1-N4) against the old checkout and the new, in one run.

    git -C <main checkout> worktree add ../old-2880999 2880999
    .venv/bin/python perf/bench_read_once.py --old ../old-2880999 [--only workbook,zips,sybils,hostile_gold,demo_gold]

Each case runs in a child process per checkout (``sys.path`` starts with that checkout), on a fresh data
folder. The upload cases' child plays the web process: it opens the Leaderboard with a one-worker scoring
pool and the default job bounds (60 s, 1,024 MB), as app.py does, and calls the submit path the ``/submit``
handler calls (leaderboard.joined.one_upload, then Submissions.submit); HTTP and Gradio are left out. It
prints its own CPU seconds (``process_time``: the web process, not its workers) and the rise of its resident
memory (sampled every 20 ms), and the honest upload's latency (wall seconds). The hostile files are made
here, as the red team's scripts made them (mk_widexlsx.py, mk_xlsx.py, mk_zips.py):

- ``workbook``: an account uploads xwide.xlsx (657 rows of ``--cells`` cells), then an honest account uploads
  an honest K-Viscuit file (N1: its probe check re-read the workbook in the web process);
- ``zips``: sixteen zips of 153 KB, each holding a 50 MB samples file, in one validate-only upload (N2);
- ``sybils``: three accounts send xwide.xlsx validate-only at once, an honest validate-only 2 s later (N4);
- ``hostile_gold``: 14 honest uploads and the red team's 4 hostile ones stored as before readings (xwide,
  xstr with 6.4 M shared strings, two lmms-eval samples files with one 49 MB line), and its fat.eval
  (1.67 GB once read, within every log bound), then ``gold add --confirm`` of the gold without its last
  question and ``rescore`` (N3), each a CLI process: its wall seconds, its CPU seconds with its workers',
  its own peak RSS, and what it said of uploads over a bound;
- ``demo_gold``: the demo board (``python -m leaderboard demo``), then ``gold add`` of the demo SCB gold with
  one answer and one mask corrected, and ``rescore`` (issue 40: at most 60 % of the old CPU seconds).

Wall times on a shared host are noisy; CPU seconds are what to compare.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import runpy
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

NEW = Path(__file__).resolve().parents[1]
CASES = ("workbook", "zips", "sybils", "hostile_gold", "demo_gold")
SHEET = "application/vnd.openxmlformats-officedocument.spreadsheetml"
STRINGS = {  # what a workbook with shared strings adds to these two parts (mk_xlsx.py --strings)
    "[Content_Types].xml": f'<Override PartName="/xl/sharedStrings.xml" ContentType="{SHEET}.sharedStrings+xml"/>',
    "xl/_rels/workbook.xml.rels": (
        '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
        'sharedStrings" Target="sharedStrings.xml"/>'
    ),
}
RELATIONS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PARTS = {
    "[Content_Types].xml": (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        f'<Override PartName="/xl/workbook.xml" ContentType="{SHEET}.sheet.main+xml"/>'
        f'<Override PartName="/xl/worksheets/sheet1.xml" ContentType="{SHEET}.worksheet+xml"/>{{strings}}</Types>'
    ),
    "_rels/.rels": (
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{RELATIONS}/officeDocument" Target="xl/workbook.xml"/></Relationships>'
    ),
    "xl/workbook.xml": (
        f'<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="{RELATIONS}">'
        '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>'
    ),
    "xl/_rels/workbook.xml.rels": (
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{RELATIONS}/worksheet" Target="worksheets/sheet1.xml"/>{{strings}}'
        "</Relationships>"
    ),
}
TITLES = (
    b'<row r="1"><c r="A1" t="inlineStr"><is><t>index</t></is></c>'
    b'<c r="B1" t="inlineStr"><is><t>prediction</t></is></c></row>'
)


# ---- the hostile files, as the red team made them ----


def workbook(path: Path, rows: int, cells: int = 0, strings: int = 0) -> Path:
    """mk_widexlsx.py (each row padded with ``cells`` cells) or mk_xlsx.py --strings (``strings`` shared strings)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, body in PARTS.items():
            z.writestr(name, body.replace("{strings}", STRINGS.get(name, "") if strings else ""))
        if strings:
            with z.open("xl/sharedStrings.xml", "w", force_zip64=True) as f:
                f.write(b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">')
                for _ in range(strings // 10_000):
                    f.write(b"<si><t>A</t></si>" * 10_000)
                f.write(b"</sst>")
        with z.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as f:
            f.write(b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
            f.write(TITLES)
            pad = b"<c><v>1</v></c>" * cells
            for i in range(rows):
                cell = f'<c t="s"><v>{i % strings}</v></c>' if strings else '<c t="inlineStr"><is><t>A</t></is></c>'
                f.write(f"<row><c><v>{i}</v></c>{cell}".encode() + pad + b"</row>")
            f.write(b"</sheetData></worksheet>")
    return path


def fat_samples(path: Path, megabytes: float = 48.9) -> Path:
    """red.md's lmms_fat.jsonl: an lmms-eval samples file whose second line is one 49 MB ``filtered_resps``
    of empty objects (1.2 GB once parsed)."""
    items = int(megabytes * 2**20) // 3
    first = b'{"doc_id": 0, "filtered_resps": ["A"]}\n'
    path.write_bytes(first + b'{"doc_id": 1, "filtered_resps": [' + b"{}," * (items - 1) + b"{}]}\n")
    return path


def fat_log(path: Path, records: int = 657, pad: int = 32 * 2**20 - 16384) -> Path:
    """mk_eval.py fat: an Inspect log within every documented log bound (a 400 KB file) whose first
    8 samples each carry ~32 MB of empty objects (1.67 GB once read)."""
    header = {"version": 2, "status": "success", "eval": {"task": "kviscuit", "dataset": {"shuffled": False}}}
    padding = ", " + '"pad": [' + ",".join(["{}"] * (pad // 3)) + "]}"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("header.json", json.dumps(header))
        for i in range(records):
            body = json.dumps({"id": i, "epoch": 1, "output": {"completion": "The answer is (A)."}})
            z.writestr(f"samples/{i}_epoch_1.json", body[:-1] + padding if i < 8 else body)
    return path


def samples_zips(folder: Path, n: int = 16, size: int = 50 * 2**20 - 4096) -> list[Path]:
    """mk_zips.py: ``n`` zips, each one samples file that unpacks to ``size`` bytes."""
    line = (json.dumps({"doc_id": 0, "filtered_resps": ["A"]}) + "\n").encode()
    body, paths = line * (size // len(line)), []
    for i in range(n):
        paths.append(folder / f"run{i:02d}.zip")
        with zipfile.ZipFile(paths[-1], "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
            z.writestr(f"logs/m/2026_samples_kviscuit_{i}.jsonl", body)
    return paths


def demo_makers():
    """The demo data makers of the checkout this child runs in: ``tests.support.demo`` since each
    benchmark is a folder (issue 40), ``leaderboard.demo`` before (the old checkout of the run)."""
    try:
        from tests.support import demo
    except ImportError:
        from leaderboard import demo
    return demo


def honest(path: Path, gold: list[dict], seed: int, accuracy: float = 0.6) -> Path:
    demo = demo_makers()

    return demo.write_jsonl(path, demo.kviscuit_submission(gold, accuracy, seed))


# ---- the child that plays the web process (the upload cases) ----


def rss() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class Watch:
    """The web process's CPU seconds, wall seconds and the rise of its resident memory while entered."""

    def __enter__(self) -> Watch:
        self.cpu, self.wall, self.base, self.peak, self.on = (
            time.process_time(),
            time.perf_counter(),
            rss(),
            rss(),
            True,
        )
        threading.Thread(target=self._sample, daemon=True).start()
        return self

    def _sample(self) -> None:
        while self.on:
            self.peak = max(self.peak, rss())
            time.sleep(0.02)

    def __exit__(self, *exc: object) -> None:
        self.on = False
        self.cpu, self.wall = time.process_time() - self.cpu, time.perf_counter() - self.wall
        self.rise = (max(self.peak, rss()) - self.base) / 2**20

    def figures(self) -> dict:
        return {"web_cpu": round(self.cpu, 1), "web_rss_rise_mb": round(self.rise), "seconds": round(self.wall, 1)}


class Web:
    """A Leaderboard as app.py opens it (one-worker pool, default bounds) on the K-Viscuit demo gold."""

    def __init__(self, tmp: Path) -> None:
        demo = demo_makers()
        from leaderboard.config import Settings
        from leaderboard.service import Leaderboard
        from submissions.job_bounds import JobBounds

        self.tmp, self.records = tmp, demo.kviscuit_gold()
        self.lb = Leaderboard(Settings(data_dir=tmp / "data", demo=False))
        self.lb.corrections.add_gold("kviscuit", demo.write_jsonl(tmp / "gold.jsonl", self.records), "bench")
        self.pool = self.lb.use_scoring_pool(1, JobBounds())
        self.send("warm", [honest(tmp / "warm.jsonl", self.records, 3)], "Warm")  # the worker up, the gold in it

    def send(self, who: str, paths: list[Path], model: str, validate_only: bool = False) -> str:
        """What the ``/submit`` handler does with these files (ui.submit.Submitter._upload)."""
        from leaderboard.joined import one_upload
        from submissions.records import Identity, SubmissionForm
        from submissions.request import SubmitRequest

        form = SubmissionForm.of(model=model, team=model + " Lab")
        try:
            with one_upload(paths, self.lb.settings.max_upload_bytes) as (path, name):
                request = SubmitRequest("kviscuit", path, form, Identity(who), name, validate_only=validate_only)
                answer = self.lb.submissions.submit(request)
            said = answer.message + (" " + answer.issues[0].message if answer.issues else "")
        except Exception as e:  # a BundleError: the form answers "Not read: ..."
            said = f"Not read: {e}"
        return said[:150]


def upload_case(case: str, cells: int) -> dict:
    web = Web(Path(tempfile.mkdtemp(prefix="read-once-")))
    honest_file, out = honest(web.tmp / "honest.jsonl", web.records, 7), {}
    if case == "workbook":
        start = time.perf_counter()
        out["attacker"] = web.send("sybil", [workbook(web.tmp / "xwide.xlsx", 657, cells=cells)], "Stall")
        out["attacker_seconds"] = round(time.perf_counter() - start, 1)
        with Watch() as watch:
            out["honest"] = web.send("alice", [honest_file], "AliceNet")
    elif case == "zips":
        paths = samples_zips(web.tmp)
        with Watch() as watch:
            out["answer"] = web.send("zipper", paths, "Zips", validate_only=True)
    else:  # sybils
        xwide, said = workbook(web.tmp / "xwide.xlsx", 657, cells=cells), {}

        def attack(i: int) -> None:
            start = time.perf_counter()
            answer = web.send(f"sybil{i}", [xwide], "Stall", validate_only=True)
            said[i] = (round(time.perf_counter() - start, 1), answer)

        threads = [threading.Thread(target=attack, args=(i,)) for i in range(3)]
        for thread in threads:
            thread.start()
            time.sleep(0.3)
        time.sleep(2)
        with Watch() as watch:
            out["honest"] = web.send("carol", [honest_file], "CarolNet", validate_only=True)
        for thread in threads:
            thread.join()
        out["attackers"] = [said[i] for i in sorted(said)]
    web.pool.close()
    return out | watch.figures()


# ---- the gold cases: a store made in a child, then the maintainer's CLI ----


def store_case(data: Path, case: str, cells: int) -> dict:
    """The store of a gold case, and the gold file its ``gold add`` takes."""
    demo = demo_makers()
    from leaderboard.config import Settings
    from leaderboard.service import Leaderboard

    tmp = Path(tempfile.mkdtemp(prefix="read-once-store-"))
    lb = Leaderboard(Settings(data_dir=data, demo=False))
    if case == "demo_gold":  # the demo board is seeded already: its SCB gold with an answer and a mask corrected
        info = lb.golds.info("scb")
        records = [json.loads(x) for x in lb.store.read("gold", info.file).splitlines() if x.strip()]
        return {"gold": str(demo.write_jsonl(tmp / "gold-v2.jsonl", corrected(records))), "benchmark": "scb"}
    records = demo.kviscuit_gold()
    lb.corrections.add_gold("kviscuit", demo.write_jsonl(tmp / "gold.jsonl", records), "bench")
    files = [honest(tmp / f"h{i}.jsonl", records, i, 0.4 + i / 40) for i in range(14)]
    files += [workbook(tmp / "xwide.xlsx", 657, cells=cells), workbook(tmp / "xstr.xlsx", 100_000, strings=6_399_000)]
    files += [fat_samples(tmp / "fat1.jsonl"), fat_samples(tmp / "fat2.jsonl", 48.8), fat_log(tmp / "fat.eval")]
    store_raw(lb, files)
    cut = demo.write_jsonl(tmp / "gold-cut.jsonl", records[:-1])  # red.md N3: the gold without its last question
    return {"gold": str(cut), "benchmark": "kviscuit"}


def corrected(records: list[dict]) -> list[dict]:
    """One answer moved to another option of the gold image's size (their image ids swapped), one mask halved."""
    for r in records:
        old = "ABCD".index(r["answer"])
        size = (r["width"], r["height"])
        same = [k for k, o in enumerate(r["options"]) if k != old and (o["width"], o["height"]) == size]
        if same:
            options = [dict(o) for o in r["options"]]
            options[old]["image_id"], options[same[0]]["image_id"] = options[same[0]]["image_id"], r["image_id"]
            r.update(answer="ABCD"[same[0]], options=options)
            break
    w, h = records[1]["width"], records[1]["height"]
    records[1]["segmentation"] = [[0, 0, w / 2, 0, w / 2, h / 2, 0, h / 2]]
    return records


def store_raw(lb, files: list[Path]) -> None:
    """Each file stored as an upload from before any reading (its raw bytes and its record)."""
    from store import layout
    from submissions.records import SubmissionMeta

    start = datetime.now(UTC) - timedelta(days=1)
    for i, path in enumerate(files):
        body, when = path.read_bytes(), start + timedelta(minutes=i)
        sid = f"{when:%Y%m%d-%H%M%S}-{i:010x}"
        meta = SubmissionMeta(
            id=sid, benchmark="kviscuit", model=f"m{i}", team=f"t{i}", model_type="open", paper_url="",
            code_url="", description="", submitter=f"u{i}", sha256=hashlib.sha256(body).hexdigest(),
            bbox_format="xyxy", submitted_at=when.isoformat(), size_bytes=len(body), filename=path.name,
        )  # fmt: skip
        files_ = {layout.raw("kviscuit", sid): body, layout.meta("kviscuit", sid): meta.to_bytes()}
        lb.store.put("submissions", files_, "import")


def run_cli(args: list[str]) -> None:
    """``python -m leaderboard ARGS`` in this process; its CPU, its workers' CPU and its peak RSS on stderr."""
    sys.argv = ["leaderboard", *args]
    try:
        runpy.run_module("leaderboard", run_name="__main__")
        code = 0
    except SystemExit as e:
        code = e.code
    me, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    usage = {"code": code, "cpu": me.ru_utime + me.ru_stime, "workers_cpu": workers.ru_utime + workers.ru_stime}
    print(json.dumps(usage | {"peak_mb": me.ru_maxrss / 1024}), file=sys.stderr)


# ---- the parent: each case, old then new ----


def child(root: Path, *args: str, data: Path | None = None) -> subprocess.CompletedProcess:
    """This script as a child whose imports come from ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root), "LEADERBOARD_DEMO": "0"}
    if data is not None:
        env["LEADERBOARD_DATA_DIR"] = str(data)
    run = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, cwd=root, env=env)
    if run.returncode and args[0] != "cli":
        raise RuntimeError(f"{root} {args[0]}: {run.stderr[-3000:]}")
    return run


def cli(root: Path, data: Path, *args: str) -> dict:
    """One maintainer command: wall seconds, its CPU and its workers', its peak RSS, what it said of bounds."""
    start = time.perf_counter()
    run = child(root, "cli", *args, data=data)
    usage = json.loads(run.stderr.strip().splitlines()[-1])
    keep = ("job's bound", "rescored", "needed scoring", "is staged", "is current")
    said = [x.strip() for x in run.stdout.splitlines() if any(k in x for k in keep)]
    rounded = {k: round(v, 1) if isinstance(v, float) else v for k, v in usage.items()}
    return rounded | {"wall": round(time.perf_counter() - start, 1), "said": said[:3]}


def gold_case(root: Path, case: str, cells: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="read-once-gold-") as tmp:
        data = Path(tmp) / "data"
        if case == "demo_gold":
            assert cli(root, data, "demo")["code"] == 0
        setup = json.loads(child(root, "store", str(data), case, str(cells)).stdout.strip().splitlines()[-1])
        add = ("gold", "add", "--benchmark", setup["benchmark"], "--file", setup["gold"], "--confirm")
        steps = {
            "gold add": cli(root, data, *add),
            "rescore": cli(root, data, "rescore", "--benchmark", setup["benchmark"]),
        }
    total = sum(step["cpu"] + step["workers_cpu"] for step in steps.values())
    return steps | {"cpu_total": round(total, 1)}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("upload", "store", "cli"):  # a child (see ``child``)
        sys.path = [p for p in sys.path if Path(p).resolve() != Path(__file__).resolve().parent]
        if argv[0] == "cli":
            run_cli(argv[1:])
        else:
            found = (
                upload_case(argv[1], int(argv[2]))
                if argv[0] == "upload"
                else store_case(Path(argv[1]), *argv[2:3], int(argv[3]))
            )
            print(json.dumps(found))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="a checkout of the old commit (a git worktree)")
    parser.add_argument("--only", default=",".join(CASES), help=f"cases, comma-separated: {', '.join(CASES)}")
    parser.add_argument(
        "--cells", type=int, default=25_000, help="padding cells per row of xwide.xlsx (red team: 25,000)"
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs of each case, old and new alternated")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    print(f"host: {os.cpu_count()} cores, load {load:.1f}; old {args.old.resolve()}, new {NEW}", flush=True)
    for case in args.only.split(","):
        totals: dict[str, list[float]] = {"old": [], "new": []}
        for _ in range(args.repeat):
            for side, root in (("old", args.old.resolve()), ("new", NEW)):
                if case in ("hostile_gold", "demo_gold"):
                    result = gold_case(root, case, args.cells)
                    totals[side].append(result["cpu_total"])
                else:
                    result = json.loads(child(root, "upload", case, str(args.cells)).stdout.strip().splitlines()[-1])
                print(f"{case} {side}: {json.dumps(result)}", flush=True)
        if totals["old"]:
            old, new = (statistics.median(totals[side]) for side in ("old", "new"))
            print(f"{case}: median CPU seconds old {old:.1f}, new {new:.1f}: new/old {new / old:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
