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

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = ("ui", "leaderboard", "app.py")


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
