"""ui.mine: a submitter sees their own submissions with status and rank; others see none."""

from __future__ import annotations

from pathlib import Path

import gradio as gr
import pandas as pd
import pytest

from leaderboard.config import UiSettings
from tests.support import demo
from tests.support.submissions import small_gold, write_broken, write_submission
from tests.ui.fakes import Profile, Request
from tests.ui.test_submit import submit
from ui.auth import Auth
from ui.downloads import Downloads
from ui.mine import MySubmissions, without_empty_columns
from ui.submit import Submitter


def test_own_submissions_newest_first(lb, tmp_path):
    auth = Auth(UiSettings(local_user="ann"))
    scored = submit(Submitter(lb, auth), write_submission(tmp_path / "s.jsonl", accuracy=0.8), visibility="public")
    submit(Submitter(lb, auth), write_broken(tmp_path / "b.jsonl"), model="Broken")
    text, table = MySubmissions(lb, auth).show(Request(), None)
    assert text == "2 submission(s) by **ann**."
    assert list(table["model"]) == ["Broken", "Model-A"]
    assert list(table["status"]) == ["rejected", "scored"]
    assert list(table["rank"]) == ["-", scored["rank"]]
    acc, (low, high) = scored["result"]["overall"]["acc"], scored["result"]["overall"]["acc_ci"]
    half = (round(high, 2) - round(low, 2)) / 2
    assert table["Acc"].iloc[1] == f"{acc:.2f} ± {half:.2f}"  # with its interval, as the board shows it
    assert list(table["visibility"]) == ["private", "public"] and table["board"].iloc[1].startswith("public row")
    assert list(table["errors"]) == [3, 0] and list(table["box_format"]) == ["xyxy", "xyxy"]


def test_signed_out_or_someone_else_sees_nothing(lb, tmp_path):
    submit(Submitter(lb, Auth(UiSettings(local_user="ann"))), write_submission(tmp_path / "s.jsonl"))
    text, table = MySubmissions(lb, Auth(UiSettings(oauth=True))).show(Request(), None)
    assert text == "Sign in to see your submissions." and table.empty
    text, table = MySubmissions(lb, Auth(UiSettings(oauth=True))).show(Request(), Profile("bob"))
    assert text == "0 submission(s) by **bob**." and table.empty and "model" in table.columns


def test_publish_and_withdraw_by_the_team_only(lb, tmp_path):
    ann, bob = (MySubmissions(lb, Auth(UiSettings(local_user=name))) for name in ("ann", "bob"))
    answer = submit(Submitter(lb, ann.auth), write_submission(tmp_path / "s.jsonl", accuracy=0.8), team="Ann Lab")
    sid = answer["submission_id"]
    assert lb.submissions.rank_of("scb", sid) is None  # private
    # bob: no detail, no change, no API answer, no row
    assert bob.detail(sid, Request(), None) == "Choose one of your submissions."
    assert bob.publish_button(sid, False, "", Request(), None).startswith("No submission")
    assert bob.api_my_submissions("", Request()) == []
    for call in (lambda: bob.api_my_result(sid, Request()), lambda: bob.api_publish(sid, False, "", Request())):
        with pytest.raises(gr.Error):
            call()
    assert lb.submissions.rank_of("scb", sid) is None
    # ann: her full record, then publish and withdraw
    assert "| overall | 140 |" in ann.detail(sid, Request(), None)
    assert [e["submission_id"] for e in ann.api_my_submissions("scb", Request())] == [sid]
    published = ann.api_publish(sid, True, "2099-12-31", Request())
    assert published["message"].startswith("Published") and published["on_board"] and published["anonymous"]
    with pytest.raises(gr.Error):
        bob.api_unpublish(sid, Request())
    assert lb.submissions.rank_of("scb", sid) is not None
    assert ann.withdraw_button(sid, Request(), None).startswith("Withdrawn")
    assert ann.api_my_result(sid, Request())["visibility"] == "private" and lb.submissions.rank_of("scb", sid) is None


def test_a_metric_column_no_listed_submission_has_is_left_out():
    frame = pd.DataFrame(
        [{"model": "K", "Acc": "80.00", "mIoU": "", "file": ""}, {"model": "L", "Acc": "", "mIoU": ""}]
    )
    assert list(without_empty_columns(frame).columns) == ["model", "Acc", "file"]  # only metric columns go


