"""Scoring in worker processes: the same answers as in process, from niced workers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from leaderboard.service import Leaderboard
from submissions.lifecycle import evaluate
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
    answer = lb.submit("scb", path, form("M-1", "Team A"), ALICE, "sub.jsonl")
    assert answer.status.value == "scored"
    meta = lb.catalog.get(answer.submission_id).meta
    expected = evaluate(meta, lb.golds.get("scb"), path, lb.limits, lb.seeds)  # the board's secret seeds
    assert answer.result.to_dict() == expected.result.to_dict()
    (worker,) = pool._pool._processes.values()
    assert os.getpriority(os.PRIO_PROCESS, worker.pid) >= os.getpriority(os.PRIO_PROCESS, 0) + 5


def test_a_rejection_comes_back_from_the_worker_with_its_issues(lb: Leaderboard, pool, tmp_path: Path):
    lb.intake.evaluator = pool.evaluate
    answer = lb.submit("scb", write_broken(tmp_path / "broken.jsonl"), form(), ALICE, "broken.jsonl")
    assert answer.status.value == "rejected"
    assert answer.issues and all(issue.line > 0 for issue in answer.issues if issue.line)


def test_a_pool_needs_a_worker():
    with pytest.raises(ValueError, match="at least one worker"):
        ScoringPool(workers=0)
