"""The Hub store's outbox (``store.hub.Outbox``): a write while the Hub is away appends one entry
without reading the others, so a backlog of n pending writes costs n file writes, not n^2 reads;
the count of pending writes is read from the names alone. Entries still come back whole and in
order."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.hub import Outbox

BACKLOG = 120


@pytest.fixture
def backlog(tmp_path: Path) -> Outbox:
    outbox = Outbox(tmp_path / "outbox")
    for i in range(BACKLOG):
        outbox.add("results", [f"file-{i}.json"], f"write {i}", overwrite=False)
    return outbox


@pytest.fixture
def reads(monkeypatch) -> list[Path]:
    """Every file body read through ``Path.read_bytes`` (how the outbox reads an entry)."""
    seen: list[Path] = []
    original = Path.read_bytes

    def counted(self: Path) -> bytes:
        seen.append(self)
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", counted)
    return seen


def test_a_write_reads_none_of_the_pending_entries(backlog: Outbox, reads: list[Path]) -> None:
    backlog.add("results", ["one-more.json"], "one more", overwrite=True)
    assert reads == []
    assert backlog.pending_count() == BACKLOG + 1
    assert reads == []


def test_entries_come_back_in_order_with_their_bodies(backlog: Outbox) -> None:
    backlog.add("gold", ["g.json"], "gold write", overwrite=True)
    entries = backlog.entries()
    assert [e.paths for e in entries] == [(f"file-{i}.json",) for i in range(BACKLOG)] + [("g.json",)]
    assert (entries[-1].repo, entries[-1].message, entries[-1].overwrite) == ("gold", "gold write", True)
    numbers = [int(e.file.name.split("-")[0]) for e in entries]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)


def test_a_write_after_pushed_entries_still_goes_last(backlog: Outbox) -> None:
    for entry in backlog.entries()[-5:]:
        backlog.done(entry)  # the newest pushed: the next number still follows every one left
    backlog.add("results", ["after.json"], "after", overwrite=False)
    assert backlog.entries()[-1].paths == ("after.json",)