def test_the_detail_lists_the_unparsed_lines_in_full(lb, tmp_path):
    auth = Auth(UiSettings(local_user="ann"))
    lines = [{"question_id": r["question_id"], "answer": "A"} for r in small_gold()]
    lines[6] = {"question_id": lines[6]["question_id"], "response": "No idea | maybe *both*?"}
    answer = submit(Submitter(lb, auth), demo.write_jsonl(tmp_path / "u.jsonl", lines))
    detail = MySubmissions(lb, auth).detail(answer["submission_id"], Request(), None)
    assert detail.endswith(
        "**Unparsed responses** (counted as wrong; first 1 listed):\n- line 7: No idea \\| maybe \\*both\\*?"
    )


def test_the_chosen_public_row_offers_its_eval_results_file_and_a_private_one_says_why(lb, tmp_path):
    """My submissions: a public row's ``.eval_results`` file as the Hub takes it; none for a private one."""
    auth = Auth(UiSettings(local_user="ann"))
    mine = MySubmissions(lb, auth, Downloads(tmp_path / "files"))
    public = submit(Submitter(lb, auth), write_submission(tmp_path / "p.jsonl", accuracy=0.8), visibility="public")
    private = submit(Submitter(lb, auth), write_submission(tmp_path / "q.jsonl", accuracy=0.7, seed=2), model="B")
    button, note = mine.eval_results(public["submission_id"], Request(), None)
    assert button.interactive and button.value["orig_name"] == "scb.yaml"
    expected = lb.visibility.eval_results("scb", public["submission_id"], auth.identity(None, Request()))
    assert Path(button.value["path"]).read_text(encoding="utf-8") == expected.text and expected.entries
    assert note.startswith("For the model's Hub page: 1 figure(s)")  # no grounding: accuracy only
    button, note = mine.eval_results(private["submission_id"], Request(), None)
    assert not button.interactive and button.value is None
    assert "it is private" in note  # and, being below the public row, withheld by the Ladder
    assert mine.open_pr(public["submission_id"], Request(), None) == (
        "No pull request: the row names no Hub model repo (model_repo): there is no model page to add to"
    )


def test_the_signed_in_owner_opens_the_pull_request_with_the_oauth_token(tmp_path, hub_factory):
    from tests.support.hub_server import User
    from tests.support.submissions import board, write_gold

    hub = hub_factory(users={"ann-oauth": User("ann", scopes=("openid", "profile", "write-discussions"))})
    hub.add_model("ann/ann-vlm")
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"), hub_endpoint=hub.url)
    auth = Auth(UiSettings(oauth=True))
    mine = MySubmissions(lb, auth, Downloads(tmp_path / "files"))
    sid = submit(Submitter(lb, auth), write_submission(tmp_path / "p.jsonl", accuracy=0.8), profile=Profile("ann"),
                 visibility="public", added={"model_repo": "ann/ann-vlm"})["submission_id"]  # fmt: skip
    token = gr.OAuthToken(token="ann-oauth", scope="openid profile write-discussions", expires_at=0)
    assert mine.open_pr(sid, Request(), Profile("bob"), token) == "Choose one of your submissions first."
    opened = mine.open_pr(sid, Request(), Profile("ann"), token)
    assert opened == f"Pull request opened: {hub.url}/ann/ann-vlm/discussions/1"
    assert [p.author for p in hub.pull_requests("ann/ann-vlm")] == ["ann"]
    # a row naming someone else's repo: the owner is told it went as a community submission (issue 42)
    hub.add_model("zoe/zoe-vlm")
    other = submit(Submitter(lb, auth), write_submission(tmp_path / "z.jsonl", accuracy=0.7, seed=4),
                   profile=Profile("ann"), model="Z", visibility="public",
                   added={"model_repo": "zoe/zoe-vlm"})["submission_id"]  # fmt: skip
    told = mine.open_pr(other, Request(), Profile("ann"), token)
    assert told.startswith("Pull request opened as a community submission") and "zoe/zoe-vlm" in told
    assert told.endswith(f"{hub.url}/zoe/zoe-vlm/discussions/1")
