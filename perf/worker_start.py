"""What a spawned worker (scoring, checks, model facts) costs before its first job: Python's
``spawn`` runs the parent's main file (``app.py``) again as ``__mp_main__``, then unpickles the
worker's start function (``submissions.worker``). CPU seconds and peak resident memory of that, in
a fresh interpreter, the median of ``--runs``. Old and new: point ``--root`` at each checkout
(``git worktree add /tmp/old COMMIT``).

    .venv/bin/python perf/worker_start.py
    .venv/bin/python perf/worker_start.py --root /tmp/old
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

AS_SPAWN_DOES = """
import json, resource, runpy
runpy.run_path("app.py", run_name="__mp_main__")
import submissions.worker
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"cpu": usage.ru_utime + usage.ru_stime, "peak_kib": usage.ru_maxrss}))
"""


def one_start(root: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", AS_SPAWN_DOES],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(out.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    starts = [one_start(args.root.resolve()) for _ in range(args.runs)]
    cpu = statistics.median(s["cpu"] for s in starts)
    peak = statistics.median(s["peak_kib"] for s in starts) / 1024
    where = args.root.resolve()
    print(f"{where}: a worker's start {cpu:.2f} s of CPU, {peak:.0f} MiB peak resident ({args.runs} runs)")


if __name__ == "__main__":
    main()
