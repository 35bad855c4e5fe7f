"""Start the real app (``python app.py``) as a child process on 127.0.0.1 at a free port.

Shared by the browser tests, the hardening tests and the app benchmarks: start, wait until
it answers, stop, kill -9, restart on the same data folder, its log and its memory.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ADMIN_TOKEN = "hardening-admin-token"
START_TIMEOUT = 300.0
"""Seconds an app may take to answer after it is started: a bound on a hang, not a speed check
(a start took over 120 s at load 15 on 2 cores, with two test workers starting apps at once)."""
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_taken(port: int) -> bool:
    """Whether something else listens on ``port`` now."""
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


class AppServer:
    """One ``python app.py`` process; its stdout and stderr go to ``log`` (appended on restart)."""

    def __init__(self, data_dir: Path, log: Path | None = None, cwd: Path | None = None, **env: str) -> None:
        """``cwd``: run the app there with ``LEADERBOARD_DATA_DIR`` relative to it, as deployed
        (``data`` in the working folder, the default); else in the repo with an absolute path."""
        self.cwd = Path(cwd) if cwd else ROOT
        self.data_dir = self.cwd / data_dir if cwd else Path(data_dir)
        self.data_setting = str(data_dir)
        self.log = log or self.data_dir.parent / "app.log"
        self.env = env
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.url = ""

    def start(self, timeout: float = START_TIMEOUT, port: int | None = None) -> AppServer:
        """``port``: listen there (a test that configures the app's own address needs it first).

        Without one, a free port is picked; under ``make test``'s two workers another process may
        take it before the app binds it, and the app exits: then it starts again on another."""
        for attempt in range(3):
            try:
                return self._start(timeout, port)
            except RuntimeError:
                if port or attempt == 2 or not port_taken(self.port):
                    raise

    def _start(self, timeout: float, port: int | None) -> AppServer:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        environment = {
            **os.environ,
            "GRADIO_SERVER_NAME": "127.0.0.1",
            "GRADIO_SERVER_PORT": str(self.port),
            "GRADIO_ANALYTICS_ENABLED": "False",
            "HF_HUB_OFFLINE": "1",
            "LEADERBOARD_DATA_DIR": self.data_setting,
            "LEADERBOARD_ADMIN_TOKEN": ADMIN_TOKEN,
            "PYTHONUNBUFFERED": "1",
            **self.env,
        }
        for name in ("SPACE_ID", "LEADERBOARD_OAUTH", "LEADERBOARD_GOLD_REPO"):
            if name not in self.env:  # the machine's, not asked for by the test
                environment.pop(name, None)
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as out:  # the child keeps its own descriptor
            self.proc = subprocess.Popen(
                [sys.executable, str(ROOT / "app.py")],
                cwd=self.cwd,
                env=environment,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            self.wait(timeout)
        except Exception:
            self.stop()
            raise
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def wait(self, timeout: float = START_TIMEOUT) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"app exited with {self.proc.returncode}:\n{self.log_text()[-3000:]}")
            try:
                with urllib.request.urlopen(self.url + "/config", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.25)
        raise TimeoutError(f"app did not answer within {timeout}s:\n{self.log_text()[-3000:]}")

    def kill9(self) -> None:
        """SIGKILL: no handler, no cleanup, as a crash or an OOM kill."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def rss_mb(self) -> float:
        """Resident memory of the app process (VmRSS of /proc/PID/status), in MB."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")


def get(url: str, timeout: float = 30) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read()
