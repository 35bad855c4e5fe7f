"""CPU seconds of starting the app: ``import gradio`` in a fresh interpreter as Gradio does it and
with :func:`ui.gradio_pin.skip_type_stubs` first (both in this run), and ``python app.py`` from its
start to its first answer on a seeded demo folder (the app process's own CPU, from /proc). Medians
of ``--runs``. Old and new app starts: point ``--root`` at each checkout (``git worktree add
/tmp/old COMMIT``); run it on an idle machine.

    .venv/bin/python perf/app_start.py
    .venv/bin/python perf/app_start.py --root /tmp/old
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

IMPORT = """
import json, os, sys
if sys.argv[1] == "skip":
    from ui.gradio_pin import skip_type_stubs
    skip_type_stubs()
import gradio
times = os.times()
print(json.dumps({"cpu": times.user + times.system}))
"""


def import_cpu(root: Path, mode: str) -> float:
    out = subprocess.run(
        [sys.executable, "-c", IMPORT, mode], cwd=root, capture_output=True, text=True, check=True, timeout=300
    )
    return json.loads(out.stdout.splitlines()[-1])["cpu"]


def process_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime + stime, in clock ticks of 1/100 s


def app_start_cpu(root: Path, runs: int) -> list[float]:
    sys.path.insert(0, str(root))
    from tests.support.app_server import AppServer  # the checkout's own way to start its app

    folder = Path(tempfile.mkdtemp(prefix="app-start-"))
    try:
        starts = []
        for run in range(runs + 1):  # the first start seeds the folder the others copy: not counted
            app = AppServer(folder / f"data{run}", log=folder / f"app{run}.log").start()
            try:
                starts.append(process_cpu(app.pid))
            finally:
                app.stop()
        return starts[1:]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    root = args.root.resolve()
    if (root / "ui" / "gradio_pin.py").read_text().count("def skip_type_stubs"):
        for mode in ("load", "skip"):
            cpu = statistics.median(import_cpu(root, mode) for _ in range(args.runs))
            print(f"import gradio ({'as Gradio does' if mode == 'load' else 'type stubs skipped'}): {cpu:.2f} s of CPU")
    cpu = statistics.median(app_start_cpu(root, args.runs))
    print(f"{root}: python app.py to its first answer {cpu:.2f} s of CPU ({args.runs} runs)")


if __name__ == "__main__":
    main()
