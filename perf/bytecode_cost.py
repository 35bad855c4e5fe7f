"""CPU seconds a process the tests start spends compiling the project's own modules when no
bytecode of them exists and ``PYTHONDONTWRITEBYTECODE`` is set (nothing compiled is kept): the app's
imports (``ui.app``, as ``python app.py`` loads them) and the CLI's (``leaderboard.cli``), in two
copies of the project, one precompiled as ``make test`` does first (``compileall``), both in this run.
Installed packages (Gradio, pandas) have their bytecode from pip in both. Medians of ``--runs``.

    .venv/bin/python perf/bytecode_cost.py --runs 7
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("ui", "leaderboard", "submissions", "store", "scoring")
IMPORTS = {
    "app imports": "from ui.gradio_pin import skip_type_stubs; skip_type_stubs(); import ui.app",
    "CLI imports": "import leaderboard.cli",
}
MEASURE = "import json, os; {imports}; t = os.times(); print(json.dumps(t.user + t.system))"


def copy_project(into: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, into / package, ignore=shutil.ignore_patterns("__pycache__"))
    return into


def cpu_of(project: Path, imports: str, runs: int) -> float:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(project)}
    code = MEASURE.format(imports=imports)
    seconds = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        seconds.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        source = copy_project(Path(tmp) / "source")
        compiled = copy_project(Path(tmp) / "compiled")
        subprocess.run([sys.executable, "-m", "compileall", "-q", *PACKAGES], cwd=compiled, check=True)
        for name, imports in IMPORTS.items():
            before, after = cpu_of(source, imports, args.runs), cpu_of(compiled, imports, args.runs)
            print(f"{name}: {before:.2f} s of CPU from source, {after:.2f} s precompiled ({args.runs} runs, medians)")


if __name__ == "__main__":
    main()
