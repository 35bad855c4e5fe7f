"""Model pages and paired comparisons through the facade: aggregates only, checked against an
independent count of the two files' right answers."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from leaderboard.compare import mcnemar_exact
from leaderboard.service import Leaderboard
from store import layout
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
        assert lb.submit("scb", path, form(model, "T2" if model == "Twin" else "T"), ALICE).result is not None
    return lb, files, gold


def row_id(lb: Leaderboard, model: str) -> str:
    table = lb.table("scb")
    return table.loc[table["model"] == model, "row_id"].iloc[0]


def right_answers(path: Path, gold: list[dict]) -> list[bool]:
    answers = {json.loads(line)["question_id"]: json.loads(line)["answer"] for line in path.read_text().splitlines()}
    return [q["answer"] == answers.get(q["question_id"]) for q in gold]


def test_overall_accuracy_difference_and_mcnemar(compared):
    lb, files, gold = compared
    (pairing,) = lb.compare("scb", [row_id(lb, "Strong"), row_id(lb, "Weak")])
    overall = next(d for d in pairing.differences if d.metric == "acc" and d.grouping == "overall")
    a, b = right_answers(files["Strong"], gold), right_answers(files["Weak"], gold)
    n = len(gold)
    assert overall.questions == n
    assert overall.difference == pytest.approx(100 * (sum(a) - sum(b)) / n)
    assert overall.low <= overall.difference <= overall.high
    a_only = sum(x and not y for x, y in zip(a, b))
    b_only = sum(y and not x for x, y in zip(a, b))
    assert overall.p_value == pytest.approx(mcnemar_exact(a_only, b_only)) and overall.test == "McNemar exact"
    groups = {d.grouping for d in pairing.differences}
    assert {"overall", "type", "country", "category"} <= groups
    miou = [d for d in pairing.differences if d.metric == "miou" and d.grouping == "overall"]
    assert miou and miou[0].test == "paired bootstrap" and 0 < miou[0].p_value <= 1


def test_identical_answers_differ_by_nothing(compared):
    lb, _, _ = compared
    (pairing,) = lb.compare("scb", [row_id(lb, "Strong"), row_id(lb, "Twin")])
    for d in pairing.differences:
        if d.difference is not None:
            assert d.difference == 0 and d.low == d.high == 0


def test_only_aggregates_leave_the_facade(compared):
    lb, _, _ = compared
    for pairing in lb.compare("scb", [row_id(lb, "Strong"), row_id(lb, "Weak"), row_id(lb, "Twin")]):
        for d in pairing.differences:
            for value in dataclasses.astuple(d):
                assert value is None or isinstance(value, str | int | float) and not isinstance(value, bool)
                assert not isinstance(value, float) or math.isfinite(value)


def test_paper_rows_and_bad_picks_are_refused_clearly(compared):
    lb, _, _ = compared
    paper = row_id(lb, "GPT-o3")
    with pytest.raises(ValueError, match="published row"):
        lb.compare("scb", [row_id(lb, "Strong"), paper])
    with pytest.raises(ValueError, match="pick 2 to 4"):
        lb.compare("scb", [row_id(lb, "Strong")])
    with pytest.raises(ValueError, match="no row"):
        lb.compare("scb", [row_id(lb, "Strong"), "nope"])


def test_model_details_carry_provenance_and_history(compared, tmp_path):
    lb, files, gold = compared
    details = lb.details("scb", row_id(lb, "Weak"))
    assert details.row.model == "Weak" and details.gold_version == lb.gold_info("scb").version
    assert details.scorer_version and details.box_format == "xyxy"
    assert [h.chosen for h in details.history] == [True]
    again = write_submission(tmp_path / "again.jsonl", gold, accuracy=0.6, seed=5)
    lb.submit("scb", again, form("Weak", "T"), ALICE)
    details = lb.details("scb", row_id(lb, "Weak"))
    assert len(details.history) == 2 and details.history[0].chosen  # latest rule: the newest is the row
    paper = lb.details("scb", row_id(lb, "GPT-o3"))
    assert paper.history == () and paper.row.paper_url.startswith("https://")
    sizes = lb.group_sizes("scb")
    assert sum(sizes["type"].values()) == len(gold)
    assert lb.details("scb", "nope") is None and lb.last_updated("scb")


def test_the_accuracy_interval_is_the_paired_bootstrap_of_the_public_weights(tmp_path):
    """The interval is the percentiles of the two models' paired resampled differences, each
    resample the public seed's counts: here computed by hand in integers."""
    import numpy as np

    from scoring.metrics import CI_PERCENTILES, bootstrap_weights

    gold = small_gold()
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl", gold))
    files = {
        "P": write_submission(tmp_path / "p.jsonl", gold, accuracy=0.8, seed=11),
        "Q": write_submission(tmp_path / "q.jsonl", gold, accuracy=0.5, seed=12),
    }
    for model, path in files.items():
        assert lb.submit("scb", path, form(model, "T"), ALICE).result is not None
    (pairing,) = lb.compare("scb", [row_id(lb, "P"), row_id(lb, "Q")])
    overall = next(d for d in pairing.differences if d.metric == "acc" and d.grouping == "overall")
    rows = [q["question_id"] for q in gold]
    order = [rows.index(k) for k in lb.golds.get("scb").keys]  # the compiled gold's row order
    a = np.array(right_answers(files["P"], gold), dtype=np.int64)[order]
    b = np.array(right_answers(files["Q"], gold), dtype=np.int64)[order]
    weights = bootstrap_weights(len(gold)).astype(np.int64)
    resampled = 100 * (weights @ a) / len(gold) - 100 * (weights @ b) / len(gold)
    low, high = np.percentile(resampled, CI_PERCENTILES)
    assert (overall.low, overall.high) == (pytest.approx(low, abs=1e-9), pytest.approx(high, abs=1e-9))


def test_an_upload_stored_in_the_first_unsharded_layout_is_compared_and_probed(tmp_path):
    """Uploads from before sharding live at ``{benchmark}/{id}/raw.jsonl``; the catalog and
    ``lifecycle.read_raw`` find them, and so must Compare and the probe report (they read the
    upload through the same one reader)."""
    gold = small_gold()
    data = tmp_path / "data"
    lb = board(data, write_gold(tmp_path / "gold.jsonl", gold))
    for model, accuracy, seed in (("Old", 0.8, 1), ("New", 0.5, 2)):
        path = write_submission(tmp_path / f"{model}.jsonl", gold, accuracy=accuracy, grounding="bbox_good", seed=seed)
        assert lb.submit("scb", path, form(model, "T"), ALICE).result is not None
    old = next(s for s in lb.catalog.all("scb") if s.meta.model == "Old")
    file = layout.SubmissionFile.raw("scb", old.meta.id)
    sharded, legacy = lb.store.file("submissions", file.path), lb.store.file("submissions", file.legacy_path)
    legacy.parent.mkdir(parents=True, exist_ok=True)
    sharded.rename(legacy)
    fresh = board(data)  # a new process: nothing of the old upload is cached
    (pairing,) = fresh.compare("scb", [row_id(fresh, "Old"), row_id(fresh, "New")])
    assert any(d.metric == "acc" and d.grouping == "overall" and d.difference > 0 for d in pairing.differences)
    assert fresh.probe_report("scb") == []
