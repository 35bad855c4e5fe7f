"""Reliability: 20 submissions at once (threads in one app, separate processes on one data
folder) are all stored, scored and shown; a process killed while scoring loses nothing and
scores nothing twice once the board restarts."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from pathlib import Path

from leaderboard.service import Leaderboard
from scoring import SCORER_VERSION
from store import layout
from submissions import lifecycle
from submissions.records import Identity, Status
from submissions.request import SubmitRequest
from tests.support.submissions import (
    board,
    files_of,
    form,
    scored,
    settings,
    submission_ids,
    write_gold,
    write_submission,
)
from tests.support.threads import run_together

N = 20


def _files(tmp: Path) -> list[Path]:
    return [write_submission(tmp / f"sub-{i:02d}.jsonl", accuracy=0.3 + 0.02 * i, seed=i) for i in range(N)]


def _check_all_in(data_dir: Path, outcomes: list[tuple[str, str]]) -> None:
    """20 stored, 20 results, 20 rows: checked on a fresh board reading the folder."""
    assert sorted(s for s, _ in outcomes) == ["scored"] * N
    lb = Leaderboard(settings(data_dir))
    ids = submission_ids(lb.store)
    assert sorted(sid for _, sid in outcomes) == ids and len(ids) == N
    gold = lb.gold_info("scb").version
    for sid in ids:
        assert files_of(lb.store, "scb", sid, "result-") == [
            layout.result("scb", sid, gold, SCORER_VERSION).rsplit("/")[-1]
        ]
        assert lb.submissions.status(lb.catalog.get(sid)) is Status.SCORED
    rows = scored(lb)
    assert sorted(rows["model"]) == sorted(f"model-{i:02d}" for i in range(N))
    assert not rows.duplicated(["team", "model"]).any()
    assert lb.corrections.resume() == 0


def test_twenty_threads_at_once(tmp_path: Path) -> None:
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))
    paths = _files(tmp_path)

    def one(i: int) -> tuple[str, str | None]:
        out = lb.submissions.submit(
            SubmitRequest("scb", paths[i], form(f"model-{i:02d}", f"team-{i:02d}"), Identity(f"user-{i:02d}"))
        )
        return out.status.value, out.submission_id

    outcomes, errors = run_together(N, one)
    assert errors == []
    assert len(scored(lb)) == N  # the serving board itself, without a refresh
    _check_all_in(tmp_path / "data", outcomes)


def _child_submit(data_dir: str, path: str, i: int, barrier, results) -> None:
    lb = Leaderboard(settings(Path(data_dir)))
    barrier.wait()
    out = lb.submissions.submit(
        SubmitRequest("scb", Path(path), form(f"model-{i:02d}", f"team-{i:02d}"), Identity(f"user-{i:02d}"))
    )
    results.put((out.status.value, out.submission_id))


def test_twenty_processes_at_once(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    board(data_dir, write_gold(tmp_path / "gold.jsonl"))
    paths = _files(tmp_path)
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(N), ctx.Queue()
    procs = [
        ctx.Process(target=_child_submit, args=(str(data_dir), str(paths[i]), i, barrier, results)) for i in range(N)
    ]
    for p in procs:
        p.start()
    outcomes = [results.get(timeout=500) for _ in range(N)]  # a hang guard, under pytest's 600 s timeout
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0] * N
    _check_all_in(data_dir, outcomes)


def _child_hang_while_scoring(data_dir: str, path: str, scoring) -> None:
    def stuck(*args, **kwargs):
        scoring.set()
        time.sleep(600)

    lifecycle.record = stuck  # stored and read (one durable write), it hangs recording its outcome until killed
    lb = Leaderboard(settings(Path(data_dir)))
    lb.submissions.submit(SubmitRequest("scb", Path(path), form("killed-model", "team"), Identity("victim")))


def test_process_killed_while_scoring_is_scored_exactly_once_on_restart(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    lb = board(data_dir, write_gold(tmp_path / "gold.jsonl"))
    path = write_submission(tmp_path / "s.jsonl", accuracy=0.55)
    ctx = multiprocessing.get_context("spawn")
    scoring = ctx.Event()
    child = ctx.Process(target=_child_hang_while_scoring, args=(str(data_dir), str(path), scoring))
    child.start()
    try:
        assert scoring.wait(60), "the child never started scoring"
        [sid] = submission_ids(lb.store)
        stored = files_of(lb.store, "scb", sid)
        assert [f.split("-")[0] for f in stored] == ["meta.json", "reading", "submission.jsonl"]  # not scored
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.join(30)
    assert child.exitcode == -signal.SIGKILL
    restarted = Leaderboard(settings(data_dir))
    assert restarted.submissions.status(restarted.catalog.get(sid)) is Status.RECEIVED
    assert restarted.corrections.resume() == 1
    assert restarted.corrections.resume() == 0  # finished: a second restart scores nothing again
    assert len(files_of(restarted.store, "scb", sid, "result-")) == 1
    assert files_of(restarted.store, "scb", sid, "failure-") == []
    assert list(scored(restarted)["model"]) == ["killed-model"]
    assert Leaderboard(settings(data_dir)).corrections.resume() == 0
    assert submission_ids(restarted.store) == [sid]  # not lost, not duplicated
