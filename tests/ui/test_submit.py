"""ui.submit: the callback behind the button and ``/submit`` on a local leaderboard; every
answer, refusals included, carries every documented key."""

from __future__ import annotations

from leaderboard.config import UiSettings
from tests.support.submissions import write_broken, write_submission
from tests.ui.fakes import Request
from ui.auth import NO_TOKEN, Auth
from ui.submit import Submitter

KEYS = {
    "status", "message", "submission_id", "result", "rank", "errors", "total_errors", "quota", "duplicate_of",
    "warnings", "unparsed_lines", "reason", "notes",
}  # fmt: skip


def no_progress(*args, **kwargs) -> None:
    pass


def submit(submitter, path, benchmark="scb", model="Model-A", profile=None, team="Team", **extra) -> dict:
    args = (benchmark, str(path) if path else None, model, team, "open", "xyxy", "", "", "")
    return submitter.submit(*args, Request(), profile, no_progress, **extra)


def test_a_new_submission_is_private_unless_made_public(lb, tmp_path):
    answer = submit(Submitter(lb, Auth(UiSettings())), write_submission(tmp_path / "s.jsonl", accuracy=0.8))
    assert set(answer) == KEYS and answer["status"] == "scored" and answer["rank"] is None
    assert "Private" in answer["message"] and lb.submissions.rank_of("scb", answer["submission_id"]) is None
    assert lb.catalog.get(answer["submission_id"]).meta.visibility == "private"


def test_a_valid_file_is_scored_and_ranked(lb, tmp_path):
    path = write_submission(tmp_path / "s.jsonl", accuracy=0.8)
    answer = submit(Submitter(lb, Auth(UiSettings())), path, visibility="public")
    assert set(answer) == KEYS
    assert answer["status"] == "scored" and answer["errors"] == []
    assert answer["rank"] == lb.submissions.rank_of("scb", answer["submission_id"])
    table = lb.table("scb")  # the papers' 81.97-85.15 come first in the order, but within 80%'s interval: one rank
    place = list(table["model"]).index("Model-A")
    assert place > 0 and answer["rank"] == table["rank"].iloc[0] == 1
    assert answer["result"]["counts"]["questions"] == 140
    assert "scored" in answer["quota"] and "left" in answer["quota"]


def test_a_broken_file_gets_its_line_numbers(lb, tmp_path):
    answer = submit(Submitter(lb, Auth(UiSettings())), write_broken(tmp_path / "b.jsonl"))
    assert answer["status"] == "rejected" and answer["rank"] is None
    assert {e["line"] for e in answer["errors"]} == {2, 3, 4} and answer["total_errors"] == 3


def test_refusals_hold_every_key(lb, tmp_path):
    signed_out = submit(Submitter(lb, Auth(UiSettings(oauth=True))), write_submission(tmp_path / "s.jsonl"))
    assert set(signed_out) == KEYS
    assert (signed_out["status"], signed_out["message"]) == ("rejected", NO_TOKEN)  # says how to send a token
    no_file = submit(Submitter(lb, Auth(UiSettings())), None)
    assert set(no_file) == KEYS and no_file["message"] == "Choose a predictions file."
    assert "attempts left" in no_file["quota"]
    assert lb.catalog.all() == []  # nothing was stored


def test_the_form_shows_the_answer(lb, tmp_path):
    submitter = Submitter(lb, Auth(UiSettings()))
    answer = submit(submitter, write_broken(tmp_path / "b.jsonl"))
    text, errors, quota = submitter.show_answer(answer, "scb")
    assert text.startswith("### Not scored") and "**3 error(s)**" in text
    assert errors.visible and len(errors.value["data"]) == 3
    assert quota.startswith("**Quota**: ")
    assert submitter.quota("scb", Request(), None).startswith("**Quota**: ")
    signed_out = Submitter(lb, Auth(UiSettings(oauth=True)))
    assert signed_out.quota("scb", Request(), None) == "**Quota**: sign in to see your daily quota."


def test_a_check_over_the_accounts_bound_answers_retry_with_every_key(lb, tmp_path):
    """Validate-only is free, so checks are bounded per account (submissions.fair_queue): over
    the bound, the documented ``retry`` status and a message that says what to do, not an error."""
    from submissions.fair_queue import FairQueue
    from submissions.intake import BUSY

    lb.intake.checks = FairQueue(slots=1, per_identity=1)
    path = write_submission(tmp_path / "s.jsonl", accuracy=0.8)
    with lb.intake.checks.enter(UiSettings().local_user):  # a check of this account is running
        answer = submit(Submitter(lb, Auth(UiSettings())), path, validate_only=True)
    assert set(answer) == KEYS and (answer["status"], answer["message"]) == ("retry", BUSY)
    assert "attempts left" in answer["quota"] and lb.catalog.all() == []
    again = submit(Submitter(lb, Auth(UiSettings())), path, validate_only=True)
    assert again["status"] == "valid"


def planted(path, weak_country: str):
    """A file right on about 90% of the small gold but wrong on every question of one country."""
    from tests.support import demo
    from tests.support.submissions import small_gold

    gold = small_gold()
    lines = demo.scb_submission(gold, 0.9, "bbox_good", seed=4)
    letters = {g["question_id"]: g["answer"] for g in gold if g["country"] == weak_country}
    for line in lines:
        if line["question_id"] in letters:
            line["answer"] = "ABCD"[("ABCD".index(letters[line["question_id"]]) + 1) % 4]
    return demo.write_jsonl(path, lines)


def test_the_answer_names_the_weakest_groups_only_when_its_figures_are_shown(lb, tmp_path):
    """Issue 44: the Submit answer names the weakest groups (flagged: the gap's interval excludes 0)
    with SCB's split, from the figures the answer itself carries; none when the Ladder withholds them."""
    from tests.support.submissions import small_gold

    weak = small_gold()[0]["country"]
    submitter = Submitter(lb, Auth(UiSettings()))
    answer = submit(submitter, planted(tmp_path / "weak.jsonl", weak), model="Weak-1", team="Team W")
    assert answer["status"] == "scored" and answer["result"]
    text, _, _ = submitter.show_answer(answer, "scb")
    fails = text[text.index("**Where it fails**") :]
    first = fails.splitlines()[1].replace("\\", "")  # as Markdown renders it (escapes dropped)
    assert first.startswith(f"- **Country: {weak}**") and "⚑" in first and "wrong answer 100.00%" in first
    withheld = {**answer, "result": None}
    assert "Where it fails" not in submitter.show_answer(withheld, "scb")[0]
