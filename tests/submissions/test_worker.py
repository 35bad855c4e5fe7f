"""Scoring in worker processes: the same answers as in process, from niced workers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from leaderboard.service import Leaderboard
from submissions.lifecycle import evaluate
from submissions.reading import Source
from submissions.request import SubmitRequest
from submissions.worker import ScoringPool
from tests.support.submissions import ALICE, form, write_broken, write_submission


@pytest.fixture(scope="module")
def pool():
    scoring_pool = ScoringPool(workers=1, nice=5)
    yield scoring_pool
    scoring_pool.close()


def test_the_pool_scores_in_a_niced_worker_with_the_in_process_figures(lb: Leaderboard, pool, tmp_path: Path):
    lb.intake.evaluator = pool.evaluate
    path = write_submission(tmp_path / "sub.jsonl", accuracy=0.6, grounding="bbox_good", seed=3)
    answer = lb.submissions.submit(SubmitRequest("scb", path, form("M-1", "Team A"), ALICE, "sub.jsonl"))
    assert answer.status.value == "scored"
    meta = lb.catalog.get(answer.submission_id).meta
    expected = evaluate(meta, lb.golds.get("scb"), path, lb.limits, lb.seeds)  # the board's secret seeds
    assert answer.result.to_dict() == expected.result.to_dict()
    (worker,) = pool.pids()
    assert os.getpriority(os.PRIO_PROCESS, worker) >= os.getpriority(os.PRIO_PROCESS, 0) + 5


def test_a_rejection_comes_back_from_the_worker_with_its_issues(lb: Leaderboard, pool, tmp_path: Path):
    lb.intake.evaluator = pool.evaluate
    answer = lb.submissions.submit(
        SubmitRequest("scb", write_broken(tmp_path / "broken.jsonl"), form(), ALICE, "broken.jsonl")
    )
    assert answer.status.value == "rejected"
    assert answer.issues and all(issue.line > 0 for issue in answer.issues if issue.line)


def test_the_worker_takes_the_retired_questions_a_new_gold_brings(lb: Leaderboard, pool, tmp_path: Path):
    """A gold's set of retired questions grows when another gold is added (issue 29): the worker
    must not keep scoring with the set it was first sent under the same version."""
    import dataclasses
    import json

    gold = lb.golds.get("scb")
    meta = lb.catalog.get(
        lb.submissions.submit(SubmitRequest("scb", write_submission(tmp_path / "a.jsonl"), form(), ALICE)).submission_id
    ).meta
    lines = [json.dumps({"question_id": "scb-99999", "answer": "A"})]
    lines += [json.dumps({"question_id": key, "answer": "A"}) for key in gold.keys]
    raw = ("\n".join(lines) + "\n").encode()
    before = dataclasses.replace(gold, retired=frozenset())
    assert pool.evaluate(meta, before, Source(raw=raw), lb.limits).answer.status.value == "rejected"
    after = dataclasses.replace(gold, retired=frozenset({"scb-99999"}))
    evaluated = pool.evaluate(meta, after, Source(raw=raw), lb.limits)
    assert evaluated.answer.status.value == "scored" and evaluated.answer.result.counts["set_aside"] == 1
    again = pool.evaluate(meta, after, Source(reading=evaluated.reading), lb.limits)  # its reading, kept
    assert again.answer.result.to_dict() == evaluated.answer.result.to_dict() and again.reading is None


def test_a_pool_needs_a_worker():
    with pytest.raises(ValueError, match="at least one worker"):
        ScoringPool(workers=0)


ORPHAN_SCRIPT = """
import os, sys, time
sys.path.insert(0, {root!r})
from submissions.worker import ScoringPool
pool = ScoringPool(workers=1, nice=0)
print(pool.pids()[0], flush=True)  # the worker's pid, once it runs
time.sleep(600)
"""


def _running(pid: int) -> bool:
    """Alive and not a zombie waiting for init to reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
def test_a_worker_ends_when_its_parent_is_killed():
    """kill -9 of the app must not leave its scoring workers running (each holds a gold)."""
    import signal
    import subprocess
    import sys
    import time

    root = str(Path(__file__).resolve().parents[2])
    app = subprocess.Popen([sys.executable, "-c", ORPHAN_SCRIPT.format(root=root)], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(app.stdout.readline())
        assert _running(worker)
        os.kill(app.pid, signal.SIGKILL)
        app.wait(10)
        deadline = time.monotonic() + 15
        while _running(worker) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _running(worker), f"worker {worker} still runs after its parent was killed"
    finally:
        app.kill()
        app.stdout.close()
