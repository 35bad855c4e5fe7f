"""Start the real app (``python app.py``) as a child process on 127.0.0.1 at a free port.

Shared by the browser tests, the hardening tests and the app benchmarks: start, wait until
it answers, stop, kill -9, restart on the same data folder, its log and its memory.

A first start on a new folder seeds the demo (gold, then every demo team's submission scored):
~10 s of CPU that every app-starting module paid again for the same result. :func:`seeded_copy`
seeds once per test run and seed settings, in a child by ``python -m leaderboard demo`` (the same
``Leaderboard.seed_demo`` as the app's first start), and each new folder starts as a copy of it;
the app then finds a store that is not empty and serves it. ``AppServer(copy_seed=False)`` leaves
the seeding to the app (tests/hardening/test_app_faults.py keeps one such start).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from filelock import FileLock

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
SEEDED_ROOT = Path(tempfile.gettempdir()) / "leaderboard-seeded"
NOT_SEEDING = frozenset(
    {
        "LEADERBOARD_REFRESH_SECONDS",
        "LEADERBOARD_FEEDBACK",
        "LEADERBOARD_LOCAL_USER",
        "LEADERBOARD_ADMIN_TOKEN",
        "GRADIO_TEMP_DIR",
        # the seed submits as a maintainer: no daily or weekly quota applies to it
        "LEADERBOARD_MAX_SCORED_PER_DAY",
        "LEADERBOARD_MAX_ATTEMPTS_PER_DAY",
        "LEADERBOARD_PUBLICATIONS_PER_WEEK",
        "LEADERBOARD_MAINTAINERS",
        # serving only: addresses, sessions, sign-in, proxies, Compare's pool, the publish debounce
        "LEADERBOARD_PUBLIC_URL",
        "LEADERBOARD_SESSION_CAPACITY",
        "LEADERBOARD_SESSION_SECRET",
        "LEADERBOARD_OAUTH",
        "LEADERBOARD_CONTACT",
        "LEADERBOARD_TRUSTED_PROXIES",
        "LEADERBOARD_COMPARE_WORKERS",
        "LEADERBOARD_PUBLISH_SECONDS",
        # the scoring pool's bound: the seed scores in its own process, with no pool
        "LEADERBOARD_JOB_SECONDS",
    }
)
"""Settings the demo seed does not read: apps that differ only in these share one seeded folder.
Checked by seeding with and without them and comparing the stored files and every board's rows
(tests/support/test_seed_key.py). Not LEADERBOARD_MAX_UPLOAD_MB: the seed's polygon file is over 1 MB."""
SEED = ["-m", "leaderboard", "demo"]  # the maintainers' command; Leaderboard.seed_demo, as the app's first start
STALE_RUNS = 6 * 3600  # seconds after which another run's seeded folders are removed


def seeds_demo(env: dict[str, str]) -> bool:
    """Whether an app with ``env`` seeds an empty local folder (app.open_leaderboard's rule)."""
    demo_off = env.get("LEADERBOARD_DEMO", "1").strip().lower() in {"0", "false", "no", "off"}
    on_hub = any(name.startswith("LEADERBOARD_") and name.endswith("_REPO") for name in env)
    return not demo_off and not on_hub and env.get("LEADERBOARD_ROLE", "writer") != "reader"


def _run_folder() -> Path:
    """This test run's seeded folders (pytest-xdist's workers share one run id)."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid{os.getpid()}"
    return SEEDED_ROOT / run


def _remove_stale_runs(keep: Path) -> None:
    for run in SEEDED_ROOT.glob("*"):
        if run != keep and run.is_dir() and time.time() - run.stat().st_mtime > STALE_RUNS:
            shutil.rmtree(run, ignore_errors=True)


def seed_environment(environment: dict[str, str]) -> dict[str, str]:
    """What the seed runs with: ``environment`` without PYTHONPATH unless plugins are named (the path
    they are imported from). The seed runs ``python -m leaderboard demo`` in the repo, the project's
    own code; what a test puts on the app's path for the app alone (a sitecustomize that simulates
    another Gradio, an audit hook, the repo again as README's commands do) would only make one more
    seed of the same demo, ~5 s of CPU each."""
    if environment.get("LEADERBOARD_PLUGINS", "").strip():
        return environment
    return {name: value for name, value in environment.items() if name != "PYTHONPATH"}


def _seed_key(environment: dict[str, str]) -> str:
    """The settings of ``environment`` the seed may read (every LEADERBOARD_* but the folder)."""
    read = {
        name: value
        for name, value in environment.items()
        if (name.startswith("LEADERBOARD_") or name in ("PYTHONPATH", "SHARED_DATA_DIR"))
        and name not in NOT_SEEDING
        and name != "LEADERBOARD_DATA_DIR"
    }
    return hashlib.sha256(json.dumps(read, sort_keys=True).encode()).hexdigest()[:16]


def seeded_copy(environment: dict[str, str], data_dir: Path, setting: str) -> None:
    """Fill the new folder ``data_dir`` with the demo seed the app would write there: seeded once
    per run and seed settings by ``app.open_leaderboard`` in a child with ``environment``; the
    results card names the copy's folder (``setting``), as if seeded there."""
    run = _run_folder()
    environment = seed_environment(environment)
    template = run / _seed_key(environment)
    run.mkdir(parents=True, exist_ok=True)
    with FileLock(str(template) + ".lock"):
        if not template.exists():
            _remove_stale_runs(run)
            building = template.with_name(template.name + ".building")
            shutil.rmtree(building, ignore_errors=True)
            env = {**environment, "LEADERBOARD_DATA_DIR": str(building)}
            done = subprocess.run([sys.executable, *SEED], cwd=ROOT, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"seeding the demo failed ({done.returncode}):\n{done.stderr[-3000:]}")
            building.rename(template)
    shutil.copytree(template, data_dir)
    card = data_dir / "results" / "README.md"
    if card.exists():
        card.write_text(card.read_text().replace(str(template / "results"), str(Path(setting) / "results")))


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

    def __init__(
        self, data_dir: Path, log: Path | None = None, cwd: Path | None = None, copy_seed: bool = True, **env: str
    ) -> None:
        """``cwd``: run the app there with ``LEADERBOARD_DATA_DIR`` relative to it, as deployed
        (``data`` in the working folder, the default); else in the repo with an absolute path."""
        self.cwd = Path(cwd) if cwd else ROOT
        self.data_dir = self.cwd / data_dir if cwd else Path(data_dir)
        self.data_setting = str(data_dir)
        self.log = log or self.data_dir.parent / "app.log"
        self.env = env
        self.copy_seed = copy_seed
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
        new_folder = not self.data_dir.exists() or not any(self.data_dir.iterdir())
        if new_folder and self.copy_seed and seeds_demo(environment):
            if self.data_dir.exists():
                self.data_dir.rmdir()
            seeded_copy(environment, self.data_dir, self.data_setting)
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
