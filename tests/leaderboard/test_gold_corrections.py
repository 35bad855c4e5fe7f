"""A gold correction is a migration of every stored outcome (issue 29): it never rejects an
accepted file (lines answering removed questions are set aside), it is previewed before it
switches, switching back gives back that gold's board exactly, and no team event (publication,
quota) is refunded or dropped by it."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from leaderboard.service import Leaderboard
from scoring import get_benchmark
from scoring.engine import score_file
from store.golds import UnconfirmedGold
from submissions.records import Identity
from submissions.request import SubmitRequest
from tests.support.submissions import board, form, scored, small_gold, write_gold, write_submission

TEAMS = {"Team A": Identity("alice"), "Team B": Identity("bob"), "Team C": Identity("carol")}
REMOVED = 2
CHANGED = 3


def corrected(gold: list[dict]) -> list[dict]:
    """The first gold without its first 2 questions and with 3 answers changed."""
    out = [dict(r) for r in gold[REMOVED:]]
    for r in out[10 : 10 + CHANGED]:
        r["answer"] = "ABCD"[("ABCD".index(r["answer"]) + 1) % 4]
    return out


@pytest.fixture
def three_teams(tmp_path: Path) -> tuple[Leaderboard, dict[str, Path]]:
    """A fresh store whose board has three teams' public rows, each published (submitted public)."""
    gold = small_gold()
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold-v1.jsonl", gold))
    files = {}
    for i, (team, who) in enumerate(TEAMS.items()):
        files[team] = write_submission(tmp_path / f"{team}.jsonl", gold, accuracy=0.8 - 0.1 * i, seed=i + 1)
        answer = lb.submissions.submit(
            SubmitRequest("scb", files[team], form(f"model-{i}", team, visibility="public"), who)
        )
        assert answer.result is not None, answer.message
    return lb, files


def _without(path: Path, removed: set[str]) -> bytes:
    lines = [line for line in path.read_text().splitlines() if json.loads(line)["question_id"] not in removed]
    return ("\n".join(lines) + "\n").encode()


def _board(lb: Leaderboard) -> pd.DataFrame:
    return lb.table("scb").reset_index(drop=True)


def test_a_correction_keeps_every_row_and_the_restore_gives_the_first_board_back(three_teams, tmp_path) -> None:
    lb, files = three_teams
    first_board, v1 = _board(lb), lb.gold_info("scb").version
    gold = small_gold()
    removed = {r["question_id"] for r in gold[:REMOVED]}
    v2_path = write_gold(tmp_path / "gold-v2.jsonl", corrected(gold))

    preview = lb.corrections.preview_gold("scb", v2_path)
    text = "\n".join(preview.lines())
    assert f"{REMOVED} removed" in text and f"answers changed on kept questions: {CHANGED}" in text
    assert not preview.leaving, preview.lines()  # every row stays
    assert lb.gold_info("scb").version == v1 and lb.corrections.staged_gold("scb") is None  # a preview stores nothing

    lb.corrections.update_gold("scb", v2_path, "maintainer", confirm=True)
    report = lb.corrections.rescore("scb", workers=1)
    assert report["scb"]["counts"].get("rejected", 0) == 0
    rows = scored(lb)
    assert len(rows) == len(TEAMS)
    v2_gold = lb.golds.get("scb")
    for team, path in files.items():
        expected = score_file(get_benchmark("scb"), v2_gold, _without(path, removed))
        (acc,) = rows[rows["team"] == team]["overall.acc"]
        assert acc == expected.overall["acc"], team  # exactly the scorer's figure of the file without them

    lb.corrections.update_gold("scb", tmp_path / "gold-v1.jsonl", "maintainer", confirm=True)  # the restore
    lb.corrections.rescore("scb", workers=1)
    assert lb.gold_info("scb").version == v1
    pd.testing.assert_frame_equal(_board(lb), first_board)

    # Team A published once this week (its public upload): two more publications, then refused.
    alice = TEAMS["Team A"]
    ids = []
    for k in range(3):
        path = write_submission(tmp_path / f"a{k}.jsonl", small_gold(), accuracy=0.3 + 0.05 * k, seed=10 + k)
        answer = lb.submissions.submit(
            SubmitRequest("scb", path, form(f"ablation-{k}", "Team A", visibility="private"), alice)
        )
        assert answer.submission_id, answer.message
        ids.append(answer.submission_id)
    lb.visibility.set_visibility(alice, ids[0], True)
    lb.visibility.set_visibility(alice, ids[1], True)
    with pytest.raises(ValueError, match="already made 3 submissions public"):
        lb.visibility.set_visibility(alice, ids[2], True)


