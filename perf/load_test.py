"""Load test: 50 browsing clients and 10 submitting clients against the real app on 127.0.0.1.

The app runs as a child process (``python app.py``) on a fresh demo data folder, quotas raised
so the submitters are not refused (locally every client is the same user, ``LEADERBOARD_LOCAL_USER``,
so their uploads also take turns on that user's lock, as two browser tabs of one user would).

- A browsing client does what a browser does when it opens the page, over plain HTTP: ``GET /``
  (the page embeds the config), then the page's load events through Gradio's queue
  (``POST /gradio_api/queue/join`` for both boards, the quota line, the identity line and the
  About downloads; results read from the ``/gradio_api/queue/data`` SSE stream), then one view
  change on a board (the same event the View radio fires). ``--think`` seconds between pages.
  On the board page (``ui/board_page.py``: ``GET /`` is the page with every board's data in it,
  and a view change is computed in the browser) a page is that one ``GET /`` and a view change
  sends nothing: its cost in the browser is ``perf/bench_app.py --view-changes``'s.
  The browsing clients are asyncio tasks (aiohttp) in ``--client-procs`` worker processes
  (``perf/load_browsers.py``), each with its own kept-alive connections as a browser has, each
  arriving within its first ``--think`` seconds; a page's body is decoded and checked for its
  data once per distinct ETag and process, later copies by status, ETag and length. So the load
  generator stays cheap (500 threads of a synchronous client had spent the cores they measured).
- A submitting client calls ``/submit`` through ``gradio_client`` with its own small valid files
  (K-Viscuit and SCB without grounding, each generated with a distinct seed so no two share a
  hash), ``--think`` seconds between uploads.

Each client's loop is bounded in time (``--seconds``) and in count (``--max-per-client``).
At the end: zero errors, every submission stored and scored exactly once (one result file per
submission folder, no other new folder), and p50/p95/max latencies, as a Markdown table. Who used
the cores: the app's CPU seconds, the load generator's (browser processes; the submitters, floods
and harness in the main process), the whole host's from ``/proc/stat`` (the rest is other work on
a shared machine) and the load average. ``generator: event-loop lag`` is how late the browser
processes' loops woke a task: the share of a latency the generator itself added. ``GET / first
byte`` (request sent to response headers, on the visitor's connection) is the closest the client
gets to the server's own time: uvicorn reports none.

    .venv/bin/python perf/load_test.py              # 60 s
    .venv/bin/python perf/load_test.py --quick      # 15 s
    .venv/bin/python perf/load_test.py --quick --rows 1000 --seed-dir /tmp/seed   # 1,000-row boards
    .venv/bin/python perf/load_test.py --quick --app-root /tmp/old               # another checkout's app.py
    .venv/bin/python perf/load_test.py --seconds 20 --submitters 0 --validate-flood 6   # quiet, then a flood
    .venv/bin/python perf/load_test.py --seconds 20 --submitters 0 --compare-flood 20
    .venv/bin/python perf/load_test.py --seconds 10 --submitters 0 --browsers 10 --tsv-flood 6

A flood (``--validate-flood N``: N loops of validate-only on a ~27 MB polygon file, as the
red team's attacks.md #10; ``--compare-flood N``: N loops of a four-model Compare, every
loop its own session, against an old checkout's Gradio Compare tab only (``--app-root``: since issue
30 Compare is computed in the browser and sends no request); ``--tsv-flood N``: N anonymous loops
of ``GET /questions/scb.tsv`` back to back, as attacks.md turn 4 #2) runs after a quiet window of
the same length: the same browsers are measured quiet, then under the flood, and both tables are
printed. Locally every client is the one local account, so the validate-only loops are one
account flooding; the account's quotas and upload budget are raised for the submitters unless
``--deployed-quotas`` (then the flood meets the upload door's per-account budget, ``ui/uploads.py``,
as it would on a deployment).

Before the clock starts, one page and one submission per benchmark warm the app up (the scoring
worker's start, first renders; ``--no-warmup`` to skip): CPU per page is the steady state, on
every checkout alike. A page with no load event that reaches the server (the baked page) counts as
"page with data" once ``GET /`` has returned with a board in it. Each phase's submitters upload
files of their own (a flood run's second phase does not resend the first's).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from perf.load_browsers import (  # noqa: E402
    DATA_IN_PAGE,
    Browser,
    Recorder,
    RefusedAtTheDoor,
    Tab,
    browser_worker,
    cpu_seconds,
    open_session,
)
from tests.support import (
    app_server,  # noqa: E402
    demo,  # noqa: E402
)
from tests.support.app_server import AppServer  # noqa: E402

# --------------------------------------------------------------------------- the page's events


def page_events(config: dict) -> tuple[list[tuple[int, list]], dict[str, tuple[int, list]], set[int]]:
    """The load events of the page that reach the server (fn_index, inputs; browser-only ``js``
    events are skipped), the view-change event of each board, and the events declared
    ``queue=False`` (the page's JavaScript posts those to ``/run/predict``)."""
    comps = {c["id"]: c for c in config["components"]}

    def default(cid: int):
        props = comps[cid].get("props", {})
        value = props.get("value")
        return "" if value is None else value

    loads = []
    renders = {}
    direct = set()
    views = {c["props"].get("elem_id"): cid for cid, c in comps.items() if c.get("props", {}).get("elem_id")}
    for i, dep in enumerate(config["dependencies"]):
        fn_index = dep.get("id", i)
        if dep.get("queue") is False:
            direct.add(fn_index)
        if any(t[1] == "load" for t in dep.get("targets", [])) and dep.get("backend_fn", True):
            loads.append((fn_index, [default(cid) for cid in dep["inputs"]]))
        for bench in ("scb", "kviscuit"):  # the View radio's event that draws (change, or input since the baked page)
            targets = [list(t) for t in dep.get("targets", [])]
            drawn_on = ([views.get(f"{bench}-view"), e] in targets for e in ("change", "input"))
            if dep.get("backend_fn", True) and any(drawn_on):  # the page's own filter values, view "type"
                inputs = ["type" if cid == views.get(f"{bench}-view") else default(cid) for cid in dep["inputs"]]
                renders[bench] = (fn_index, inputs)
    return loads, renders, direct


# --------------------------------------------------------------------------- submitting


def submit_client(url: str):
    """A submitter's ``gradio_client``. It builds a new httpx client for every request (upload,
    join, stream...), and each loads the CA bundle again: ~28 ms of CPU here, most of a
    submission's client cost. The app is plain HTTP on 127.0.0.1, no certificate to check, so
    ``ssl_verify=False`` (gradio_client's own switch) spares the load generator that."""
    import gradio_client

    return gradio_client.Client(url, verbose=False, ssl_verify=False, httpx_kwargs={"timeout": 120})


def submission_file(folder: Path, golds: dict, client: int, n: int) -> tuple[str, Path]:
    seed = 10_000 + 1000 * client + n  # distinct per (client, n): never the same hash
    if n % 2 == 0:
        lines = demo.kviscuit_submission(golds["kviscuit"], 0.3 + 0.05 * (seed % 12), seed)
        return "kviscuit", demo.write_jsonl(folder / f"kv-{client}-{n}.jsonl", lines)
    lines = demo.scb_submission(golds["scb"], 0.3 + 0.05 * (seed % 12), "none", seed)
    return "scb", demo.write_jsonl(folder / f"scb-{client}-{n}.jsonl", lines)


def submit_loop(url, golds, folder, client_no, rec, stop_at, max_uploads, think, answers) -> None:
    import gradio_client

    try:  # the client reads /config first: on an overloaded host that can time out
        client = submit_client(url)
    except Exception as e:
        rec.error(f"submit client {client_no}: {type(e).__name__}: {e}")
        return
    n = 0
    while time.time() < stop_at and n < max_uploads:
        benchmark, path = submission_file(folder, golds, client_no, n)
        t0 = time.perf_counter()
        try:
            answer = client.predict(
                benchmark, gradio_client.handle_file(str(path)), f"load-model-{client_no}-{n}",
                f"load-team-{client_no}", "open", "xyxy", "", "", "", api_name="/submit",
            )  # fmt: skip
            rec.add("submit", time.perf_counter() - t0)
            answers.append((benchmark, answer))
            if answer.get("status") != "scored" or answer.get("duplicate_of"):
                rec.error(f"submit {path.name}: {json.dumps(answer)[:300]}")
        except Exception as e:
            rec.error(f"submit {path.name}: {type(e).__name__}: {e}")
        n += 1
        time.sleep(think)
    client.close()


# --------------------------------------------------------------------------- floods


def heavy_polygon_file(folder: Path, golds: dict, target_mb: float = 27.0) -> Path:
    """A valid SCB file of ~``target_mb`` MB: the demo polygon file with points added along
    every polygon edge (validation cost grows with the points, as the red team's file)."""
    lines = demo.scb_submission(golds["scb"], 0.6, "polygon", 4242)
    base = sum(len(json.dumps(line)) + 1 for line in lines) / 1e6
    steps = max(1, round(target_mb / base))
    for line in lines:
        for i, ring in enumerate(line.get("polygon") or []):
            pts = list(zip(ring[::2], ring[1::2], strict=True))
            dense = []
            for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True):
                dense += [
                    (round(x0 + (x1 - x0) * k / steps, 1), round(y0 + (y1 - y0) * k / steps, 1)) for k in range(steps)
                ]
            line["polygon"][i] = [v for xy in dense for v in xy]
    return demo.write_jsonl(folder / "flood-polygons.jsonl", lines)


