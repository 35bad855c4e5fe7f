"""The team's Compare never loses what the person picked to a refresh of its runs (issue 44).

Opening or refreshing My submissions offers the runs again; under load that answer can arrive after
the person has started picking. It first reset the picks (value=[]); then it kept the picks it was
sent with, which still dropped a pick made after the refresh was sent: the browser test of the team's
Compare lost a typed pick, or its two picks just before Compare, about one full run in three. A refresh
now sends the choices only, and Gradio applies only what an update names; a pick no longer offered
is refused by Compare, which names it (compare_runs, tests/leaderboard/test_disclosure_matrix.py)."""

from __future__ import annotations

from types import SimpleNamespace

from ui import team_compare

OFFERED = [
    SimpleNamespace(name="Alice-Weak · yours, private", key="mine:1"),
    SimpleNamespace(name="B", key="row:2"),
]


def compare_offering(monkeypatch, offered=OFFERED) -> team_compare.TeamCompare:
    monkeypatch.setattr(team_compare, "runs_for", lambda leaderboard, identity, benchmark: offered)
    auth = SimpleNamespace(identity=lambda profile, request: None)
    return team_compare.TeamCompare(None, auth)


def named(update) -> set[str]:
    """The properties a returned component changes: those its constructor was given (Gradio's update rule)."""
    return set(update.constructor_args)


def test_a_refresh_offers_the_runs_and_leaves_the_picks_alone(monkeypatch):
    update = compare_offering(monkeypatch).offered("scb", None, None)
    assert [key for _, key in update.choices] == ["mine:1", "row:2"]
    assert named(update) == {"choices"}  # no value: the picks made meanwhile stay


def test_another_benchmark_offers_its_runs_and_empties_the_picks(monkeypatch):
    update = compare_offering(monkeypatch).of_benchmark("kviscuit", None, None)
    assert [key for _, key in update.choices] == ["mine:1", "row:2"]
    assert named(update) == {"choices", "value", "multiselect"} and update.value == []


def test_an_unknown_benchmark_offers_nothing(monkeypatch):
    update = compare_offering(monkeypatch).offered("no-such-benchmark", None, None)
    assert update.choices == []
