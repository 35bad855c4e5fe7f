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
  sends nothing: its cost in the browser is ``perf/view_change.py``'s.
- A submitting client calls ``/submit`` through ``gradio_client`` with its own small valid files
  (K-Viscuit and SCB without grounding, each generated with a distinct seed so no two share a
  hash), ``--think`` seconds between uploads.

Each client's loop is bounded in time (``--seconds``) and in count (``--max-per-client``).
At the end: zero errors, every submission stored and scored exactly once (one result file per
submission folder, no other new folder), and p50/p95/max latencies, as a Markdown table.

    .venv/bin/python perf/load_test.py              # 60 s
    .venv/bin/python perf/load_test.py --quick      # 15 s
    .venv/bin/python perf/load_test.py --quick --rows 1000 --seed-dir /tmp/seed   # 1,000-row boards
    .venv/bin/python perf/load_test.py --quick --app-root /tmp/old               # another checkout's app.py
    .venv/bin/python perf/load_test.py --seconds 20 --submitters 0 --validate-flood 6   # quiet, then a flood
    .venv/bin/python perf/load_test.py --seconds 20 --submitters 0 --compare-flood 20

A flood (``--validate-flood N``: N loops of validate-only on a ~27 MB polygon file, as the
red team's attacks.md #10; ``--compare-flood N``: N loops of a four-model Compare, every
loop its own session) runs after a quiet window of the same length: the same browsers are
measured quiet, then under the flood, and both tables are printed. Locally every client is the
one local account, so the validate-only loops are one account flooding.

Before the clock starts, one page and one submission per benchmark warm the app up (the scoring
worker's start, first renders; ``--no-warmup`` to skip): CPU per page is the steady state, on
every checkout alike. A page with no load event that reaches the server (the baked page) counts as "page with data"
once ``GET /`` has returned with a board in it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
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

from leaderboard import demo  # noqa: E402
from tests.support import app_server  # noqa: E402
from tests.support.app_server import AppServer  # noqa: E402

BOARD_IN_PAGE = b"Showing "  # a board's summary line ("Showing n of m rows")
DATA_IN_PAGE = b'<script type="application/json" id="board-data">'  # the board page's data


class Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: list[str] = []

    def add(self, kind: str, seconds: float) -> None:
        with self.lock:
            self.latency[kind].append(seconds)

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text[:500])


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


class Browser:
    """One simulated visitor: plain HTTP, as the page's JavaScript does it (protocol sse_v3)."""

    def __init__(self, url: str, rec: Recorder, direct: set[int]) -> None:
        self.url, self.rec, self.direct = url, rec, direct
        self.http = httpx.Client(base_url=url, timeout=120)

    def run_events(self, events: list[tuple[int, list]], kind: str, session: str) -> None:
        """Run events in one session (a browser tab): ``queue=False`` ones as direct POSTs,
        the others through the queue and its SSE stream."""
        for fn_index, data in [e for e in events if e[0] in self.direct]:
            t0 = time.perf_counter()
            body = {"data": data, "event_data": None, "fn_index": fn_index, "trigger_id": None, "session_hash": session}
            r = self.http.post("/gradio_api/run/predict", json=body)
            if r.status_code != 200:
                raise RuntimeError(f"run {fn_index}: HTTP {r.status_code} {r.text[:200]}")
            self.rec.add(kind, time.perf_counter() - t0)
        queued = [e for e in events if e[0] not in self.direct]
        if queued:
            self._run_queued(queued, kind, session)

    def _run_queued(self, events: list[tuple[int, list]], kind: str, session: str) -> None:
        started: dict[str, float] = {}
        for fn_index, data in events:
            t0 = time.perf_counter()
            r = self.http.post(
                "/gradio_api/queue/join",
                json={
                    "data": data,
                    "event_data": None,
                    "fn_index": fn_index,
                    "trigger_id": None,
                    "session_hash": session,
                },
            )
            if r.status_code != 200:
                raise RuntimeError(f"join {fn_index}: HTTP {r.status_code} {r.text[:200]}")
            started[r.json()["event_id"]] = t0
        pending = set(started)
        with self.http.stream("GET", "/gradio_api/queue/data", params={"session_hash": session}) as stream:
            if stream.status_code != 200:
                raise RuntimeError(f"queue/data: HTTP {stream.status_code}")
            for line in stream.iter_lines():
                if not line.startswith("data:"):
                    continue
                msg = json.loads(line[5:])
                if msg.get("msg") == "process_completed":
                    event = msg.get("event_id")
                    if not msg.get("success"):
                        raise RuntimeError(f"event failed: {json.dumps(msg)[:300]}")
                    if event in pending:
                        self.rec.add(kind, time.perf_counter() - started[event])
                        pending.discard(event)
                if not pending or msg.get("msg") == "close_stream":
                    break
        if pending:
            raise RuntimeError(f"{len(pending)} event(s) never completed")

    def visit(self, loads, renders) -> None:
        t0 = time.perf_counter()
        r = self.http.get("/")  # httpx asks for gzip, as a browser does
        if r.status_code != 200 or not (b"gradio" in r.content or DATA_IN_PAGE in r.content):
            raise RuntimeError(f"GET /: HTTP {r.status_code}")
        if not loads and BOARD_IN_PAGE not in r.content and DATA_IN_PAGE not in r.content:
            raise RuntimeError("GET /: no load event and no board in the page")  # the data must be in the page
        self.rec.add("browse: GET /", time.perf_counter() - t0)
        session = secrets.token_hex(6)  # one tab: its load events and its view change share a session
        self.run_events(loads, "browse: load event", session)
        self.rec.add("browse: page with data", time.perf_counter() - t0)
        if not renders:  # the board page: a view change is computed in the browser, nothing is sent
            return
        bench = "scb" if secrets.randbelow(2) else "kviscuit"
        t1 = time.perf_counter()
        self.run_events([renders[bench]], "browse: view change", session)
        self.rec.add("browse: view change (total)", time.perf_counter() - t1)


