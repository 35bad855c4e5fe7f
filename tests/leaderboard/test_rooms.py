"""The leaderboard's facade split by use case (issue 31): the facade and each room stay small
enough to name, and production code calls the rooms, never the names kept for older callers."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from leaderboard.corrections import GoldCorrections
from leaderboard.moderation import Moderating
from leaderboard.service import MOVED, Leaderboard
from leaderboard.submitting import AFTER_SCORING, Submissions
from leaderboard.visibility import Visibility
from submissions.request import SubmitRequest
from tests.support.submissions import ALICE, board, form, write_gold, write_submission

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = ("ui", "leaderboard", "app.py")
TESTS = "tests"


def public_methods(cls: type) -> list[str]:
    return [name for name, member in vars(cls).items() if not name.startswith("_") and callable(member)]


def test_the_facade_has_at_most_20_public_methods() -> None:
    assert len(public_methods(Leaderboard)) <= 20, public_methods(Leaderboard)


@pytest.mark.parametrize("room", [Submissions, Visibility, GoldCorrections, Moderating])
def test_each_room_has_about_ten_methods(room: type) -> None:
    assert 1 <= len(public_methods(room)) <= 12, public_methods(room)


def test_every_moved_name_lives_in_its_room() -> None:
    rooms = {"submissions": Submissions, "visibility": Visibility, "corrections": GoldCorrections}
    rooms |= {"moderation": Moderating}
    for name, room in MOVED.items():
        if room in rooms:
            assert callable(getattr(rooms[room], name)), (name, room)
    assert not set(MOVED) & set(public_methods(Leaderboard))


def test_the_after_scoring_steps_are_declared_once_and_named() -> None:
    names = [step.name for step in AFTER_SCORING]
    assert len(set(names)) == len(names) and names[0] == "publish the board"
    assert all(inspect.isfunction(step.run) for step in AFTER_SCORING)


def calls_on_the_facade(path: Path) -> list[str]:
    """``lb.submit(...)``-like calls of a moved name on a leaderboard (``lb``, ``leaderboard``,
    ``self.leaderboard``) in one production file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner, name = node.func.value, node.func.attr
        owner_name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
        if name in MOVED and owner_name in ("lb", "leaderboard"):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {owner_name}.{name}(...)")
    return found


def test_production_code_calls_the_rooms() -> None:
    paths = [ROOT / top for top in PRODUCTION if top.endswith(".py")]
    paths += [p for top in PRODUCTION if not top.endswith(".py") for p in sorted((ROOT / top).rglob("*.py"))]
    assert [call for path in paths for call in calls_on_the_facade(path)] == []


def test_the_tests_call_the_rooms_too() -> None:
    """The names kept for older callers are for scripts outside: the suite calls the rooms (by the
    same rule as production code: a moved name on ``lb`` or ``leaderboard``), except the test of
    the kept names below."""
    paths = [p for p in sorted((ROOT / TESTS).rglob("*.py")) if p != Path(__file__).resolve()]
    assert [call for path in paths for call in calls_on_the_facade(path)] == []


def test_the_old_names_still_answer_as_their_rooms(tmp_path: Path) -> None:
    """``MOVED`` keeps every name the facade had before issue 31: each is its room's method, and
    ``submit`` takes the old positional arguments and answers as the room does with a request."""
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))
    for name, room in MOVED.items():
        if name != "submit":
            assert getattr(lb, name) == getattr(getattr(lb, room), name), name
    path = write_submission(tmp_path / "s.jsonl")
    old = lb.submit("scb", path, form(), ALICE, "s.jsonl", validate_only=True)
    new = lb.submissions.submit(SubmitRequest("scb", path, form(), ALICE, "s.jsonl", validate_only=True))
    assert (old.status, old.issues) == (new.status, new.issues) and old.status.value == "valid"
    with pytest.raises(AttributeError, match="no attribute 'no_such_room_method'"):
        _ = lb.no_such_room_method
