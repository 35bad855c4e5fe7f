"""A gold update seen from the public side: the board keeps the current gold's results while the
new gold is rescored, then switches in one step; the rank-change report ranks the public board
(paper rows included); a submission arriving meanwhile is scored on both golds."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pandas as pd
import pytest

from leaderboard.service import Leaderboard, RankChange
from leaderboard.table import SCORED_SOURCE, baseline_rows
from scoring import SCORER_VERSION
from store import layout
from submissions import lifecycle
from submissions.request import SubmitRequest
from tests.support.submissions import MAINTAINER, board, form, scored, small_gold, write_gold, write_submission

ACCURACIES = (0.8, 0.7, 0.62, 0.55, 0.48, 0.4)


def _rows(table: pd.DataFrame) -> set[tuple[str, str, str]]:
    return {(r.source, r.team, r.model) for r in table.itertuples()}


def _published_rows(lb: Leaderboard) -> set[tuple[str, str, str]]:
    return _rows(pd.read_parquet(io.BytesIO(lb.store.read("results", layout.public_table("scb", "parquet")))))


def _changed_answers(gold: list[dict], rows: range) -> list[dict]:
    out = [dict(r) for r in gold]
    for i in rows:
        out[i]["answer"] = "ABCD"[("ABCD".index(out[i]["answer"]) + 1) % 4]
    return out


@pytest.fixture
def staged(tmp_path: Path) -> Leaderboard:
    """Six scored submissions on the current gold and a staged gold that changes 30 answers."""
    gold = small_gold()
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl", gold))
    for i, acc in enumerate(ACCURACIES):
        path = write_submission(tmp_path / f"s{i}.jsonl", gold, accuracy=acc, seed=i + 1)
        lb.submissions.submit(SubmitRequest("scb", path, form(f"model-{i}", "team"), MAINTAINER))
    lb.corrections.add_gold(  # confirmed, with no preview: no outcome on it yet, the rescore scores every one
        "scb", write_gold(tmp_path / "gold-v2.jsonl", _changed_answers(gold, range(30))), "maintainer", confirm=True
    )
    lb.flush()  # the debounced public files catch up first: the watch checks the switch, not the debounce
    return lb


class BoardWatch:
    """Samples the public board as the app, another process and the results files show it."""

    def __init__(self, lb: Leaderboard) -> None:
        self.lb = lb
        self.expected = _rows(lb.table("scb"))
        self.samples: list[tuple[str, set]] = []

    def sample(self, *_: object) -> None:
        replica = Leaderboard(self.lb.settings)  # a second reader of the same store (CLI, another worker)
        for where, rows in (
            ("facade", _rows(self.lb.table("scb"))),
            ("replica", _rows(replica.table("scb"))),
            ("results file", _published_rows(self.lb)),
        ):
            self.samples.append((where, rows))

    def incomplete(self) -> list[tuple[str, set]]:
        return [(where, self.expected ^ rows) for where, rows in self.samples if rows != self.expected]


def test_the_public_board_stays_complete_during_the_rescore(staged: Leaderboard) -> None:
    watch = BoardWatch(staged)
    assert len([r for r in watch.expected if r[0] == SCORED_SOURCE]) == len(ACCURACIES)
    v1, v2 = staged.gold_info("scb").version, staged.corrections.staged_gold("scb").version
    stop = threading.Event()

    def keep_sampling() -> None:
        while not stop.is_set():
            watch.sample()

    sampler = threading.Thread(target=keep_sampling)
    sampler.start()
    try:
        report = staged.corrections.rescore(
            "scb", workers=1, on_progress=watch.sample
        )  # also samples after each result
    finally:
        stop.set()
        sampler.join()
    assert len(watch.samples) >= 3 * len(ACCURACIES)
    assert watch.incomplete() == []
    assert report["scb"]["switched_to"] == v2 and report["scb"]["counts"]["scored"] == len(ACCURACIES)
    assert staged.gold_info("scb").version == v2 and staged.gold_info("scb").previous_version == v1
    assert _rows(staged.table("scb")) == watch.expected == _published_rows(staged)
    assert staged.corrections.staged_gold("scb") is None


def test_the_background_resume_keeps_the_board_complete_then_switches(
    staged: Leaderboard, monkeypatch: pytest.MonkeyPatch
) -> None:
    watch = BoardWatch(staged)
    process = lifecycle.process

    def sampled(*args: object, **kw: object):
        watch.sample()
        return process(*args, **kw)

    monkeypatch.setattr(lifecycle, "process", sampled)
    v2 = staged.corrections.staged_gold("scb").version
    assert staged.corrections.resume() == len(ACCURACIES)
    assert len(watch.samples) == 3 * len(ACCURACIES) and watch.incomplete() == []
    assert staged.gold_info("scb").version == v2 and _published_rows(staged) == watch.expected
    fresh = Leaderboard(staged.settings)
    assert all(fresh.submissions.status(s).value == "scored" for s in fresh.catalog.all("scb"))


def test_a_submission_during_the_rescore_is_scored_on_both_golds(staged: Leaderboard, tmp_path: Path) -> None:
    v1, v2 = staged.gold_info("scb").version, staged.corrections.staged_gold("scb").version
    late = staged.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "late.jsonl", seed=9), form("late", "team"), MAINTAINER)
    )
    assert late.rank is not None and "late" in set(scored(staged)["model"])  # public at once, on the current gold
    state = staged.catalog.get(late.submission_id)
    assert state.result(v1, SCORER_VERSION) is not None and state.result(v2, SCORER_VERSION) is not None
    report = staged.corrections.rescore("scb", workers=1)
    assert report["scb"]["counts"]["scored"] == len(ACCURACIES)  # the late one needed no rescoring
    assert report["scb"]["switched_to"] == v2 and "late" in set(scored(staged)["model"])


def _paper_accuracies() -> list[float]:
    return sorted((r.figures["overall"]["acc"] for r in baseline_rows("scb")), reverse=True)


def test_the_rank_report_ranks_the_public_board_with_paper_rows(tmp_path: Path) -> None:
    """The review's case: one scored model between the first two paper rows falls below the
    third. Ranked among scored rows only it stays first; the public sees it go from 2 to 4."""
    paper = _paper_accuracies()
    gold = small_gold()
    n = len(gold)
    before_acc, after_acc = (paper[0] + paper[1]) / 200, (paper[2] + paper[3]) / 200
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl", gold))
    lines = write_submission(tmp_path / "s.jsonl", gold, accuracy=before_acc, seed=3)
    lb.submissions.submit(SubmitRequest("scb", lines, form("Demo-GPT-o3", "demo"), MAINTAINER))
    answers = {line["question_id"]: line["answer"] for line in pd.read_json(lines, lines=True).to_dict("records")}
    right = [i for i, r in enumerate(gold) if answers[r["question_id"]] == r["answer"]]
    lose = right[: len(right) - round(after_acc * n)]
    lb.corrections.add_gold("scb", write_gold(tmp_path / "gold-v2.jsonl", _changed_answers(gold, lose)), "maintainer")
    public_before = lb.table("scb")
    report = lb.corrections.rescore("scb", workers=1)["scb"]
    public_after = lb.table("scb")
    assert list(scored(lb)["rank"]) != [] and len(scored(lb)) == 1  # the only scored row: first among scored
    assert RankChange("demo", "Demo-GPT-o3", 2, 4) in report["rank_changes"]
    moved_up = {(c.team, c.model) for c in report["rank_changes"] if c.before == 3 or c.before == 4}
    # places in the public table's order (the report's unit; honest ranks may be shared)
    assert moved_up == {(r.team, r.model) for place, r in enumerate(public_before.itertuples(), 1) if place in (3, 4)}
    assert _rows(public_before) == _rows(public_after)


def test_a_row_hidden_before_the_rescore_is_no_change_of_the_rescore(staged: Leaderboard) -> None:
    """The app's board was a refresh behind a CLI hide: the report charged the hide to the gold
    switch ("Gemini-2.5-Pro (Gemini Evals): 2 -> gone", review turn 3, #23)."""
    top = scored(staged).iloc[0]
    assert (top.team, top.model) == ("team", "model-0")
    hidden_row = next(s.meta.id for s in staged.catalog.all("scb") if s.meta.model == "model-0")
    cli = board(staged.settings.data_dir)  # another process on the same store
    assert cli.moderation.set_hidden(hidden_row, True, "maintainer", "withdrawn")
    changes = staged.corrections.rescore("scb", workers=1)["scb"]["rank_changes"]
    assert ("team", "model-0") not in {(c.team, c.model) for c in changes}, changes
    assert all(c.before is not None and c.after is not None for c in changes), changes  # no row came or went


def test_the_maintainers_tab_shows_the_staged_gold_and_the_switch(staged: Leaderboard) -> None:
    from ui.admin import gold_markdown, rescore_markdown

    v1, v2 = staged.gold_info("scb").version, staged.corrections.staged_gold("scb").version
    shown = gold_markdown(staged)
    assert f"`{v1[:12]}`" in shown and "### Staged gold" in shown and f"`{v2[:12]}`" in shown
    report = rescore_markdown(staged.corrections.rescore("scb", workers=1))
    assert f"- the board now shows gold `{v2[:12]}`" in report
    assert "### Staged gold" not in gold_markdown(staged)
    again = rescore_markdown(staged.corrections.rescore("scb", workers=1))
    assert "- no rank changed on the public board" in again and "now shows" not in again


def test_a_switch_between_intake_and_staged_scoring_leaves_no_gap(
    staged: Leaderboard, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another writer switches the board right after the intake scored a new upload on the old
    gold: the upload is still scored on the gold that is now current, and keeps its rank."""
    v2 = staged.corrections.staged_gold("scb").version
    intake_submit = staged.intake.submit

    def then_switch(*args: object, **kw: object):
        answer = intake_submit(*args, **kw)
        new_gold = staged.golds.compiled(staged.corrections.staged_gold("scb"))
        for state in staged.catalog.all("scb"):  # the other writer's rescore, which missed the upload
            if state.meta.id != answer.submission_id:
                lifecycle.process(staged.store, staged.catalog, state.meta, new_gold, staged.limits)
        assert staged.golds.promote("scb", v2) is not None
        return answer

    monkeypatch.setattr(staged.intake, "submit", then_switch)
    late = staged.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "late.jsonl", seed=9), form("late", "team"), MAINTAINER)
    )
    assert staged.gold_info("scb").version == v2
    assert staged.catalog.get(late.submission_id).result(v2, SCORER_VERSION) is not None
    assert late.rank is not None and "late" in set(scored(staged)["model"])
