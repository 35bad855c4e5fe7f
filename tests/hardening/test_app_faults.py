"""The app killed with SIGKILL while it scores a submission, then started again on the same
data folder: the submission is finished by the app itself (its ``resume`` job runs 10 s after
start, again every 10 s until it has had a complete copy, then every 5 minutes:
``ui.jobs.start_jobs``) with exactly one result, and the restarted app serves the board.

Scoring is made slow without touching the app: a full-size SCB file with polygon groundings
takes about a second to validate and score, and the test kills the process as soon as the
submission's raw file and meta record are in the data folder but no result is.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from submissions.records import Status
from tests.support import demo
from tests.support.app_server import AppServer, get

gradio_client = pytest.importorskip("gradio_client")

MODEL = "Crash-Test-Polygons"
RESUME_WITHIN = (
    240  # s after the restarted app answers: a hang guard under pytest's 600 s (resume first runs 10 s after start)
)
JOB_SECONDS = "600"  # the niced scoring worker, starved on a loaded host, is not the bound under test here


def submission_dirs(data_dir: Path) -> set[Path]:
    root = data_dir / "submissions" / "scb"
    return {meta.parent for meta in root.rglob("meta.json")}  # under the day shards


def results(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("result-*.json"))


def submit_in_background(url: str, path: Path, answers: list) -> threading.Thread:
    def run() -> None:
        try:
            client = gradio_client.Client(url, verbose=False)
            answers.append(
                client.predict(
                    "scb",
                    gradio_client.handle_file(str(path)),
                    MODEL,
                    "Crash team",
                    "open",
                    "xyxy",
                    "",
                    "",
                    "",
                    visibility="public",  # new submissions are private unless asked (docs/teams.md)
                    api_name="/submit",
                )  # fmt: skip
            )
        except Exception as e:  # the server died under the call: expected
            answers.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def kill_while_scoring(app: AppServer, path: Path, timeout: float = 300) -> Path | None:
    """Submit ``path`` and SIGKILL the app once raw + meta are stored and no result is.
    Returns the submission folder, or None if scoring won the race (result already there).
    ``timeout`` bounds a hang only: at load 18 on 2 cores the files took more than 60 s to land."""
    before = submission_dirs(app.data_dir)
    answers: list = []
    thread = submit_in_background(app.url, path, answers)
    deadline = time.time() + timeout
    while time.time() < deadline:
        for folder in submission_dirs(app.data_dir) - before:
            names = set(os.listdir(folder))
            if {"submission.jsonl", "meta.json"} <= names:
                app.kill9()
                thread.join(timeout=30)
                return None if results(folder) else folder
        time.sleep(0.002)
    raise TimeoutError(f"the submission never reached the data folder: {answers}")


@pytest.fixture(scope="module")
def polygons(tmp_path_factory):
    gold = demo.scb_gold(0)  # what seed_demo loads
    path = tmp_path_factory.mktemp("faults") / "polygons.jsonl"
    return demo.write_jsonl(path, demo.scb_submission(gold, 0.77, "polygon", seed=2024))


def test_kill9_while_scoring_then_restart_finishes_the_submission_once(tmp_path, polygons):
    app = AppServer(
        tmp_path / "data",
        LEADERBOARD_MAX_SCORED_PER_DAY="50",
        LEADERBOARD_MAX_ATTEMPTS_PER_DAY="100",
        LEADERBOARD_JOB_SECONDS=JOB_SECONDS,
    )
    app.start()
    try:
        folder = kill_while_scoring(app, polygons)
        assert folder is not None, "scoring finished before the kill: the file is too small for this machine"
        assert app.proc.returncode == -9
        assert results(folder) == []
        meta = json.loads((folder / "meta.json").read_text())
        assert meta["model"] == MODEL
        assert (folder / "submission.jsonl").read_bytes() == polygons.read_bytes()  # stored whole

        app.start()  # same data folder, a new process and port
        restarted = time.time()  # answering: its resume job is due 10 s after its start
        status, page = get(app.url + "/")
        assert status == 200 and b"Cultural VLM Leaderboard" in page
        assert get(app.url + "/config")[0] == 200

        deadline = restarted + RESUME_WITHIN
        while time.time() < deadline and not results(folder):
            time.sleep(0.25)
        took = time.time() - restarted
        assert results(folder), f"not scored {RESUME_WITHIN} s after the restart:\n{app.log_text()[-3000:]}"
        time.sleep(2)  # let any second writer show itself
        assert len(results(folder)) == 1, results(folder)
        assert not list(folder.glob("failure-*.json")) and not list(folder.glob("rejected-*.json"))
        assert app.proc.poll() is None  # still serving
        assert get(app.url + "/")[0] == 200

        lb = Leaderboard(Settings(data_dir=app.data_dir, demo=False))  # what the store says now
        state = lb.catalog.get(folder.name)
        assert lb.submissions.status(state) is Status.SCORED
        assert any(row.model == MODEL for row in lb.board("scb").rows)
        public = (app.data_dir / "results" / "data" / "scb.csv").read_text()
        assert MODEL in public  # the resume republished the public table
        print(f"resumed and scored {took:.1f} s after the restart")
    finally:
        app.stop()


def test_restart_after_kill9_of_an_idle_app_serves_the_same_board(tmp_path):
    app = AppServer(tmp_path / "data", copy_seed=False)  # the app seeds its empty folder itself, as deployed
    app.start()
    try:
        public = app.data_dir / "results" / "data"
        before = {p.name: p.read_bytes() for p in public.iterdir()}
        app.kill9()
        app.start()
        assert get(app.url + "/")[0] == 200
        assert "/submit" in json.loads(get(app.url + "/gradio_api/info")[1])["named_endpoints"]
        assert {p.name: p.read_bytes() for p in public.iterdir()} == before  # nothing lost, nothing re-seeded
        lb = Leaderboard(Settings(data_dir=app.data_dir, demo=False))
        assert len(lb.catalog.all("scb")) == len([t for t in demo.DEMO_TEAMS if t.benchmark == "scb"])  # no re-seed
    finally:
        app.stop()