def validate_flood(url, path, loop, statuses, rec, stop_at) -> None:
    """One loop of validate-only calls of one file (costs no quota), back to back."""
    import gradio_client

    try:
        client = submit_client(url)
    except Exception as e:
        rec.error(f"flood client {loop}: {type(e).__name__}: {e}")
        return
    while time.time() < stop_at:
        t0 = time.perf_counter()
        try:
            answer = client.predict(
                "scb", gradio_client.handle_file(str(path)), f"flood-{loop}", "flood-team", "open", "xyxy", "", "",
                "", validate_only=True, api_name="/submit",
            )  # fmt: skip
            statuses[answer.get("status")] += 1
            rec.add(f"flood: validate-only ({answer.get('status')})", time.perf_counter() - t0)
        except httpx.HTTPStatusError as e:
            if e.response.status_code != 429:  # the upload door's per-account budget (ui/uploads.py)
                rec.error(f"flood validate-only: {type(e).__name__}: {e}")
                continue
            statuses["refused at the upload door"] += 1
            rec.add("flood: validate-only refused at the upload door", time.perf_counter() - t0)
        except Exception as e:
            rec.error(f"flood validate-only: {type(e).__name__}: {e}")
    client.close()


def tsv_flood(url, rec, stop_at) -> None:
    """One anonymous loop of ``GET /questions/scb.tsv`` (no account, no door), back to back."""
    with httpx.Client(timeout=60) as client:
        while time.time() < stop_at:
            t0 = time.perf_counter()
            try:
                status = client.get(url + "/questions/scb.tsv").status_code
            except httpx.HTTPError as e:
                rec.error(f"flood tsv: {type(e).__name__}: {e}")
                continue
            rec.add(f"flood: GET /questions/scb.tsv ({status})", time.perf_counter() - t0)


