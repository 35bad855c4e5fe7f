"""An honest visitor's Compare under a Compare flood: does it wait for the flooding client?

The app runs as a child process on a fresh demo data folder. ``--flood N`` loops of a
four-model Compare come from 127.0.0.1, each its own session, as fast as answers come back; one
honest visitor, from another address (127.0.0.2: the app tells visitors apart by address when
no one is signed in), asks for a two-model Compare every ``--every`` seconds. For the honest
visitor: its latency quiet (the flood not started) and under the flood, and what it got; for the
flood: calls served and refused as busy. Before both, ``--sequential`` one-at-a-time calls give
the web process's CPU per Compare event (the worker's is not in it).

    .venv/bin/python perf/compare_turns.py                      # this checkout, 15 s quiet + 15 s flooded
    .venv/bin/python perf/compare_turns.py --app-root /tmp/old  # another checkout, same harness
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support import app_server  # noqa: E402
from tests.support.app_server import AppServer  # noqa: E402

FLOODER, HONEST = "127.0.0.1", "127.0.0.2"
DOOR = "refused at the door"
SEQUENTIAL_ADDRESSES = 50


def event_of(config: dict, elem_id: str, trigger: str) -> int:
    ids = {c["id"] for c in config["components"] if c.get("props", {}).get("elem_id") == elem_id}
    for i, dep in enumerate(config["dependencies"]):
        if any(t[0] in ids and t[1] == trigger for t in dep.get("targets", [])) and dep.get("backend_fn", True):
            return dep.get("id", i)
    raise LookupError(elem_id)


def call(http: httpx.Client, fn: int, data: list) -> object:
    """One event through Gradio's queue in a new session, as the page sends it; its first output."""
    session = secrets.token_hex(6)
    body = {"data": data, "event_data": None, "fn_index": fn, "trigger_id": None, "session_hash": session}
    joined = http.post("/gradio_api/queue/join", json=body)
    if joined.status_code == 429:  # refused before Gradio's queue (ui/compare_door.py)
        return DOOR
    joined.raise_for_status()
    with http.stream("GET", "/gradio_api/queue/data", params={"session_hash": session}) as stream:
        for line in stream.iter_lines():
            msg = json.loads(line[5:]) if line.startswith("data:") else {}
            if msg.get("msg") == "process_completed":
                if not msg.get("success"):
                    raise RuntimeError(str(msg)[:300])
                return msg["output"]["data"][0]
    raise RuntimeError("no process_completed message")


def client(url: str, address: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=120, transport=httpx.HTTPTransport(local_address=address))


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process so far (/proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def outcome(html: str) -> str:
    if html == DOOR:
        return "door"
    return "table" if "<table" in html else ("busy" if "Busy" in html else "other")


def honest_loop(url, fn, rows, every, stop_at, out: list) -> None:
    with client(url, HONEST) as http:
        while time.time() < stop_at:
            t0 = time.perf_counter()
            got = outcome(call(http, fn, ["scb", rows[:2]]))
            out.append((1000 * (time.perf_counter() - t0), got))
            time.sleep(max(0.0, every - (time.perf_counter() - t0)))


def flood_loop(url, fn, rows, stop_at, counts: Counter) -> None:
    with client(url, FLOODER) as http:
        while time.time() < stop_at:
            try:
                counts[outcome(call(http, fn, ["scb", rows]))] += 1
            except Exception as e:  # noqa: BLE001 - counted, the run goes on
                counts[f"error {type(e).__name__}"] += 1


def summary(samples: list[tuple[float, str]]) -> str:
    ms = sorted(m for m, _ in samples)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    got = Counter(g for _, g in samples)
    return f"{len(ms)} | {statistics.median(ms):.0f} | {p95:.0f} | {max(ms):.0f} | " + ", ".join(
        f"{n} {g}" for g, n in sorted(got.items())
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15, help="length of the quiet and of the flooded window")
    parser.add_argument("--flood", type=int, default=20, help="Compare loops from the flooding address")
    parser.add_argument("--every", type=float, default=0.5, help="seconds between the honest visitor's Compares")
    parser.add_argument("--sequential", type=int, default=100, help="one-at-a-time calls measuring CPU per call")
    parser.add_argument("--app-root", type=Path, help="run app.py of this checkout (e.g. an old commit)")
    args = parser.parse_args(argv)
    if args.app_root:
        app_server.ROOT = args.app_root.resolve()
    with tempfile.TemporaryDirectory(prefix="compare-turns-") as tmp:
        app = AppServer(Path(tmp) / "data").start()
        try:
            config = httpx.get(app.url + "/config", timeout=30).json()
            compare, choices = event_of(config, "cmp-btn", "click"), event_of(config, "cmp-bench", "input")
            with client(app.url, HONEST) as http:
                rows = [value for _label, value in call(http, choices, ["scb"])["choices"][:4]]
                call(http, compare, ["scb", rows[:2]])  # warm up: the worker's first call
            # each from its own address (127.0.1.x), so a visitor's bound at the door does not pick what is measured
            https = [client(app.url, f"127.0.1.{i + 1}") for i in range(SEQUENTIAL_ADDRESSES)]
            try:
                cpu0 = cpu_seconds(app.pid)
                sequential = Counter(
                    outcome(call(https[i % len(https)], compare, ["scb", rows])) for i in range(args.sequential)
                )
                per_call = 1000 * (cpu_seconds(app.pid) - cpu0) / args.sequential
            finally:
                for http in https:
                    http.close()
            quiet: list = []
            honest_loop(app.url, compare, rows, args.every, time.time() + args.seconds, quiet)
            cpu0 = cpu_seconds(app.pid)
            flooded: list = []
            counts: Counter = Counter()
            stop_at = time.time() + args.seconds
            threads = [threading.Thread(target=flood_loop, args=(app.url, compare, rows, stop_at, counts))
                       for _ in range(args.flood)]  # fmt: skip
            for thread in threads:
                thread.start()
            honest_loop(app.url, compare, rows, args.every, stop_at, flooded)
            for thread in threads:
                thread.join()
            flood_cpu = cpu_seconds(app.pid) - cpu0
        finally:
            app.stop()
    root = args.app_root or "this checkout"
    print(f"\n### Compare turns ({root}): honest visitor every {args.every} s, {args.flood} flood loops, "
          f"{args.seconds:.0f} s each window\n")  # fmt: skip
    print("| honest visitor | n | p50 ms | p95 ms | max ms | got |\n|---|---|---|---|---|---|")
    print(f"| quiet | {summary(quiet)} |\n| under the flood | {summary(flooded)} |")
    print(f"\nflood calls in {args.seconds:.0f} s: " + ", ".join(f"{n} {g}" for g, n in sorted(counts.items())))
    print(f"web process CPU: {per_call:.1f} ms per four-model Compare event, one at a time "
          f"({', '.join(f'{n} {g}' for g, n in sorted(sequential.items()))}); "
          f"{flood_cpu:.1f} s in the flooded window")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