def test_a_gold_that_changes_every_id_is_previewed_and_needs_confirmation(three_teams, tmp_path) -> None:
    lb, _ = three_teams
    gold = small_gold()
    renamed = write_gold(
        tmp_path / "gold-v2.jsonl", [dict(r, question_id=f"scb-9{r['question_id'][-4:]}") for r in gold]
    )
    preview = lb.corrections.preview_gold("scb", renamed)
    assert preview.leaving == () and preview.needs_confirmation  # rows stay, every line set aside
    assert all(r.after is not None for r in preview.rows)
    with pytest.raises(UnconfirmedGold):
        lb.corrections.update_gold("scb", renamed, "maintainer", confirm=False)
    assert lb.corrections.staged_gold("scb") is None


def _removing(tmp_path: Path, n: int = REMOVED) -> Path:
    return write_gold(tmp_path / "gold-removed.jsonl", small_gold()[n:])


def test_removing_questions_rejects_no_accepted_submission(three_teams, tmp_path) -> None:
    """as-users 3b: a gold removing 2 questions rejected every file and emptied the board."""
    lb, _ = three_teams
    lb.corrections.add_gold("scb", _removing(tmp_path), "maintainer", confirm=True)
    report = lb.corrections.rescore("scb", workers=1)
    assert report["scb"]["counts"].get("rejected", 0) == 0, report
    assert len(scored(lb)) == len(TEAMS)
    (entry,) = lb.visibility.entries(TEAMS["Team B"], "scb")
    assert entry.status.value == "scored"
    notes = [n.message for n in entry.notes]
    assert any(
        m.startswith("2 lines answer questions the current gold no longer has; they are not scored") for m in notes
    )


def test_a_new_upload_answering_retired_questions_is_accepted_with_the_note(three_teams, tmp_path) -> None:
    lb, _ = three_teams
    lb.corrections.add_gold("scb", _removing(tmp_path), "maintainer", confirm=True)
    lb.corrections.rescore("scb", workers=1)
    path = write_submission(tmp_path / "late.jsonl", small_gold(), accuracy=0.5, seed=7)  # the first gold's ids
    answer = lb.submissions.submit(
        SubmitRequest("scb", path, form("late", "Team C", visibility="private"), TEAMS["Team C"])
    )
    assert answer.status.value == "scored", answer.message
    stored = lb.catalog.get(answer.submission_id).latest_result(lb.gold_info("scb").version)
    assert stored.counts["set_aside"] == REMOVED and stored.counts["submitted"] == len(small_gold()) - REMOVED
    assert any(n.code == "set_aside_lines" for n in answer.notes)


def test_a_line_for_a_question_no_gold_ever_had_is_still_an_error(three_teams, tmp_path) -> None:
    lb, _ = three_teams
    lb.corrections.add_gold("scb", _removing(tmp_path), "maintainer", confirm=True)
    lb.corrections.rescore("scb", workers=1)
    lines = [json.dumps({"question_id": r["question_id"], "answer": "A"}) for r in small_gold()]
    lines.append(json.dumps({"question_id": "scb-77777", "answer": "A"}))
    path = tmp_path / "unknown.jsonl"
    path.write_text("\n".join(lines) + "\n")
    answer = lb.submissions.submit(
        SubmitRequest("scb", path, form("unknown", "Team C", visibility="private"), TEAMS["Team C"])
    )
    assert answer.result is None and any(i.code == "unknown_question_id" for i in answer.issues)


def test_the_team_sees_what_the_rescore_did_to_its_entry(three_teams, tmp_path) -> None:
    """Added questions count as unanswered and the entry says how many; a changed figure reads
    "rescored on gold <version> (<date>): accuracy a -> b"."""
    lb, _ = three_teams
    gold = small_gold()
    extra = [dict(gold[0], question_id=f"scb-8{k:04d}") for k in range(4)]
    lb.corrections.add_gold("scb", write_gold(tmp_path / "gold-more.jsonl", gold + extra), "maintainer", confirm=True)
    lb.corrections.rescore("scb", workers=1)
    info = lb.gold_info("scb")
    (entry,) = lb.visibility.entries(TEAMS["Team A"], "scb")
    messages = {n.code: n.message for n in entry.notes}
    assert messages["added_questions"].startswith(f"4 questions were added by gold {info.version[:12]}")
    assert messages["rescored"].startswith(f"rescored on gold {info.version[:12]} ({info.added_at[:10]}): accuracy ")
    before, after = messages["rescored"].split(": accuracy ")[1].split(" -> ")
    assert float(after) < float(before)  # 4 more questions, all unanswered
    from ui.mine import GOLD_CHANGE, entry_row

    assert entry_row(entry)[GOLD_CHANGE] == messages["rescored"]  # on the entry's row of My submissions


