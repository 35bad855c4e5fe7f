"""The team's Compare keeps what the person picked when its runs are offered again (issue 44).

Opening or refreshing My submissions offers the runs again; under load that answer can arrive after
the person has started picking. It used to reset the picks (value=[]): the browser test of the team's
Compare then lost its typed pick one run in two on a busy host."""

from __future__ import annotations

from types import SimpleNamespace

from ui import team_compare


def test_a_late_offer_keeps_the_picks_still_offered_and_drops_the_others(monkeypatch):
    offered = [
        SimpleNamespace(name="Alice-Weak · yours, private", key="mine:1"),
        SimpleNamespace(name="B", key="row:2"),
    ]
    monkeypatch.setattr(team_compare, "runs_for", lambda leaderboard, identity, benchmark: offered)
    auth = SimpleNamespace(identity=lambda profile, request: None)
    compare = team_compare.TeamCompare(None, auth)
    update = compare.runs("scb", ["row:2", "mine:9"], None, None)
    assert update.value == ["row:2"]  # a key no longer offered (or never offered to this viewer) is dropped
    assert [key for _, key in update.choices] == ["mine:1", "row:2"]
    assert compare.runs("scb", None, None, None).value == []