def compare_event(config: dict) -> int:
    """The fn_index of the Compare button's event."""
    comps = {c["id"]: c for c in config["components"]}
    button = next(cid for cid, c in comps.items() if c.get("props", {}).get("elem_id") == "cmp-btn")
    for i, dep in enumerate(config["dependencies"]):
        if [button, "click"] in [list(t) for t in dep.get("targets", [])] and dep.get("backend_fn", True):
            return dep.get("id", i)
    raise RuntimeError("no Compare event in the page")


def compare_choices(url: str, config: dict, n: int = 4) -> list[str]:
    """``n`` row ids Compare offers on SCB, as the page gets them (the benchmark radio's event)."""
    comps = {c["id"]: c for c in config["components"]}
    radio = next(cid for cid, c in comps.items() if c.get("props", {}).get("elem_id") == "cmp-bench")
    fn_index = next(
        dep.get("id", i)
        for i, dep in enumerate(config["dependencies"])
        if [radio, "input"] in [list(t) for t in dep.get("targets", [])]
    )

    browser = Browser(url, Recorder(), set())
    try:
        (msg,) = browser.run_events([(fn_index, ["scb"])], "choices")
    finally:
        browser.close()
    choices = msg["output"]["data"][0]["choices"]
    if len(choices) < n:
        raise RuntimeError(f"Compare offers {len(choices)} SCB rows; the flood needs {n}")
    return [value for _label, value in choices[:n]]