def test_gold_add_prints_the_preview_before_anything_switches(three_teams, tmp_path) -> None:
    """The CLI: the gold's changes and every row before -> after, then exit 3 (nothing stored)
    without --confirm; with it, staged. `gold show` prints the leak audit again."""
    from tests.leaderboard.test_cli import cli

    lb, _ = three_teams
    data = lb.settings.data_dir
    v2 = write_gold(tmp_path / "gold-v2.jsonl", corrected(small_gold()))
    refused = cli(data, "gold", "add", "--benchmark", "scb", "--file", str(v2), ok=False)
    assert refused.returncode == 3 and "nothing was stored" in refused.stderr
    out = refused.stdout
    assert "would:" in out and f"0 added, {REMOVED} removed)" in out
    assert f"answers changed on kept questions: {CHANGED}" in out
    assert ": 13 stay, 0 leave, 0 come" in out  # 3 teams and 10 paper rows
    assert "Team A / model-0: rank " in out and "leak audit" in out
    assert "staged" not in cli(data, "gold", "show").stdout
    staged = cli(data, "gold", "add", "--benchmark", "scb", "--file", str(v2), "--confirm").stdout
    assert "is staged" in staged and ": 13 stay" in staged
    assert "leak audit" in cli(data, "gold", "show", "--benchmark", "scb").stdout


def test_cli_hide_says_what_it_hid(three_teams) -> None:
    from tests.leaderboard.test_cli import cli

    lb, _ = three_teams
    (entry,) = lb.visibility.entries(TEAMS["Team B"], "scb")
    out = cli(lb.settings.data_dir, "hide", entry.state.meta.id, "--reason", "a test").stdout
    assert "scb: Team B / model-1" in out


def test_the_rescore_report_says_what_happened(three_teams, tmp_path) -> None:
    """as-users 3c: 'nothing needed rescoring' above 15 rank changes, and silence on a row that
    did not come back; now a summary that agrees with the list, and every row that left or came
    back with its reason."""
    from leaderboard.rescore_report import report_lines

    lb, _ = three_teams
    lb.corrections.add_gold("scb", _removing(tmp_path), "maintainer", confirm=True)
    text = "\n".join(line.text for line in report_lines(lb.corrections.rescore("scb", workers=1)))
    assert "scb: rescored 3 submission(s): 3 scored, 0 rejected, 0 failed (gold " in text
    assert "rows on the public board: 3 changed, 0 left, 0 came back" in text
    (entry,) = lb.visibility.entries(TEAMS["Team C"], "scb")
    lb.moderation.set_hidden(entry.state.meta.id, True, "maintainer", "checking the paper")
    lb.corrections.add_gold("scb", tmp_path / "gold-v1.jsonl", "maintainer", confirm=True)  # back: nothing to score
    text = "\n".join(line.text for line in report_lines(lb.corrections.rescore("scb", workers=1)))
    assert "nothing needed rescoring" not in text
    assert "scb: no submission needed scoring (gold " in text and "the board changed as listed below" in text
    assert "Team C" not in text  # hidden before the rescore: not the gold's doing


def test_the_report_names_each_row_that_left_or_came_back_with_its_reason() -> None:
    from leaderboard.golds import RowMove
    from leaderboard.rescore_report import report_lines

    rows = [
        RowMove(
            "Lab", "M", 3, None, (("Accuracy", "61.00"),), (), "rejected on gold 61985f30f2a1: unknown question_id"
        ),
        RowMove("Lab", "N", None, 4, (), (("Accuracy", "58.00"),), "a row again: scored on that gold"),
        RowMove("Lab", "O", 5, 5, (("Accuracy", "50.00"),), (("Accuracy", "50.00"),)),
    ]
    part = {"counts": {}, "gold": "61985f30f2a1" + "0" * 52, "rank_changes": [], "rows": rows}
    text = "\n".join(line.text for line in report_lines({"scb": part}))
    assert "nothing needed rescoring" not in text
    assert "rows on the public board: 0 changed, 1 left, 1 came back" in text
    assert "Lab / M left: rejected on gold 61985f30f2a1: unknown question_id" in text
    assert "Lab / N came back: a row again: scored on that gold" in text


