"""The runner's last line is a command a team copies: run as printed, it must work, also when the
question list was read from the site's URL (issue 28: ``--questions http://...`` collapsed to
``http:/...`` and failed with "No such file or directory")."""

from __future__ import annotations

import functools
import os
import shlex
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from scoring.harness.runner.cli import main
from scoring.harness.runner.fake_endpoint import FakeOpenAI

REPO = Path(__file__).resolve().parents[2]


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def test_the_printed_next_command_runs_on_a_list_read_from_a_url(scb_case, tmp_path, capsys):
    _, questions, images, _ = scb_case
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(questions.parent)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    site = f"http://127.0.0.1:{server.server_address[1]}"
    out = tmp_path / "scb.jsonl"
    try:
        with FakeOpenAI() as fake:
            code = main(
                ["scb", "--questions", f"{site}/{questions.name}", "--images", f"{site}/{images.name}/"]
                + ["--base-url", fake.base_url, "--model", "toy", "--out", str(out), "--no-progress"]
            )
        assert code == 0
        printed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("next: ")]
        assert len(printed) == 1 and f"--questions {site}/" in printed[0]
        command = shlex.split(printed[0].removeprefix("next: "))
        assert command[:3] == ["python", "-m", "scoring"]
        run = subprocess.run(
            [sys.executable, *command[1:]], capture_output=True, text=True, timeout=180, cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )  # fmt: skip
    finally:
        server.shutdown()
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("valid: the file answers 16 of 16 questions"), run.stdout
