"""Model pages and paired comparisons through the facade: aggregates only, checked against an
independent count of the two files' right answers."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from leaderboard.service import Leaderboard
from store import layout
from submissions.request import SubmitRequest
from tests.support.published_compare import published_compare
from tests.support.submissions import ALICE, board, form, small_gold, write_gold, write_submission


@pytest.fixture(scope="module")
def compared(tmp_path_factory) -> tuple[Leaderboard, dict[str, Path], list[dict]]:
    tmp = tmp_path_factory.mktemp("compare")
    gold = small_gold()
    lb = board(tmp / "data", write_gold(tmp / "gold.jsonl", gold))
    files = {
        "Strong": write_submission(tmp / "a.jsonl", gold, accuracy=0.8, grounding="bbox_good", seed=1),
        "Weak": write_submission(tmp / "b.jsonl", gold, accuracy=0.5, grounding="bbox_good", seed=2),
        "Twin": write_submission(tmp / "c.jsonl", gold, accuracy=0.8, grounding="bbox_good", seed=1),
    }
    for model, path in files.items():  # Twin: the same file from another team (one team's copy is a duplicate)
        assert (
            lb.submissions.submit(
                SubmitRequest("scb", path, form(model, "T2" if model == "Twin" else "T"), ALICE)
            ).result
            is not None
        )
    return lb, files, gold


def row_id(lb: Leaderboard, model: str) -> str:
    table = lb.table("scb")
    return table.loc[table["model"] == model, "row_id"].iloc[0]


def right_answers(path: Path, gold: list[dict]) -> list[bool]:
    answers = {json.loads(line)["question_id"]: json.loads(line)["answer"] for line in path.read_text().splitlines()}
    return [q["answer"] == answers.get(q["question_id"]) for q in gold]


def overall(pairing, metric: str = "acc"):
    return next(d for d in pairing.differences if d.metric == metric and d.grouping == "overall")


def test_the_difference_and_interval_come_from_the_published_figures(compared):
    """Compare discloses nothing the rows do not (attack #3 of the turn-3 review): every number
    is the two rows' published figures and intervals, combined as independent estimates."""
    lb, files, gold = compared
    strong, weak = row_id(lb, "Strong"), row_id(lb, "Weak")
    (pairing,) = published_compare(lb, "scb", [strong, weak])
    a, b = (lb.board("scb").row(r).figures for r in (strong, weak))
    for grouping, label in (("overall", ""), ("country", "Cambodia"), ("type", "1")):
        stats_a, stats_b = (
            (a["overall"], b["overall"]) if grouping == "overall" else (a[grouping][label], b[grouping][label])
        )
        d = next(x for x in pairing.differences if (x.metric, x.grouping, x.label) == ("acc", grouping, label))
        half = [(s["acc_ci"][1] - s["acc_ci"][0]) / 2 for s in (stats_a, stats_b)]
        assert d.difference == pytest.approx(stats_a["acc"] - stats_b["acc"])
        assert (d.low, d.high) == pytest.approx((d.difference - math.hypot(*half), d.difference + math.hypot(*half)))
        z = d.difference / (math.hypot(*half) / 1.959963984540054)
        assert d.p_value == pytest.approx(math.erfc(abs(z) / math.sqrt(2))) and d.questions == stats_a["questions"]
    right_a, right_b = right_answers(files["Strong"], gold), right_answers(files["Weak"], gold)
    assert overall(pairing).difference == pytest.approx(100 * (sum(right_a) - sum(right_b)) / len(gold))
    assert {"overall", "type", "country", "category"} <= {d.grouping for d in pairing.differences}
    assert overall(pairing, "miou").p_value is not None and overall(pairing).test == "from the published intervals"


def test_a_reader_of_the_public_files_computes_the_same_comparison(compared, tmp_path):
    """Nothing but the published results dataset is needed to recompute Compare's overall rows:
    to the precision the board shows, since the public files carry the figures rounded as shown
    (attacks.md turn 4 #6; before, they agreed to the last digit)."""
    from leaderboard.compare import compare_pair
    from leaderboard.reader import FolderSource, PublishedLeaderboard
    from scoring.benchmarks import get_benchmark

    lb, _, _ = compared
    lb.flush()
    reader = PublishedLeaderboard(FolderSource(lb.settings.data_dir / "results"))
    reader.refresh()
    strong, weak = row_id(lb, "Strong"), row_id(lb, "Weak")
    (pairing,) = published_compare(lb, "scb", [strong, weak])
    public = compare_pair(get_benchmark("scb"), *(reader.board("scb").row(r).figures for r in (strong, weak)), ("", ""))
    for metric in ("acc", "miou"):
        mine, theirs = overall(pairing, metric), overall(public, metric)
        assert (mine.difference, mine.low, mine.high, mine.p_value) == pytest.approx(
            (theirs.difference, theirs.low, theirs.high, theirs.p_value), abs=0.01
        )


def test_identical_answers_differ_by_nothing(compared):
    lb, _, _ = compared
    (pairing,) = published_compare(lb, "scb", [row_id(lb, "Strong"), row_id(lb, "Twin")])
    for d in pairing.differences:
        if d.difference is not None:
            assert d.difference == 0
        if d.p_value is not None:
            assert d.p_value == 1 and d.low <= 0 <= d.high


def test_only_aggregates_leave_the_facade(compared):
    lb, _, _ = compared
    for pairing in published_compare(lb, "scb", [row_id(lb, "Strong"), row_id(lb, "Weak"), row_id(lb, "Twin")]):
        for d in pairing.differences:
            for value in dataclasses.astuple(d):
                assert value is None or isinstance(value, str | int | float) and not isinstance(value, bool)
                assert not isinstance(value, float) or math.isfinite(value)


def test_group_sizes_and_last_updated(compared):
    lb, files, gold = compared
    sizes = lb.group_sizes("scb")
    assert sum(sizes["type"].values()) == len(gold)
    assert lb.board("scb").row("nope") is None and lb.last_updated("scb")


def test_the_red_team_decoder_reads_answers_from_the_old_compare_and_none_from_this_one(tmp_path):
    """perf/probe_attack.py's Compare attack (turn 3, #3): three published rows and one Compare
    call. On 040358b's Compare (public-seed paired intervals) it pins answers, all right; on this
    one its model of the page fits no group and it learns nothing."""
    import importlib.util
    import sys

    from scoring import load_gold

    spec = importlib.util.spec_from_file_location("probe_attack", Path(__file__).parents[2] / "perf/probe_attack.py")
    probe_attack = importlib.util.module_from_spec(spec)
    sys.modules["probe_attack"] = probe_attack  # its dataclasses look their module up
    spec.loader.exec_module(probe_attack)
    gold = load_gold("scb", write_gold(tmp_path / "gold.jsonl"))
    old, now, difference_only = probe_attack.compare_runs(gold)
    assert old.consistent_true == old.groups and old.decided > 0 and old.right == old.decided
    assert (now.determined, now.decided, now.ruled_out, now.consistent_true) == (0, 0, 0, 0)
    assert difference_only.consistent_true == difference_only.groups  # the published rows' own information


def test_an_upload_stored_in_the_first_unsharded_layout_is_compared_and_probed(tmp_path):
    """Uploads from before sharding live at ``{benchmark}/{id}/raw.jsonl``; the catalog and
    ``lifecycle.read_raw`` find them, and so must Compare and the probe report (they read the
    upload through the same one reader)."""
    gold = small_gold()
    data = tmp_path / "data"
    lb = board(data, write_gold(tmp_path / "gold.jsonl", gold))
    for model, accuracy, seed in (("Old", 0.8, 1), ("New", 0.5, 2)):
        path = write_submission(tmp_path / f"{model}.jsonl", gold, accuracy=accuracy, grounding="bbox_good", seed=seed)
        assert lb.submissions.submit(SubmitRequest("scb", path, form(model, "T"), ALICE)).result is not None
    old = next(s for s in lb.catalog.all("scb") if s.meta.model == "Old")
    file = layout.SubmissionFile.raw("scb", old.meta.id)
    sharded, legacy = lb.store.file("submissions", file.path), lb.store.file("submissions", file.legacy_path)
    legacy.parent.mkdir(parents=True, exist_ok=True)
    sharded.rename(legacy)
    fresh = board(data)  # a new process: nothing of the old upload is cached
    (pairing,) = published_compare(fresh, "scb", [row_id(fresh, "Old"), row_id(fresh, "New")])
    assert any(d.metric == "acc" and d.grouping == "overall" and d.difference > 0 for d in pairing.differences)
    assert fresh.moderation.probe_report("scb") == []