def test_restoring_a_gold_from_a_resaved_file_or_by_its_version(three_teams, tmp_path) -> None:
    """A re-saved first gold (other whitespace, same content) was refused ('already holds other
    content'); `gold restore --version` stages a stored version without its file."""
    from tests.leaderboard.test_cli import cli

    lb, _ = three_teams
    v1 = lb.gold_info("scb").version
    first_board = _board(lb)
    lb.corrections.add_gold("scb", _removing(tmp_path), "maintainer", confirm=True)
    lb.corrections.rescore("scb", workers=1)
    resaved = tmp_path / "gold-v1-resaved.jsonl"
    resaved.write_text("".join(json.dumps(r, indent=None, separators=(", ", ": ")) + "\n\n" for r in small_gold()))
    lb.corrections.update_gold("scb", resaved, "maintainer", confirm=True)
    assert lb.corrections.staged_gold("scb").version == v1
    lb.corrections.rescore("scb", workers=1)
    pd.testing.assert_frame_equal(_board(lb), first_board)

    data = lb.settings.data_dir
    lb.corrections.add_gold("scb", _removing(tmp_path), "maintainer", confirm=True)
    lb.corrections.rescore("scb", workers=1)
    assert "stored versions: " in cli(data, "gold", "show", "--benchmark", "scb").stdout
    refused = cli(data, "gold", "restore", "--benchmark", "scb", "--version", v1[:10], ok=False)
    assert (
        refused.returncode == 3
        and "0 added, 0 removed" not in refused.stdout
        and f"to {v1[:12]} would:" in refused.stdout
    )
    cli(data, "gold", "restore", "--benchmark", "scb", "--version", v1[:10], "--confirm")
    rescored = cli(data, "rescore", "--benchmark", "scb").stdout
    assert "no submission needed scoring" in rescored and "kept, not scored again" in rescored
    pd.testing.assert_frame_equal(_board(Leaderboard(lb.settings)), first_board)


def test_what_the_ladder_showed_a_team_stays_shown_after_a_correction(tmp_path) -> None:
    """The Ladder's decisions are records of what a team was shown: a correction that moves the
    figures does not take back figures the team already saw (nor show ones it withheld)."""
    from tests.support.submissions import flipped_gold

    gold = small_gold()
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold-v1.jsonl", gold))
    alice = TEAMS["Team A"]
    paths = {
        acc: write_submission(tmp_path / f"{acc}.jsonl", gold, accuracy=acc, seed=int(acc * 10)) for acc in (0.5, 0.6)
    }
    first, second = (
        lb.submissions.submit(SubmitRequest("scb", paths[acc], form(f"m{acc}", "Team A", visibility="private"), alice))
        for acc in (0.5, 0.6)
    )
    assert first.result is not None and second.result is not None  # each beat the best shown: shown
    lines = {acc: [json.loads(x) for x in paths[acc].read_text().splitlines()] for acc in paths}
    corrected_gold = flipped_gold(gold, better=lines[0.5], worse=lines[0.6], k=8)  # 0.6 now scores below 0.5
    lb.corrections.add_gold("scb", write_gold(tmp_path / "gold-v2.jsonl", corrected_gold), "maintainer")
    lb.corrections.rescore("scb", workers=1)
    for answer in (first, second):
        state = lb.catalog.get(answer.submission_id)
        assert lb.submissions.result_for_submitter(state) is not None, state.meta.model  # shown once, shown still
        assert lb.visibility.entry(alice, answer.submission_id).reason.code == "shown"


def test_a_rejection_an_earlier_scorer_made_for_removed_questions_is_healed(three_teams, tmp_path) -> None:
    """Stores kept from before this fix hold rejections like as-users 3b's ("unknown question_id
    'scb-00011'") on the corrected gold: the rescore scores those files, their lines set aside."""
    from scoring.errors import Issue
    from submissions import lifecycle
    from submissions.answer import SubmitAnswer
    from submissions.records import Status

    lb, _ = three_teams
    removed = [r["question_id"] for r in small_gold()[:REMOVED]]
    lb.corrections.add_gold("scb", _removing(tmp_path), "maintainer", confirm=True)
    staged = lb.golds.compiled(lb.corrections.staged_gold("scb"))
    (entry,) = lb.visibility.entries(TEAMS["Team B"], "scb")
    issues = tuple(Issue("unknown_question_id", i + 1, "question_id", f"unknown question_id {k!r}; did you mean 'x'?")
                   for i, k in enumerate(removed))  # fmt: skip
    old = SubmitAnswer.of(Status.REJECTED, entry.state.meta.id, issues=issues, total_issues=len(issues))
    lifecycle.record(lb.store, lb.catalog, entry.state.meta, staged, old)  # what the scorer before this fix stored
    lb.corrections.rescore("scb", workers=1)
    state = lb.catalog.get(entry.state.meta.id)
    assert lb.submissions.status(state) is Status.SCORED and len(scored(lb)) == len(TEAMS)
    assert not state.refused
