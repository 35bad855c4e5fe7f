"""A row's descriptive fields corrected by its team without a new scored file (issue 44): the board,
the results dataset and the model's Hub file take the new values, a new Hub repo is checked and its
facts read as at submission, every correction is a stored event (who, when, before and after) that a
new replica reads back, no figure changes, and nobody else may correct the row."""

from __future__ import annotations

import pandas as pd
import pytest

from leaderboard.entries import history
from store import layout
from submissions.catalog import Catalog
from submissions.model_hub import Lookup, ModelFacts
from submissions.records import Identity
from submissions.request import SubmitRequest
from tests.support.submissions import ALICE, board, form, write_gold, write_submission

FACTS = ModelFacts("0123456789abcdef0123456789abcdef01234567", 7_615_616_512, "apache-2.0", "Qwen2VL", "")
MALLORY = Identity("mallory")


def look_up(repo: str) -> Lookup:
    if repo == "lab/model-7b":
        return Lookup(FACTS)
    from submissions.model_hub import _refused

    return _refused(repo)


@pytest.fixture()
def world(tmp_path):
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"), publish_seconds=0)
    lb.intake.model_facts = look_up
    path = write_submission(tmp_path / "s.jsonl", accuracy=0.7, grounding="bbox_good", seed=1)
    answer = lb.submissions.submit(
        SubmitRequest("scb", path, form("AliceNet", "Alice Lab", visibility="public"), ALICE)
    )
    assert answer.result is not None
    return lb, answer.submission_id


def public_csv(lb, row_id: str) -> pd.Series:
    table = pd.read_csv(lb.settings.data_dir / "results" / layout.public_table("scb", "csv"), keep_default_na=False)
    return table.loc[table["row_id"] == row_id].iloc[0]


def row_of(lb, sid: str):
    return next(r for r in lb.board("scb").rows if r.submission_id == sid)


def test_a_team_corrects_its_rows_links_and_hub_repo(world):
    lb, sid = world
    figures = row_of(lb, sid).figures
    assert lb.visibility.eval_results("scb", sid).model_repo == ""  # no repo: no Hub pull request possible
    message = lb.descriptions.correct(
        ALICE, sid, {"model_repo": "lab/model-7b", "paper_url": "https://arxiv.org/abs/2501.00001"}
    )
    assert "model_repo: (empty) -> lab/model-7b" in message and "No figure changed" in message
    row = row_of(lb, sid)
    assert row.value("model_repo") == "lab/model-7b" and row.paper_url == "https://arxiv.org/abs/2501.00001"
    assert row.value("model_sha") == FACTS.sha and row.value("model_params") == str(FACTS.params)
    assert row.figures == figures  # nothing scored changed
    csv = public_csv(lb, row.row_id)
    assert csv["model_repo"] == "lab/model-7b" and csv["model_license"] == "apache-2.0"
    assert lb.visibility.eval_results("scb", sid).model_repo == "lab/model-7b"  # its PR can now be opened
    # the row's history: who, when, each field before and after; a new replica reads the same
    (event,) = history(lb.catalog.get(sid))
    assert event["by"] == "alice" and event["at"]
    changed = {c["field"]: (c["before"], c["after"]) for c in event["changes"]}
    assert changed["model_repo"] == ("", "lab/model-7b") and changed["model_license"] == ("", "apache-2.0")
    again = Catalog(lb.store)
    again.refresh()
    assert again.get(sid).meta == lb.catalog.get(sid).meta and again.get(sid).as_submitted.paper_url == ""


def test_a_new_repo_is_checked_as_at_submission_and_stated_facts_need_no_repo(world):
    lb, sid = world
    before = lb.store.list("submissions")
    with pytest.raises(ValueError, match="not a public model"):
        lb.descriptions.correct(ALICE, sid, {"model_repo": "lab/gone"})
    with pytest.raises(ValueError, match="bad_url|http"):
        lb.descriptions.correct(ALICE, sid, {"code_url": "javascript:alert(1)"})
    with pytest.raises(ValueError, match="cannot be corrected here"):
        lb.descriptions.correct(ALICE, sid, {"model": "Renamed"})
    with pytest.raises(ValueError, match="whole number"):
        lb.descriptions.correct(ALICE, sid, {"model_params": "7B"})
    assert lb.store.list("submissions") == before  # nothing stored for a refused correction
    lb.descriptions.correct(ALICE, sid, {"model_license": "proprietary", "model_params": "8000000000"})
    row = row_of(lb, sid)
    assert row.value("model_license") == "proprietary" and row.value("model_params") == "8000000000"
    lb.descriptions.correct(ALICE, sid, {"model_repo": "lab/model-7b"})  # the Hub's facts replace the stated ones
    assert row_of(lb, sid).value("model_license") == "apache-2.0"
    with pytest.raises(ValueError, match="come from the Hub repo"):
        lb.descriptions.correct(ALICE, sid, {"model_license": "mit"})
    assert len(history(lb.catalog.get(sid))) == 2
    assert "Nothing to change" in lb.descriptions.correct(ALICE, sid, {"model_repo": "lab/model-7b"})


def test_nobody_else_corrects_a_row(world):
    lb, sid = world
    for stranger in (MALLORY, Identity("alice2")):
        with pytest.raises(PermissionError, match="of yours"):
            lb.descriptions.correct(stranger, sid, {"paper_url": "https://evil.example/"})
    assert row_of(lb, sid).paper_url == ""
    maintainer = Identity("maint", is_maintainer=True)
    lb.descriptions.correct(maintainer, sid, {"description": "fixed by a maintainer"})
    (event,) = history(lb.catalog.get(sid))
    assert event["maintainer"] is True and event["by"] == "maint"
