"""CPU seconds the runner spends on the embedded default's SCB questions (3,178, two stages, four
inline option images each) against the toy endpoint, with the app serving the question list and
images: the runner process's own CPU (user and system), the app's CPU meanwhile (what the image
host spends serving the runner), and the runner's wall time. Old and new: point
``--root`` at each checkout (``git worktree add /tmp/old COMMIT``); run it on an idle machine.

    .venv/bin/python perf/runner_cost.py
    .venv/bin/python perf/runner_cost.py --root /tmp/old
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--benchmark", default="scb", choices=["scb", "kviscuit"])
    args = parser.parse_args()
    root = args.root.resolve()
    sys.path.insert(0, str(root))
    from scoring.harness.runner.fake_endpoint import FakeOpenAI
    from tests.support.app_server import AppServer

    folder = Path(tempfile.mkdtemp(prefix="runner-cost-"))
    app = AppServer(folder / "data", log=folder / "app.log").start()
    images = f"{app.url}/questions/{args.benchmark}/images"  # one meaning of images for every benchmark
    try:
        with FakeOpenAI() as model:
            before, started, host_before = os.times(), time.monotonic(), _cpu_seconds(app.proc.pid)
            command = [
                sys.executable, "-m", "scoring.harness.runner", args.benchmark,
                "--questions", f"{app.url}/questions/{args.benchmark}.jsonl", "--images", images, "--inline-images",
                "--base-url", model.base_url, "--model", "toy", "--out", str(folder / "out.jsonl"),
                "--grounding-format", "gemini", "--concurrency", "16", "--no-progress",
            ]  # fmt: skip
            done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=1800)
            wall, after, host = time.monotonic() - started, os.times(), _cpu_seconds(app.proc.pid) - host_before
        if done.returncode != 0:
            raise SystemExit(done.stderr[-2000:])
        user, system = after.children_user - before.children_user, after.children_system - before.children_system
        lines = len((folder / "out.jsonl").read_text().splitlines())
        print(f"{root}: {lines} {args.benchmark} lines, runner {user + system:.1f} s of CPU "
              f"({user:.1f} user, {system:.1f} system), {wall:.1f} s wall; "
              f"the app serving it {host:.1f} s of CPU")  # fmt: skip
    finally:
        app.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _cpu_seconds(pid: int) -> float:
    """A process's CPU time so far, user and system (/proc/PID/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main()
