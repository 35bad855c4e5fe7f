"""ui.mine: a submitter sees their own submissions with status and rank; others see none."""

from __future__ import annotations

from leaderboard.config import UiSettings
from tests.support.submissions import write_broken, write_submission
from tests.ui.fakes import Profile, Request
from tests.ui.test_submit import submit
from ui.auth import Auth
from ui.mine import MySubmissions
from ui.submit import Submitter


def test_own_submissions_newest_first(lb, tmp_path):
    auth = Auth(UiSettings(local_user="ann"))
    scored = submit(Submitter(lb, auth), write_submission(tmp_path / "s.jsonl", accuracy=0.8))
    submit(Submitter(lb, auth), write_broken(tmp_path / "b.jsonl"), model="Broken")
    text, table = MySubmissions(lb, auth).show(Request(), None)
    assert text == "2 submission(s) by **ann**."
    assert list(table["model"]) == ["Broken", "Model-A"]
    assert list(table["status"]) == ["rejected", "scored"]
    assert list(table["rank"]) == ["-", scored["rank"]]
    assert table["accuracy"].iloc[1] == f"{scored['result']['overall']['acc']:.2f}"


def test_signed_out_or_someone_else_sees_nothing(lb, tmp_path):
    submit(Submitter(lb, Auth(UiSettings(local_user="ann"))), write_submission(tmp_path / "s.jsonl"))
    text, table = MySubmissions(lb, Auth(UiSettings(oauth=True))).show(Request(), None)
    assert text == "Sign in to see your submissions." and table.empty
    text, table = MySubmissions(lb, Auth(UiSettings(oauth=True))).show(Request(), Profile("bob"))
    assert text == "0 submission(s) by **bob**." and table.empty
