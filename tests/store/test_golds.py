"""The gold registry (store/golds.py): a new gold is checked against the declaration and the
current gold before anything is stored, waits as staged, and becomes current in one write."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring import GoldError, get_benchmark
from scoring.goldcheck import GroupSize
from store import layout
from store.golds import GoldRegistry, UnconfirmedGold
from store.local import LocalStore
from tests.support.submissions import small_gold, snapshot, write_gold


@pytest.fixture
def registry(tmp_path: Path) -> GoldRegistry:
    golds = GoldRegistry(LocalStore(tmp_path / "data"), tmp_path / "cache")
    golds.add("scb", write_gold(tmp_path / "gold.jsonl"), "maintainer")
    return golds


def _changed_answer(gold: list[dict], row: int) -> list[dict]:
    out = [dict(r) for r in gold]
    out[row]["answer"] = "ABCD"[("ABCD".index(out[row]["answer"]) + 1) % 4]
    return out


def test_the_first_gold_is_current_at_once(registry: GoldRegistry) -> None:
    info = registry.info("scb")
    assert info is not None and info.questions == len(small_gold()) and registry.staged("scb") is None
    assert registry.store.exists("results", layout.public_questions("scb"))


def test_an_unknown_group_label_is_refused_and_named(registry: GoldRegistry, tmp_path: Path) -> None:
    gold = small_gold()
    for r in gold[:3]:
        r["country"] = "Laos"
    before = snapshot(registry.store, "gold")
    with pytest.raises(GoldError) as caught:
        registry.add("scb", write_gold(tmp_path / "laos.jsonl", gold), "maintainer", confirm=True)
    message = str(caught.value)
    assert "unknown country 'Laos' (3 questions)" in message
    assert all(repr(c) in message for c in get_benchmark("scb").grouping("country").order)
    assert snapshot(registry.store, "gold") == before


def test_fewer_questions_need_confirmation_and_say_what_differs(registry: GoldRegistry, tmp_path: Path) -> None:
    gold = small_gold()
    kept = gold[: len(gold) - 17]
    removed = gold[len(kept) :]
    path = write_gold(tmp_path / "fewer.jsonl", _changed_answer(kept, 0))
    before, questions = snapshot(registry.store, "gold"), registry.store.read("results", "questions/scb.jsonl")
    with pytest.raises(UnconfirmedGold) as caught:
        registry.add("scb", path, "maintainer")
    changes = caught.value.changes
    assert (changes.questions_before, changes.questions_after) == (len(gold), len(kept))
    assert (changes.added, changes.removed, changes.answers_changed) == (0, len(removed), 1)
    types = {str(t): sum(str(r["type"]) == str(t) for r in removed) for t in (1, 2, 3)}
    expected = [
        GroupSize("type", t, sum(str(r["type"]) == t for r in gold), sum(str(r["type"]) == t for r in kept))
        for t, n in types.items()
        if n
    ]
    assert [g for g in changes.group_sizes if g.grouping == "type"] == expected
    assert f"0 added, {len(removed)} removed" in str(caught.value)
    assert snapshot(registry.store, "gold") == before  # nothing stored without confirmation
    update = registry.stage("scb", path, "maintainer", confirm=True)
    assert update.staged and update.changes == changes
    assert registry.staged("scb") == update.info and registry.info("scb").version != update.info.version
    assert registry.store.read("results", "questions/scb.jsonl") == questions  # public only once current


def test_an_answer_correction_needs_no_confirmation(registry: GoldRegistry, tmp_path: Path) -> None:
    update = registry.stage("scb", write_gold(tmp_path / "v2.jsonl", _changed_answer(small_gold(), 5)), "m")
    assert update.staged and not update.changes.needs_confirmation and update.changes.answers_changed == 1


def test_promote_switches_the_pointer_and_publishes_the_questions(registry: GoldRegistry, tmp_path: Path) -> None:
    v1 = registry.info("scb")
    fewer = small_gold()[:-10]
    staged = registry.add("scb", write_gold(tmp_path / "v2.jsonl", fewer), "maintainer", confirm=True)
    assert registry.promote("scb", "0" * 64) is None and registry.info("scb") == v1  # not the staged version
    current = registry.promote("scb", staged.version)
    assert current.version == staged.version and current.previous_version == v1.version
    assert registry.info("scb") == current and registry.staged("scb") is None
    assert len(registry.store.read("results", "questions/scb.jsonl").splitlines()) == len(fewer)
    assert registry.get("scb").version == staged.version
    assert [k[1] for k in registry._compiled if k[0] == "scb"] == [staged.version]  # the old one is freed
    assert registry.promote("scb", staged.version) is None  # nothing staged any more


def test_adding_the_current_gold_again_withdraws_the_staged_one(registry: GoldRegistry, tmp_path: Path) -> None:
    v1 = registry.info("scb")
    registry.add("scb", write_gold(tmp_path / "v2.jsonl", _changed_answer(small_gold(), 1)), "maintainer")
    assert registry.staged("scb") is not None
    assert registry.stage("scb", tmp_path / "gold.jsonl", "maintainer").info == v1
    assert registry.staged("scb") is None and registry.info("scb") == v1


def test_current_and_staged_stay_compiled_in_memory(registry: GoldRegistry, tmp_path: Path) -> None:
    current = registry.get("scb")
    staged = registry.add("scb", write_gold(tmp_path / "v2.jsonl", _changed_answer(small_gold(), 1)), "maintainer")
    assert registry.compiled(staged) is registry.compiled(staged)
    assert registry.get("scb") is current  # not compiled again while a gold is staged
