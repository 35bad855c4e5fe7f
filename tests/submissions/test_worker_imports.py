"""A spawned worker (scoring, checks, model facts) starts as Python's ``spawn`` starts any child:
it runs the parent's main file again under the name ``__mp_main__`` before its first job. For the
Space that file is ``app.py``; whatever it imports at the top, every worker imports too. Before
this test each worker imported Gradio and the whole UI (~2 s of CPU and ~200 MB resident each,
for code it never runs); now ``app.py`` imports them inside ``main()``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

AS_A_WORKER_SEES_IT = """
import runpy, sys
runpy.run_path("app.py", run_name="__mp_main__")  # multiprocessing.spawn's _fixup_main_from_path
heavy = sorted(m for m in ("gradio", "ui", "pandas", "fastapi", "leaderboard.service") if m in sys.modules)
print(",".join(heavy))
"""


def test_a_spawned_worker_imports_nothing_of_the_web_app():
    out = subprocess.run(
        [sys.executable, "-c", AS_A_WORKER_SEES_IT], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "", f"a worker imports {out.stdout.strip()} before its first job"


def test_the_check_sees_what_a_top_level_import_would_bring(tmp_path: Path):
    """Not vacuous: the same run over a main file importing Gradio at its top names it."""
    (tmp_path / "app.py").write_text("import gradio\n")
    out = subprocess.run(
        [sys.executable, "-c", AS_A_WORKER_SEES_IT],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert "gradio" in out.stdout
