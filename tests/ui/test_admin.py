"""ui.admin: the Maintainers tab opens with the token or a maintainer account, and every
action checks again; hiding takes a row off the board."""

from __future__ import annotations

import gradio as gr
import pytest

from leaderboard.config import UiSettings
from tests.support.submissions import write_broken, write_submission
from tests.ui.fakes import Profile
from tests.ui.test_submit import submit
from ui.admin import Maintainers, rescore_markdown
from ui.auth import Auth
from ui.submit import Submitter

LOCAL = UiSettings(admin_token="open-sesame")


def test_unlock_with_the_token_or_a_maintainer_account(lb):
    ok, panel, message, gold, picker, rejected = Maintainers(lb, Auth(LOCAL)).unlock("open-sesame", None)
    assert ok and panel.visible and message == "Unlocked for this session."
    assert "| scb | `" in gold and "| kviscuit | none |" in gold and list(rejected.columns)[0] == "id"
    ok, panel, message, *rest = Maintainers(lb, Auth(LOCAL)).unlock("guess", None)
    assert not ok and not panel.visible and message == "Wrong token (or not a maintainer)."
    assert all(isinstance(r, type(gr.skip())) for r in rest)
    on_space = Auth(UiSettings(oauth=True, maintainers=("boss",)))
    assert Maintainers(lb, on_space).unlock("", Profile("boss"))[0]
    assert not Maintainers(lb, on_space).unlock("", Profile("eve"))[0]


def test_every_action_checks_again(lb):
    maintainers = Maintainers(lb, Auth(LOCAL))
    with pytest.raises(gr.Error):
        maintainers.rescore(False, None, lambda *a, **k: None)
    with pytest.raises(gr.Error):
        maintainers.hide("any", False, None)
    assert all(isinstance(r, type(gr.skip())) for r in maintainers.view(False, None))


def test_hide_and_unhide_a_submission(lb, tmp_path):
    path = write_submission(tmp_path / "s.jsonl", accuracy=0.8)
    answer = submit(Submitter(lb, Auth(LOCAL)), path, visibility="public")
    sid = answer["submission_id"]
    maintainers = Maintainers(lb, Auth(LOCAL))
    message, picker = maintainers.hide(sid, True, None)
    assert message == f"Hidden: `{sid}`." and lb.rank_of("scb", sid) is None
    assert any(label.endswith("HIDDEN") for label, value in picker.choices if value == sid)
    assert maintainers.unhide(sid, True, None)[0] == f"Unhidden: `{sid}`." and lb.rank_of("scb", sid)
    assert maintainers.hide("", True, None)[0] == "Choose a submission first."
    unknown = maintainers.hide("no-such-id", True, None)[0]
    assert unknown == r"Unknown submission `no\-such\-id`."  # escaped, though a code span shows the backslashes


def test_rejected_uploads_and_the_rescore_report(lb, tmp_path):
    submit(Submitter(lb, Auth(LOCAL)), write_broken(tmp_path / "b.jsonl"))
    rejected = Maintainers(lb, Auth(LOCAL)).view(True, None)[2]
    assert list(rejected["errors"]) == [3] and rejected["first errors"].iloc[0].startswith("line 2: ")
    report = Maintainers(lb, Auth(LOCAL)).rescore(True, None, lambda *a, **k: None)
    assert report.startswith("### Rescore report") and "**scb**" in report
    assert rescore_markdown({}) == "Nothing to rescore (no gold loaded)."
