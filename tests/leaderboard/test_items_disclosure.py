"""Nothing of the item analysis leaves the server (issue 43, item 6): every surface of the disclosure
matrix (the board page and its data, the published results dataset and a reader of it, My
submissions, /my_submissions, /my_result, where a model fails, the team's Compare), the Hub's
.eval_results file and the site export give the same bytes before and after the analysis was
computed, a suspect dismissed and a question reported, for every viewer but a maintainer. The same
output is the strongest test there is: no suspect id, difficulty, share or any number derived from
them can be in it. The Submit answer passes the pipeline's item step unchanged."""

from __future__ import annotations

import json

import pytest

from leaderboard.submitting import AFTER_SCORING, Scored, note_for_item_analysis
from scoring.benchmarks import get_benchmark
from scoring.benchmarks.base import SiteRow
from tests.leaderboard.test_disclosure_matrix import ALICE, BOB, MALLORY, surfaces
from tests.leaderboard.test_disclosure_matrix import world as world  # the matrix's board: a fixture

VIEWERS = {"alice": ALICE, "bob": BOB, "mallory": MALLORY, "visitor": None}


def exports(lb) -> str:
    """The public row's Hub .eval_results and its site export, as the CLI writes them."""
    out = []
    for row in lb.board("scb").rows:
        if row.submission_id and row.figures.get("overall"):
            out.append(lb.visibility.eval_results("scb", row.row_id).text)
            site = SiteRow(model=row.model, model_type=row.model_type, date=row.submitted_at or "", source="x")
            export = get_benchmark("scb").site_export
            out.append(json.dumps(export(row.figures, site), default=str) if export else "")
    return "".join(out)


def test_no_team_or_public_surface_changes_with_the_analysis(world):
    lb, tmp, sentinels = world
    before = {name: surfaces(lb, tmp, viewer, sentinels) for name, viewer in VIEWERS.items()}
    before_exports = exports(lb)
    record = lb.items.compute("scb")
    assert record.submissions >= 2 and any(q["difficulty"] is not None for q in record.questions)
    key = record.questions[0]["question_id"]
    lb.items.dismiss("scb", key, "answer", "maint", "checked: the key is right")
    assert lb.items.report("scb", str(key), "the region looks off", "alice") == ""
    lb.flush()
    for name, viewer in VIEWERS.items():
        after = surfaces(lb, tmp, viewer, sentinels)
        changed = [surface for surface in after if after[surface] != before[name][surface]]
        assert changed == [], f"{name}: the analysis changed {changed}"
    assert exports(lb) == before_exports
    shown = "".join(surfaces(lb, tmp, ALICE, sentinels).values())
    for word in ("difficulty", "discrimination", "suspect", "share_right", "consensus"):
        assert word not in shown


def test_the_submit_answer_passes_the_item_step_unchanged(world):
    lb, *_ = world
    assert any(step.run is note_for_item_analysis for step in AFTER_SCORING)
    state = next(s for s in lb.catalog.all("scb"))
    from submissions.answer import SubmitAnswer
    from submissions.records import Status
    from submissions.request import SubmitRequest
    from tests.support.submissions import form

    answer = SubmitAnswer.of(Status.SCORED, state.meta.id, result=state.newest_result())
    request = SubmitRequest("scb", lb.settings.data_dir / "upload.jsonl", form("m", "t"), ALICE)
    scored = Scored(request, None, answer)
    assert note_for_item_analysis(lb, scored) is answer
    assert "scb" in lb.items._noted  # marked for the background job, nothing computed here


@pytest.mark.parametrize("path", ["items/scb/analysis", "items/reports"])
def test_the_analysis_lives_in_the_private_gold_repo(world, path):
    lb, *_ = world
    lb.items.compute("scb")
    lb.items.report("scb", str(lb.golds.get("scb").keys[1]), "looks wrong", "bob")
    assert any(p.startswith(path) for p in lb.store.list("gold", "items"))
    assert not any("items" in p for p in lb.store.list("results"))
