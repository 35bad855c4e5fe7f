"""The staged gold's preview on the Maintainers tab is computed once per staged gold and stored
submissions, kept in the private gold area, and read at render: a render never scores every
submission again (it did, three times per tab view and confirmation: ~80 s of CPU with 1,000
SCB submissions)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from leaderboard.config import UiSettings
from submissions import reading as reading_jobs
from tests.support.submissions import board, small_gold, write_gold, write_submission
from tests.ui.test_submit import submit
from ui.admin import Maintainers, gold_markdown, rescore_plan
from ui.auth import Auth
from ui.submit import Submitter

LOCAL = UiSettings(admin_token="open-sesame")
TEAMS = 3


@pytest.fixture
def evaluations(monkeypatch) -> list[str]:
    """Every stored submission evaluated (from its reading, or read again), by id, in this process:
    the evaluator every rescore, preview and resume calls without a pool."""
    seen: list[str] = []
    evaluate = reading_jobs.evaluate

    def counted(meta, *args, **kwargs):
        seen.append(meta.id)
        return evaluate(meta, *args, **kwargs)

    monkeypatch.setattr(reading_jobs, "evaluate", counted)
    return seen


def _corrected(tmp_path: Path) -> Path:
    """The small gold with three answers changed (the question set stays: no confirmation)."""
    gold = [dict(r) for r in small_gold()]
    for r in gold[:3]:
        r["answer"] = "ABCD"[("ABCD".index(r["answer"]) + 1) % 4]
    return write_gold(tmp_path / "v2.jsonl", gold)


def _submit_teams(lb, tmp_path: Path, n: int = TEAMS, first: int = 0) -> None:
    for i in range(first, first + n):
        path = write_submission(tmp_path / f"s{i}.jsonl", accuracy=0.5 + i / 20, seed=i + 1)
        submit(Submitter(lb, Auth(LOCAL)), path, model=f"Model-{i}", team=f"Team-{i}", visibility="public")


def _preview_block(lb) -> str:
    """The preview's lines exactly as ``gold add`` prints them (computed here, outside the tab)."""
    with tempfile.TemporaryDirectory() as tmp:
        staged = lb.golds.stored_file("scb", lb.corrections.staged_gold("scb").version, Path(tmp))
        lines = lb.corrections.preview_gold("scb", staged).lines()
    return "```\n" + "\n".join(line.replace("`", "'") for line in lines) + "\n```"


def test_rendering_the_tab_scores_no_submission_the_staging_scored_each_once(lb, tmp_path, evaluations):
    _submit_teams(lb, tmp_path)
    evaluations.clear()
    staged = lb.corrections.add_gold("scb", _corrected(tmp_path), "m").version
    assert len(evaluations) <= TEAMS  # staging previews it (whether to confirm): each submission once
    evaluations.clear()
    maintainers = Maintainers(lb, Auth(LOCAL))
    first, again = gold_markdown(lb), gold_markdown(lb)
    plan = rescore_plan(lb)
    assert maintainers.view("open-sesame", None)[-1] == plan
    assert evaluations == []  # two renders, the confirmation and the tab's view: nothing scored again
    assert first == again and _preview_block(lb) in first and "being computed" not in first
    assert f"scb: on the staged gold {staged[:12]}" in plan and "the switch: 0 questions removed, 0 added" in plan


def test_a_restart_reads_the_kept_preview_without_scoring(tmp_path, evaluations):
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))
    _submit_teams(lb, tmp_path)
    lb.corrections.add_gold("scb", _corrected(tmp_path), "m")
    block = _preview_block(lb)
    evaluations.clear()
    restarted = board(tmp_path / "data")  # another process on the same store
    shown = gold_markdown(restarted)
    assert block in shown and "being computed" not in shown and evaluations == []


def test_a_new_submission_makes_the_kept_preview_outdated_and_it_is_computed_off_the_render(lb, tmp_path, evaluations):
    _submit_teams(lb, tmp_path)
    lb.corrections.add_gold("scb", _corrected(tmp_path), "m")
    before = gold_markdown(lb)
    _submit_teams(lb, tmp_path, n=1, first=TEAMS)  # a new row: the kept preview no longer says it
    evaluations.clear()
    outdated = gold_markdown(lb)
    assert "is being computed" in outdated and "Team-3" not in outdated
    assert "Team-0 / Model-0" in before and "Team-0 / Model-0" not in outdated  # no outdated rows shown
    assert "the switch: its preview is being computed" in rescore_plan(lb)
    lb.corrections.preview_jobs.wait(timeout=120)
    assert len(evaluations) <= TEAMS + 1  # the one background job, once for both renders
    evaluations.clear()
    ready = gold_markdown(lb)
    assert evaluations == [] and "being computed" not in ready and _preview_block(lb) in ready
    assert "Team-3 / Model-3" in ready
    assert "rows on the board (paper rows included): " in ready


def test_the_kept_preview_lives_in_the_private_gold_area_only(lb, tmp_path):
    _submit_teams(lb, tmp_path, n=1)
    lb.corrections.add_gold("scb", _corrected(tmp_path), "m")
    assert lb.store.exists("gold", "scb/staged-preview.json")
    public = [p for p in lb.store.list("results", "") if "preview" in p]
    assert public == []


def test_a_gold_staged_with_confirmation_is_previewed_once_in_the_background(lb, tmp_path, evaluations):
    """``update_gold(confirm=True)`` with no preview given (the CLI gives the one it printed)
    stores none: the tab's first view starts one background job, however many views follow."""
    _submit_teams(lb, tmp_path)
    evaluations.clear()
    lb.corrections.add_gold("scb", _corrected(tmp_path), "m", confirm=True)
    assert evaluations == []
    assert "is being computed" in gold_markdown(lb)  # the first view starts the job, and does not wait for it
    rescore_plan(lb), gold_markdown(lb)  # more views while it runs (or after): no second job's scoring
    lb.corrections.preview_jobs.wait(timeout=120)
    assert len(evaluations) <= TEAMS  # one job for every view
    evaluations.clear()
    shown = gold_markdown(lb)
    assert evaluations == [] and _preview_block(lb) in shown


def test_a_corrupt_kept_preview_is_computed_again_not_a_broken_tab(lb, tmp_path):
    _submit_teams(lb, tmp_path, n=1)
    lb.corrections.add_gold("scb", _corrected(tmp_path), "m")
    lb.store.put("gold", {"scb/staged-preview.json": b"{not json"}, "break it", overwrite=True)
    assert "is being computed" in gold_markdown(lb)
    lb.corrections.preview_jobs.wait(timeout=120)
    assert _preview_block(lb) in gold_markdown(lb)


def test_hiding_a_row_makes_the_kept_preview_outdated(lb, tmp_path):
    """The board before and after depends on which rows are hidden: a kept preview is of the
    stored submissions as they were, not of a board a maintainer has changed since."""
    _submit_teams(lb, tmp_path, n=2)
    lb.corrections.add_gold("scb", _corrected(tmp_path), "m")
    assert "Team-1 / Model-1" in gold_markdown(lb)
    hidden = next(s.meta.id for s in lb.catalog.all("scb") if s.meta.team == "Team-1")
    assert lb.moderation.set_hidden(hidden, True, "m", "a test")
    assert "is being computed" in gold_markdown(lb)
    lb.corrections.preview_jobs.wait(timeout=120)
    shown = gold_markdown(lb)
    assert _preview_block(lb) in shown and "being computed" not in shown