def browse(url: str, loads, renders, direct, rec: Recorder, stop_at: float, max_pages: int, think: float) -> int:
    client = Browser(url, rec, direct)
    pages = 0
    while time.time() < stop_at and pages < max_pages:
        try:
            client.visit(loads, renders)
        except Exception as e:
            rec.error(f"browse: {type(e).__name__}: {e}")
        pages += 1
        time.sleep(think)
    client.http.close()
    return pages


# --------------------------------------------------------------------------- submitting


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
        client = gradio_client.Client(url, verbose=False, httpx_kwargs={"timeout": 120})
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
        client = gradio_client.Client(url, verbose=False, httpx_kwargs={"timeout": 120})
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
        except Exception as e:
            rec.error(f"flood validate-only: {type(e).__name__}: {e}")
    client.close()


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
    session = secrets.token_hex(6)
    body = {"data": ["scb"], "event_data": None, "fn_index": fn_index, "trigger_id": None, "session_hash": session}
    with httpx.Client(base_url=url, timeout=120) as http:
        http.post("/gradio_api/queue/join", json=body).raise_for_status()
        with http.stream("GET", "/gradio_api/queue/data", params={"session_hash": session}) as stream:
            for line in stream.iter_lines():
                msg = json.loads(line[5:]) if line.startswith("data:") else {}
                if msg.get("msg") == "process_completed":
                    choices = msg["output"]["data"][0]["choices"]
                    break
    if len(choices) < n:
        raise RuntimeError(f"Compare offers {len(choices)} SCB rows; the flood needs {n}")
    return [value for _label, value in choices[:n]]


def compare_flood(url, fn_index, row_ids, direct, rec, stop_at) -> None:
    """One loop of four-model Compare calls through the queue, in its own session."""
    client = Browser(url, rec, direct)
    session = secrets.token_hex(6)
    while time.time() < stop_at:
        try:
            client.run_events([(fn_index, ["scb", row_ids])], "flood: compare", session)
        except Exception as e:
            rec.error(f"flood compare: {type(e).__name__}: {e}")
    client.http.close()


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


SUBMISSION_ID = re.compile(r"\d{8}-\d{6}-\w+")


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
    browser.visit(loads, renders)
    browser.run_events(list(renders.values()), "warm-up", secrets.token_hex(6))
    browser.http.close()
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
            **dict(pair.split("=", 1) for pair in args.env),
            LEADERBOARD_MAX_SCORED_PER_DAY="100000",
            LEADERBOARD_MAX_ATTEMPTS_PER_DAY="100000",
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
            phases = [("quiet", []), ("flood", flood)] if flood else [("", [])]
            cpu_start = process_tree_cpu(app.proc.pid)
            t_start = time.time()
            for phase, loops in phases:
                rec = recs[phase] = Recorder()
                stop_at = time.time() + seconds
                threads = [
                    threading.Thread(
                        target=browse,
                        args=(app.url, loads, renders, direct, rec, stop_at, args.max_per_client, args.think),
                    )
                    for _ in range(args.browsers)
                ] + [
                    threading.Thread(
                        target=submit_loop,
                        args=(app.url, golds, files, i, rec, stop_at, args.max_per_client, args.think, answers),
                    )
                    for i in range(args.submitters)
                ]
                threads += [
                    threading.Thread(target=target, args=(*loop_args, rec, stop_at)) for target, loop_args in loops
                ]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join(timeout=seconds + 300)
            elapsed = time.time() - t_start
            app_cpu = process_tree_cpu(app.proc.pid) - cpu_start
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
        for n, what in ((args.validate_flood, "validate-only"), (args.compare_flood, "Compare"))
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
    total = sum(len(v) for v in rec.latency.values())
    pages = len(rec.latency.get("browse: page with data", []))
    print(
        f"\n| check | value |\n|---|---|\n| requests completed | {total} |\n| errors | {len(rec.errors)} |\n"
        f"| submissions scored | {len(ids)} (kviscuit {sum(1 for b, _ in answers if b == 'kviscuit')}, "
        f"scb {sum(1 for b, _ in answers if b == 'scb')}) |\n"
        f"| stored and scored exactly once | {'yes' if not problems else 'NO: ' + '; '.join(problems[:5])} |\n"
        f"| tracebacks in the app log | {len(log_errors)} |\n| app RSS at the end | {rss:.0f} MB |\n"
        f"| app alive at the end | {app_alive} |\n| pages served | {pages} |\n"
        f"| app CPU (app + its children) | {app_cpu:.1f} s |\n"
        f"| app CPU per page (submissions included) | {1000 * app_cpu / max(pages, 1):.0f} ms |"
    )
    for error in rec.errors[:10]:
        print("error:", error)
    ok = not rec.errors and not problems and app_alive and (ids or not args.submitters)
    print("\nRESULT:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