def compare_flood(url, fn_index, row_ids, direct, rec, stop_at) -> None:
    """One loop of four-model Compare calls through the queue, in its own session."""

    async def loop() -> None:
        async with open_session(url) as http:
            tab = Tab(http, rec, direct)
            while time.time() < stop_at:
                t0 = time.perf_counter()
                try:
                    await tab.run_events([(fn_index, ["scb", row_ids])], "flood: compare")
                except RefusedAtTheDoor:  # the bound doing its work, not an error
                    rec.add("flood: compare refused at the door", time.perf_counter() - t0)
                except Exception as e:
                    rec.error(f"flood compare: {type(e).__name__}: {e}")

    asyncio.run(loop())


# --------------------------------------------------------------------------- main


def process_tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by a process and its live descendants (a
    scoring pool's workers), from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    tree, frontier = {pid}, [pid]
    while frontier:
        children = [p for p, parent in parents.items() if parent in frontier and p not in tree]
        tree.update(children)
        frontier = children
    return sum(times.get(p, 0.0) for p in tree)


def host_cpu() -> float:
    """CPU seconds every process on the host has used since boot (``/proc/stat``, all cores):
    over a run, what this test, the app and everyone else sharing the machine used."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


class BrowserPool:
    """The browsing visitors, split over ``procs`` worker processes (``perf/load_browsers.py``),
    started before the clock so their start-up is not measured."""

    def __init__(self, procs: int, browsers: int, url, loads, renders, direct, max_pages, think) -> None:
        context = multiprocessing.get_context("spawn")  # the submitters' threads must not be forked
        procs = max(1, min(procs, browsers))
        shares = [browsers // procs + (i < browsers % procs) for i in range(procs)]
        self.conns, self.procs = [], []
        for share in shares if browsers else []:
            ours, theirs = context.Pipe()
            proc = context.Process(
                target=browser_worker, args=(theirs, share, url, loads, renders, sorted(direct), max_pages, think)
            )
            proc.start()
            self.conns.append(ours)
            self.procs.append(proc)
        for conn in self.conns:
            if conn.recv() != "ready":
                raise RuntimeError("a browser worker did not start")
        self.cpu, self.decoded = 0.0, 0

    def start(self, stop_at: float) -> None:
        for conn in self.conns:
            conn.send(stop_at)

    def collect(self, rec: Recorder, timeout: float) -> None:
        """Each worker's latencies and errors into ``rec``; its CPU seconds and the page bodies it
        decoded (one per distinct body, ``PageCheck``) add up in ``cpu`` and ``decoded``."""
        for conn in self.conns:
            if not conn.poll(timeout):
                rec.error("a browser worker did not report")
                continue
            report = conn.recv()
            rec.merge(report["latency"], report["errors"])
            self.cpu += report["cpu"]
            self.decoded += report["decoded"]

    def close(self) -> None:
        for conn, proc in zip(self.conns, self.procs, strict=True):
            with contextlib.suppress(OSError):  # a worker that died has closed its end
                conn.send(None)
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()


SUBMISSION_ID = re.compile(r"\d{8}-\d{6}-\w+")
RAISED_QUOTAS = {"LEADERBOARD_MAX_SCORED_PER_DAY": "100000", "LEADERBOARD_MAX_ATTEMPTS_PER_DAY": "100000"}
"""What the app is started with unless ``--deployed-quotas``: locally every client is one account."""


def submission_folders(data_dir: Path) -> set[Path]:
    """Every submission's folder, flat (old layout) or under a day shard (``{bench}/{day}/{id}``)."""
    return {
        p
        for bench in ("scb", "kviscuit")
        for p in (data_dir / "submissions" / bench).rglob("*")
        if p.is_dir() and SUBMISSION_ID.fullmatch(p.name)
    }


def warm_up(url, loads, renders, direct, golds, folder, answers) -> None:
    """One page (both boards' view changes) and one submission of each benchmark, untimed: the
    scoring worker's start, the first renders and lazy imports are paid before the measured
    window (on both checkouts), so CPU per page is the steady state."""
    rec = Recorder()
    browser = Browser(url, rec, direct)
    try:
        browser.visit(loads, renders)
        browser.run_events(list(renders.values()), "warm-up")
    finally:
        browser.close()
    submit_loop(url, golds, folder, 99, rec, time.time() + 600, 2, 0.0, answers)
    if rec.errors:
        raise RuntimeError(f"warm-up failed: {rec.errors[:3]}")


def seed_data(data_dir: Path, rows: int, keep: Path | None) -> None:
    """A data folder with ``rows`` scored submissions per board (``perf/bench_app.py`` fill),
    filled once into ``keep`` when given and copied from there on later runs."""
    from perf.bench_app import fill

    source = keep / f"rows-{rows}" if keep else None
    if source is not None and (source / "data").is_dir():
        shutil.copytree(source / "data", data_dir)
        return
    with tempfile.TemporaryDirectory(prefix="load-test-fill-") as scratch:
        fill(data_dir, rows, Path(scratch))
    if source is not None:
        shutil.copytree(data_dir, source / "data")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="duration (default 60)")
    parser.add_argument("--quick", action="store_true", help="15 s")
    parser.add_argument("--browsers", type=int, default=50)
    parser.add_argument("--submitters", type=int, default=10)
    parser.add_argument("--think", type=float, default=1.0, help="pause between a client's requests (s)")
    parser.add_argument("--max-per-client", type=int, default=200, help="bound on each client's loop")
    parser.add_argument("--app-root", type=Path, help="run app.py of this checkout (e.g. an old commit)")
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the app (repeatable)")
    parser.add_argument("--no-warmup", action="store_true", help="measure from a cold app (first-use costs in)")
    parser.add_argument("--rows", type=int, default=0, help="scored rows per board to start with (bench_app fill)")
    parser.add_argument("--seed-dir", type=Path, help="keep the filled data folder here and reuse it across runs")
    parser.add_argument("--validate-flood", type=int, default=0, help="validate-only loops after a quiet window")
    parser.add_argument("--compare-flood", type=int, default=0, help="Compare loops after a quiet window")
    parser.add_argument("--tsv-flood", type=int, default=0, help="GET /questions/scb.tsv loops after a quiet window")
    parser.add_argument(
        "--deployed-quotas", action="store_true",
        help="keep the deployed per-account quotas and upload budget (default: raised, so submitters are not refused)",
    )  # fmt: skip
    parser.add_argument(
        "--client-procs",
        type=int,
        default=min(4, os.cpu_count() or 1),
        help="processes the browsing visitors run in, as asyncio tasks (default: one per core, at most 4)",
    )
    args = parser.parse_args(argv)
    seconds = 15.0 if args.quick else args.seconds

    with tempfile.TemporaryDirectory(prefix="load-test-") as tmp:
        root = Path(tmp)
        if args.app_root:  # the same harness against another checkout's app.py
            app_server.ROOT = args.app_root.resolve()
        if args.rows:
            seed_data(root / "data", args.rows, args.seed_dir)
        app = AppServer(
            root / "data",
            **{
                **({} if args.deployed_quotas else RAISED_QUOTAS),
                **dict(pair.split("=", 1) for pair in args.env),
            },
        )
        app.start()
        try:
            golds = {"scb": demo.scb_gold(0), "kviscuit": demo.kviscuit_gold(0)}
            config = httpx.get(app.url + "/config", timeout=30).json()
            loads, renders, direct = page_events(config)
            page = httpx.get(app.url + "/", timeout=30).content
            assert set(renders) == {"scb", "kviscuit"} or DATA_IN_PAGE in page, (loads, renders)
            before = submission_folders(app.data_dir)
            recs: dict[str, Recorder] = {}
            answers: list = []
            files = root / "files"
            files.mkdir()
            if not args.no_warmup:  # one page and one submission before the clock: first-use costs
                warm_up(app.url, loads, renders, direct, golds, files, answers)
            flood = []  # (target, args) of each flood loop; a run with any has a quiet window first
            statuses: dict = defaultdict(int)
            if args.validate_flood:
                heavy = heavy_polygon_file(files, golds)
                flood += [(validate_flood, (app.url, heavy, i, statuses)) for i in range(args.validate_flood)]
            if args.compare_flood:
                event, row_ids = compare_event(config), compare_choices(app.url, config)
                flood += [(compare_flood, (app.url, event, row_ids, direct)) for _ in range(args.compare_flood)]
            flood += [(tsv_flood, (app.url,)) for _ in range(args.tsv_flood)]
            phases = [("quiet", []), ("flood", flood)] if flood else [("", [])]
            pool = BrowserPool(
                args.client_procs, args.browsers, app.url, loads, renders, direct, args.max_per_client, args.think
            )
            try:
                load_start = os.getloadavg()[0]
                cpu_start, host_start, harness_start = process_tree_cpu(app.proc.pid), host_cpu(), cpu_seconds()
                t_start = time.time()
                for phase_no, (phase, loops) in enumerate(phases):
                    rec = recs[phase] = Recorder()
                    stop_at = time.time() + seconds
                    pool.start(stop_at)
                    threads = [
                        threading.Thread(
                            target=submit_loop,
                            args=(
                                app.url,
                                golds,
                                files,
                                client,
                                rec,
                                stop_at,
                                args.max_per_client,
                                args.think,
                                answers,
                            ),
                        )
                        for client in range(1000 * phase_no, 1000 * phase_no + args.submitters)  # new files a phase
                    ]
                    threads += [
                        threading.Thread(target=target, args=(*loop_args, rec, stop_at)) for target, loop_args in loops
                    ]
                    for t in threads:
                        t.start()
                    for t in threads:
                        t.join(timeout=seconds + 300)
                    pool.collect(rec, timeout=max(1.0, stop_at - time.time()) + 300)
                elapsed = time.time() - t_start
                app_cpu = process_tree_cpu(app.proc.pid) - cpu_start
                harness_cpu = cpu_seconds() - harness_start
                all_cpu = host_cpu() - host_start
                load_end = os.getloadavg()[0]
            finally:
                pool.close()
            rss = app.rss_mb()
            app_alive = app.proc.poll() is None
        finally:
            app.stop()

        # every submission stored and scored exactly once
        after = submission_folders(app.data_dir)
        new = after - before
        ids = [a["submission_id"] for _, a in answers if a.get("submission_id")]
        by_name = {p.name: p for p in new}
        problems = []
        if len(set(ids)) != len(ids):
            problems.append("a submission id was returned twice")
        if set(ids) != set(by_name):
            problems.append(f"{len(new)} new folders for {len(ids)} answers")
        for sid in ids:
            folder = by_name.get(sid)
            n_results = len(list(folder.glob("result-*.json"))) if folder else 0
            if n_results != 1:
                problems.append(f"{sid}: {n_results} result files")
        log_errors = [line for line in app.log_text().splitlines() if "Traceback" in line or " ERROR " in line]

    floods = ", ".join(
        f"{n} {what} loops"
        for n, what in (
            (args.validate_flood, "validate-only"),
            (args.compare_flood, "Compare"),
            (args.tsv_flood, "GET /questions/scb.tsv"),
        )
        if n
    )
    print(
        f"\n### Load test: {args.browsers} browsing + {args.submitters} submitting clients, {seconds:.0f} s "
        + (f"quiet, then {seconds:.0f} s with {floods} " if floods else "")
        + f"(ran {elapsed:.1f} s), think {args.think:.1f} s, {os.cpu_count()} cores"
        + (f", app {args.app_root}" if args.app_root else "")
        + "\n"
    )
    print("| requests | n | p50 ms | p95 ms | max ms |\n|---|---|---|---|---|")
    for phase, phase_rec in recs.items():
        for kind in sorted(phase_rec.latency):
            values = phase_rec.latency[kind]
            print(
                f"| {phase + ': ' if phase else ''}{kind} | {len(values)} | {1000 * statistics.median(values):.0f} | "
                f"{1000 * pct(values, 0.95):.0f} | {1000 * max(values):.0f} |"
            )
    if statuses:
        print("\nvalidate-only answers: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
    rec = Recorder()  # every phase's together, for the checks below
    for phase_rec in recs.values():
        for kind, values in phase_rec.latency.items():
            rec.latency[kind] += values
        rec.errors += phase_rec.errors
    not_requests = ("generator: event-loop lag", "browse: GET / first byte")  # probes, or part of a request
    total = sum(len(v) for kind, v in rec.latency.items() if kind not in not_requests)
    pages = len(rec.latency.get("browse: page with data", []))
    procs = f"{len(pool.procs)} process" + "es" * (len(pool.procs) != 1)
    print(
        f"\n| check | value |\n|---|---|\n| requests completed | {total} |\n| errors | {len(rec.errors)} |\n"
        f"| submissions scored | {len(ids)} (kviscuit {sum(1 for b, _ in answers if b == 'kviscuit')}, "
        f"scb {sum(1 for b, _ in answers if b == 'scb')}) |\n"
        f"| stored and scored exactly once | {'yes' if not problems else 'NO: ' + '; '.join(problems[:5])} |\n"
        f"| tracebacks in the app log | {len(log_errors)} |\n| app RSS at the end | {rss:.0f} MB |\n"
        f"| app alive at the end | {app_alive} |\n| pages served | {pages} |\n"
        f"| page bodies decoded and checked (each distinct body once per process) | {pool.decoded} |\n"
        f"| app CPU (app + its children) | {app_cpu:.1f} s |\n"
        f"| app CPU per page (submissions included) | {1000 * app_cpu / max(pages, 1):.0f} ms |\n"
        f"| load generator CPU: {args.browsers} browsers in {procs} | {pool.cpu:.1f} s |\n"
        f"| load generator CPU: submitters, floods, harness (main process) | {harness_cpu:.1f} s |\n"
        f"| host CPU, every process | {all_cpu:.1f} s of {(os.cpu_count() or 1) * elapsed:.0f} s "
        f"({os.cpu_count()} cores x {elapsed:.0f} s) |\n"
        f"| host CPU used by others (host - app - load generator) | "
        f"{max(0.0, all_cpu - app_cpu - pool.cpu - harness_cpu):.1f} s |\n"
        f"| load average (1 min) at start / end | {load_start:.2f} / {load_end:.2f} |"
    )
    for error in rec.errors[:10]:
        print("error:", error)
    ok = not rec.errors and not problems and app_alive and (ids or not args.submitters)
    print("\nRESULT:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
