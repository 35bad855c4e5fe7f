"""Integrity (docs/integrity.md): secret bootstrap seeds, rounded answers without counts of right
answers, the Ladder rule, and the probe detector with holds."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from leaderboard.service import Leaderboard
from scoring import SCORER_VERSION, get_benchmark
from scoring.metrics import BOOTSTRAP_SEED
from store import layout
from store.local import LocalStore
from submissions import lifecycle
from submissions.feedback import LADDER_STEP
from submissions.probes import FLAG_AFTER
from submissions.records import Identity, Status
from submissions.request import SubmitRequest
from submissions.seeds import FIXED_SEEDS, BootstrapSeeds, load_or_create
from tests.support.models import ablation, honest_model
from tests.support.submissions import (
    ALICE,
    MAINTAINER,
    board,
    form,
    scored,
    small_gold,
    write_gold,
    write_submission,
)  # fmt: skip

LETTERS = get_benchmark("scb").choices


@pytest.fixture
def ladder(tmp_path: Path) -> Leaderboard:
    """A board deploying the Ladder rule (LEADERBOARD_FEEDBACK=ladder)."""
    return board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"), feedback="ladder")


def write_letters(path: Path, letters: np.ndarray) -> Path:
    """One line per question of the small gold (file order), -1 left out."""
    lines = [
        json.dumps({"question_id": r["question_id"], "answer": LETTERS[c]})
        for r, c in zip(small_gold(), letters, strict=True)
        if c >= 0
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def gold_letters() -> np.ndarray:
    return np.array([LETTERS.index(r["answer"]) for r in small_gold()], dtype=np.int8)


# ---- seeds ----


def test_seeds_are_fixed_without_a_secret_and_keyed_by_submission_with_one() -> None:
    assert FIXED_SEEDS.for_submission("x") == BOOTSTRAP_SEED
    seeds = BootstrapSeeds(b"k" * 32)
    assert seeds.for_submission("a") == seeds.for_submission("a") != seeds.for_submission("b")
    assert BootstrapSeeds(b"j" * 32).for_submission("a") != seeds.for_submission("a")
    assert "k" * 8 not in repr(seeds)


def test_the_secret_is_stored_once_in_the_gold_repo_and_shared(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    first = load_or_create(store, None)
    assert store.exists("gold", layout.bootstrap_secret()) and not store.list("results")
    assert load_or_create(LocalStore(tmp_path), None) == first  # a restart or replica reads the same
    assert load_or_create(store, "configured").key == b"configured"


def test_rescoring_reproduces_the_intervals_and_they_differ_from_the_public_seed(lb: Leaderboard) -> None:
    answer = lb.submissions.submit(
        SubmitRequest("scb", write_submission(lb.settings.data_dir / "s.jsonl"), form(), ALICE)
    )
    state = lb.catalog.get(answer.submission_id)
    gold = lb.golds.get("scb")
    raw = lb.store.read("submissions", layout.raw("scb", state.meta.id))
    stored = state.result(gold.version, SCORER_VERSION)
    again = lifecycle.evaluate(state.meta, gold, raw, lb.limits, lb.seeds).result
    public = lifecycle.evaluate(state.meta, gold, raw, lb.limits).result
    assert again.to_dict() == stored.to_dict()
    assert public.overall["acc"] == stored.overall["acc"]
    assert lb.seeds.for_submission(state.meta.id) != BOOTSTRAP_SEED
    # Two bootstraps of 140 questions can land on the same overall interval by chance (the
    # endpoints step by 1/140: CI saw it once); over every group's intervals they do not.
    assert len(intervals(stored.to_dict())) > 10  # overall and every group: many to compare
    assert intervals(public.to_dict()) != intervals(stored.to_dict())


def intervals(result: dict) -> list:
    """Every interval in a result, in a fixed order (overall and each group's, each metric's)."""
    found = []
    for key, value in sorted(result.items()):
        if isinstance(value, dict):
            found += intervals(value)
        elif key.endswith("_ci"):
            found.append((key, value))
    return found


# ---- what a submitter is told ----


def test_answers_are_rounded_and_carry_no_counts_of_right_answers(lb: Leaderboard) -> None:
    path = write_submission(lb.settings.data_dir / "s.jsonl", accuracy=0.6, grounding="bbox_good")
    result = lb.submissions.submit(SubmitRequest("scb", path, form(), ALICE)).to_api()["result"]
    bench = get_benchmark("scb")
    assert set(result["counts"]) <= {"questions", "submitted", "missing", "unparsed", "lenient"}
    groups = [result["overall"], *(s for g in bench.groupings for s in result[g.name].values())]
    for stats in groups:
        assert "correct" not in stats and "questions" in stats
        for m in bench.metrics:
            for v in [stats.get(m.name)] + list(stats.get(m.ci) or [] if m.ci else []):
                assert v is None or round(v, m.decimals) == v


def test_the_ladder_withholds_a_submission_that_does_not_beat_the_best_shown_one(ladder: Leaderboard) -> None:
    lb = ladder
    d = lb.settings.data_dir
    private = form("M", visibility="private")  # a public one is the team's chosen row: always shown
    first = lb.submissions.submit(
        SubmitRequest("scb", write_submission(d / "a.jsonl", accuracy=0.5, seed=1), form("M"), ALICE)
    )
    again = lb.submissions.submit(
        SubmitRequest("scb", write_submission(d / "b.jsonl", accuracy=0.5, seed=2), private, ALICE)
    )
    better = lb.submissions.submit(
        SubmitRequest("scb", write_submission(d / "c.jsonl", accuracy=0.8, seed=3), form("M2"), ALICE)
    )
    assert first.result is not None and better.result is not None
    assert again.status is Status.SCORED and again.result is None and again.rank is None
    assert f"more than {LADDER_STEP:g} point," in again.message and first.submission_id in again.message
    assert "1 points" not in again.message and again.reason.code == "ladder_withheld"  # review #13: "1 points"
    assert set(scored(lb)["model"]) == {"M", "M2"}  # the withheld one is private: no row
    assert lb.submissions.rank_of("scb", again.submission_id) is None
    withheld = lb.catalog.get(again.submission_id)
    assert lb.submissions.result_for_submitter(withheld) is None
    assert withheld.result(lb.golds.info("scb").version, SCORER_VERSION) is not None  # kept for maintainers
    dup = lb.submissions.submit(SubmitRequest("scb", d / "b.jsonl", private, ALICE))
    assert dup.duplicate_of == again.submission_id and dup.result is None


def test_maintainers_are_exempt_from_the_ladder(ladder: Leaderboard) -> None:
    lb = ladder
    d = lb.settings.data_dir
    for i in range(2):
        answer = lb.submissions.submit(
            SubmitRequest("scb", write_submission(d / f"{i}.jsonl", accuracy=0.5, seed=i), form(f"M{i}"), MAINTAINER)
        )
        assert answer.result is not None and lb.catalog.get(answer.submission_id).meta.maintainer


# ---- probe detection ----


def test_a_probe_series_is_flagged_held_and_withheld(ladder: Leaderboard) -> None:
    lb = ladder
    d = lb.settings.data_dir
    rng = np.random.default_rng(0)
    base = honest_model(gold_letters(), len(LETTERS), 0.5, rng)
    lb.submissions.submit(SubmitRequest("scb", write_letters(d / "base.jsonl", base), form("Base"), ALICE))
    ids = []
    for i in range(FLAG_AFTER):
        probe = base.copy()
        probe[i] = (probe[i] + 1) % len(LETTERS)
        private = form("Base", visibility="private")  # public ones would use up the team's publications
        ids.append(
            lb.submissions.submit(
                SubmitRequest("scb", write_letters(d / f"p{i}.jsonl", probe), private, ALICE)
            ).submission_id
        )
    (flag,) = lb.moderation.probe_report("scb")
    assert flag.submitter == ALICE.username and flag.flagged_at == FLAG_AFTER + 1
    assert all("differs from own" in p.reasons[0] for p in flag.evidence)
    assert lb.moderation.hold(ids, "maintainer") == ids and all(lb.moderation.is_held(i) for i in ids)
    (flag,) = lb.moderation.probe_report("scb")
    assert flag.held == tuple(ids)
    state = lb.catalog.get(ids[0])
    assert state.hidden and lb.submissions.result_for_submitter(state) is None


def test_one_letter_files_are_degenerate_and_sybil_copies_are_compared_across_submitters(lb: Leaderboard) -> None:
    d = lb.settings.data_dir
    n = len(small_gold())
    for i in range(FLAG_AFTER):
        letters = np.full(n, i % 2, dtype=np.int8)
        lb.submissions.submit(
            SubmitRequest("scb", write_letters(d / f"a{i}.jsonl", letters), form("M", f"team-{i}"), Identity(f"s{i}"))
        )
    assert lb.moderation.probe_report("scb") == []  # one degenerate file each: no submitter has a series
    base = np.zeros(n, dtype=np.int8)
    for i in range(FLAG_AFTER):
        probe = base.copy()
        probe[i] = 2
        lb.submissions.submit(
            SubmitRequest(
                "scb", write_letters(d / f"c{i}.jsonl", probe), form("M", "mallory's team"), Identity("mallory")
            )
        )
    (flag,) = lb.moderation.probe_report("scb")
    assert flag.submitter == "mallory" and any("another submitter" in r for p in flag.evidence for r in p.reasons)


@pytest.mark.parametrize("seed", range(3))
def test_an_honest_series_of_ablations_is_not_flagged(lb: Leaderboard, seed: int) -> None:
    """A model and eight variants, each differing from the base in 5-20 % of the answers."""
    d = lb.settings.data_dir
    rng = np.random.default_rng(seed)
    gold = gold_letters()
    base = honest_model(gold, len(LETTERS), 0.55, rng)
    lb.submissions.submit(SubmitRequest("scb", write_letters(d / "base.jsonl", base), form("Base"), ALICE))
    for i, share in enumerate(np.linspace(0.05, 0.20, 8)):
        variant = ablation(base, gold, len(LETTERS), float(share), rng)
        lb.submissions.submit(
            SubmitRequest("scb", write_letters(d / f"v{i}.jsonl", variant), form(f"Base-v{i}"), ALICE)
        )
    assert lb.moderation.probe_report("scb") == []


def test_the_probes_command_lists_and_holds_a_flagged_submitter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from leaderboard import cli

    # full feedback: four public files under one team, past the Ladder's publication ration
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"), feedback="full")
    d = lb.settings.data_dir
    base = np.zeros(len(small_gold()), dtype=np.int8)
    for i in range(FLAG_AFTER + 1):
        probe = base.copy()
        probe[:i] = 1
        lb.submissions.submit(SubmitRequest("scb", write_letters(d / f"p{i}.jsonl", probe), form(), ALICE))
    monkeypatch.setenv("LEADERBOARD_DATA_DIR", str(d))
    monkeypatch.setenv("LEADERBOARD_DEMO", "0")
    assert cli.main(["probes", "--benchmark", "scb"]) == 0
    assert f"scb: {ALICE.username}: " in capsys.readouterr().out
    assert cli.main(["probes", "--hold", "nobody"]) == 1
    assert cli.main(["probes", "--benchmark", "scb", "--hold", ALICE.username]) == 0
    assert f"held {FLAG_AFTER + 1} submission(s)" in capsys.readouterr().out
    assert scored(Leaderboard(lb.settings)).empty


def _attack_module():
    spec = importlib.util.spec_from_file_location("probe_attack", Path(__file__).parents[2] / "perf/probe_attack.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def test_the_attack_simulator_prices_probing_out_under_the_default_policy(tmp_path: Path) -> None:
    """perf/probe_attack.py --check on a 1,000-question gold (a probe file then differs from its
    baseline in fewer than 2 % of the answers, as on the real SCB): the differential attack pins
    answers under full feedback and with fresh accounts; the Ladder withholds them; publishing
    reveals only what the ration allows; the automatic hold stops the fresh-account series; the
    detector flags every series within 10 submissions."""
    from scoring import load_gold
    from tests.support import demo

    attack = _attack_module()
    gold = load_gold("scb", demo.write_jsonl(tmp_path / "gold.jsonl", demo.scb_gold(seed=0, sizes=(300, 300, 400))))
    runs = {o.policy: o for o in attack.check(gold, cap=20)}
    assert set(runs) == set(attack.POLICIES) and all(o.correct and o.scored == 20 for o in runs.values())
    assert runs["full"].learned > 0.02 and runs["sybil"].learned == runs["full"].learned
    assert runs["ladder"].learned == 0
    assert 0 < runs["publish"].learned < runs["full"].learned / 2 and runs["publish"].published == 3  # 20 files: 4 days
    assert runs["sybil+hold"].learned < runs["full"].learned / 10 and runs["sybil+hold"].held >= 15
    assert runs["publish+hold"].held >= 15
    assert all(o.flagged_at is not None and o.flagged_at <= 10 for o in runs.values())


def test_refusals_in_place_of_missing_lines_are_scored_but_the_series_is_held(tmp_path: Path) -> None:
    """Counting a refusal as an answered (wrong) line lets the review's partial file pass the
    minimum coverage: under fresh accounts without the hold it learns like the differential
    attack, and the detector flags and holds it ("most lines state no letter")."""
    from scoring import load_gold
    from tests.support import demo

    attack = _attack_module()
    gold = load_gold("scb", demo.write_jsonl(tmp_path / "gold.jsonl", demo.scb_gold(seed=0, sizes=(300, 300, 400))))
    runs = {p: attack.run(gold, "refusals", p, 20) for p in ("sybil", "sybil+hold", "publish+hold")}
    assert all(o.correct and o.rejected == 0 and o.scored == 20 for o in runs.values())
    assert runs["sybil"].learned > 0.02
    assert runs["sybil+hold"].learned < runs["sybil"].learned / 5 and runs["sybil+hold"].held >= 15
    assert runs["publish+hold"].held >= 15
    assert all(o.flagged_at is not None and o.flagged_at <= 3 for o in runs.values())
