"""A gold whose question ids would shift is refused (issue 42, red team turn 5 "Info"): K-Viscuit's
``question_id`` is the row's position in the official file, so a gold without rows 10-11 renumbers every
later question, and each team's answer to question N would be scored against question N + 2 (the red
team: every row fell to chance, 59.67 -> 28.09) while the preview said only "answers changed on kept
questions: 484". The refusal names the shift; nothing is stored or staged. Dropping rows at the end,
where no id moves, is the question-set change it always was (previewed, confirmed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.errors import GoldError
from store.golds import UnconfirmedGold
from submissions.records import Identity
from submissions.request import SubmitRequest
from tests.leaderboard.test_cli import cli
from tests.support import demo
from tests.support.submissions import board, form, write_gold


@pytest.fixture
def kviscuit(tmp_path: Path):
    """A board with the demo K-Viscuit gold and one team's public row (about 80 % right)."""
    lb = board(tmp_path / "data", write_gold(tmp_path / "scb-gold.jsonl"))
    gold = demo.kviscuit_gold(0)
    lb.corrections.add_gold("kviscuit", demo.write_jsonl(tmp_path / "kv-gold.jsonl", gold), "maintainer")
    path = demo.write_jsonl(tmp_path / "kv.jsonl", demo.kviscuit_submission(gold, 0.8, seed=3))
    answer = lb.submissions.submit(SubmitRequest("kviscuit", path, form("KV-Model", "Lab", visibility="public"),
                                                 Identity("alice")))  # fmt: skip
    assert answer.result is not None, answer.message
    return lb, gold


def test_a_gold_without_rows_10_and_11_is_refused_naming_the_shift(kviscuit, tmp_path):
    lb, gold = kviscuit
    before = lb.gold_info("kviscuit").version
    cut = demo.write_jsonl(tmp_path / "cut.jsonl", [r for i, r in enumerate(gold) if i not in (10, 11)])
    with pytest.raises(GoldError) as refused:
        lb.corrections.preview_gold("kviscuit", cut)
    said = str(refused.value)
    assert "question_id 10" in said and "2 rows" in said and "question_id 12 of the current gold" in said
    assert f"{len(gold) - 12:,} kept question_ids" in said
    for confirm in (False, True):
        with pytest.raises(GoldError):
            lb.corrections.update_gold("kviscuit", cut, "maintainer", confirm=confirm)
    assert lb.gold_info("kviscuit").version == before and lb.corrections.staged_gold("kviscuit") is None
    # the maintainer's command says so and stores nothing, --confirm or not
    data = lb.settings.data_dir
    for extra in ((), ("--confirm",)):
        done = cli(data, "gold", "add", "--benchmark", "kviscuit", "--file", str(cut), *extra, ok=False)
        assert done.returncode == 1 and "renumber" in done.stderr and "question_id 10" in done.stderr, done.stderr


def test_two_rows_swapped_are_refused_too(kviscuit, tmp_path):
    lb, gold = kviscuit
    swapped = list(gold)
    swapped[3], swapped[4] = swapped[4], swapped[3]
    with pytest.raises(GoldError, match="question_id 3"):
        lb.corrections.preview_gold("kviscuit", demo.write_jsonl(tmp_path / "swap.jsonl", swapped))


def test_dropping_the_last_rows_moves_no_id_and_is_the_usual_confirmed_change(kviscuit, tmp_path):
    lb, gold = kviscuit
    shorter = demo.write_jsonl(tmp_path / "short.jsonl", gold[:-2])
    shown = lb.corrections.preview_gold("kviscuit", shorter)
    assert "2 removed" in "\n".join(shown.lines()) and shown.needs_confirmation
    with pytest.raises(UnconfirmedGold):
        lb.corrections.update_gold("kviscuit", shorter, "maintainer")
    assert lb.corrections.update_gold("kviscuit", shorter, "maintainer", confirm=True).staged
