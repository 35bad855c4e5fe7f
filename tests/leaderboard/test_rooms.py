"""The leaderboard's facade split by use case (issue 31): the facade and each room stay small
enough to name, and each room takes what it uses, not the facade (issue 40)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from leaderboard.corrections import GoldCorrections
from leaderboard.descriptions import Descriptions
from leaderboard.moderation import Moderating
from leaderboard.publishing import Publisher
from leaderboard.service import Leaderboard
from leaderboard.submitting import AFTER_SCORING, Submissions
from leaderboard.visibility import Visibility
from submissions.request import SubmitRequest
from tests.support.submissions import ALICE, board, form, write_gold, write_submission


def public_methods(cls: type) -> list[str]:
    return [name for name, member in vars(cls).items() if not name.startswith("_") and callable(member)]


def test_the_facade_has_at_most_20_public_methods() -> None:
    assert len(public_methods(Leaderboard)) <= 20, public_methods(Leaderboard)


@pytest.mark.parametrize("room", [Submissions, Visibility, GoldCorrections, Moderating, Publisher, Descriptions])
def test_each_room_has_about_ten_methods(room: type) -> None:
    assert 1 <= len(public_methods(room)) <= 12, public_methods(room)


def test_the_after_scoring_steps_are_declared_once_and_named() -> None:
    names = [step.name for step in AFTER_SCORING]
    assert len(set(names)) == len(names) and names[0] == "publish the board"
    assert all(inspect.isfunction(step.run) for step in AFTER_SCORING)


ROOMS = ("boards", "publisher", "submissions", "visibility", "descriptions", "corrections", "moderation")


def test_no_room_holds_the_facade(tmp_path: Path) -> None:
    """Issue 40: each room is given the collaborators it uses (store, catalog, golds, boards,
    publisher...), never the whole leaderboard, nor a method bound to it."""
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))
    for name in ROOMS:
        room = getattr(lb, name)
        held = {k: v for k, v in vars(room).items() if v is lb or getattr(v, "__self__", None) is lb}
        assert held == {}, (name, sorted(held))
        for parameter in inspect.signature(type(room)).parameters.values():
            assert "Leaderboard" not in str(parameter.annotation), (name, parameter)


def test_the_names_before_the_rooms_are_gone(tmp_path: Path) -> None:
    """No shim answers for a room any more (issue 40: it had no caller): a room's method is asked
    of its room, and a name the facade does not have is an AttributeError."""
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))
    for name, room in [("submit", "submissions"), ("rescore", "corrections"), ("set_hidden", "moderation")]:
        assert callable(getattr(getattr(lb, room), name))
        with pytest.raises(AttributeError, match=f"no attribute '{name}'"):
            getattr(lb, name)
    answer = lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "s.jsonl"), form(), ALICE, "s.jsonl", validate_only=True)
    )
    assert answer.status.value == "valid"
