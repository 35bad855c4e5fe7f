"""A full disk during a submission (attacks.md #8): the client's answer is the documented
``retry``, nothing of the upload stays stored (no raw file, meta or team claim that a restart or
``resume`` would count and score), and no ``.tmp-*`` file is left behind.

The disk is a byte budget on every file the local store opens for writing: a write past it writes
what fits and raises ENOSPC, as a full filesystem does."""

from __future__ import annotations

import builtins
import errno
import os
from pathlib import Path

import pytest

from leaderboard.service import Leaderboard
from scoring import get_benchmark
from scoring.reading import read
from store import local
from store.records import StoredReading
from submissions.records import Identity, Status
from submissions.request import SubmitRequest
from tests.support.submissions import board, form, scored, write_gold, write_submission

ALICE = Identity("alice")


class FullDisk:
    """``open`` for store.local whose files take at most ``free`` more bytes in all."""

    def __init__(self, free: int) -> None:
        self.free = free

    def open(self, path, mode="r", *args, **kwargs):
        fh = builtins.open(path, mode, *args, **kwargs)  # noqa: SIM115 - the store closes it
        if "w" not in mode and "x" not in mode and "a" not in mode:
            return fh
        disk, real_write = self, fh.write

        def write(data: bytes) -> int:
            room = max(disk.free, 0)
            if len(data) > room:
                real_write(bytes(data[:room]))
                disk.free = 0
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
            disk.free -= len(data)
            return real_write(data)

        fh.write = write
        return fh


def files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@pytest.fixture
def lb(tmp_path: Path) -> Leaderboard:
    return board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))


@pytest.mark.parametrize("free", [0, 100, "raw+40"])
def test_a_submission_on_a_full_disk_is_not_kept_and_asks_to_retry(
    lb: Leaderboard, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, free
):
    upload = write_submission(tmp_path / "a.jsonl", accuracy=0.7)
    raw = upload.stat().st_size
    budget = {"raw+40": raw + 40}.get(free, free)  # the raw file fits, then not its record
    data_dir = tmp_path / "data"
    before = files_under(data_dir)
    quota_before = lb.submissions.quota(ALICE, "scb")
    disk = FullDisk(budget)
    monkeypatch.setattr(local, "open", disk.open, raising=False)

    answer = lb.submissions.submit(SubmitRequest("scb", upload, form("M", "Alice Lab"), ALICE))

    assert answer.status is Status.RETRY, answer
    assert disk.free == 0  # the disk did fill up during the write
    after = files_under(data_dir)
    assert not [f for f in after if Path(f).name.startswith(local.TMP_PREFIX)], after
    assert [f for f in after if f not in before and f.startswith("submissions")] == []
    assert lb.catalog.all() == [] and not lb.teams.all()
    quota = lb.submissions.quota(ALICE, "scb")
    assert (quota.scored_used, quota.attempts_used) == (quota_before.scored_used, quota_before.attempts_used)

    monkeypatch.undo()  # space freed, the process restarted: nothing of the failed upload comes back
    again = board(data_dir)
    assert again.corrections.resume() == 0
    assert again.catalog.all() == [] and scored(again).empty
    retry = again.submissions.submit(SubmitRequest("scb", upload, form("M", "Alice Lab"), ALICE))
    assert retry.status is Status.SCORED  # the retry works


def test_a_disk_that_fills_after_the_upload_is_stored_acknowledges_it_and_scores_it_later(
    lb: Leaderboard, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The upload, its record, its reading and its claim fit; its outcome does not: the answer says
    it was received (it is stored), no failure is counted against it, and ``resume`` scores it once."""
    upload = write_submission(tmp_path / "a.jsonl", accuracy=0.7)
    reading, _ = read(get_benchmark("scb"), lb.golds.get("scb"), upload.read_bytes(), limits=lb.limits)
    disk = FullDisk(upload.stat().st_size + len(StoredReading.to_bytes(reading)) + 2000)
    monkeypatch.setattr(local, "open", disk.open, raising=False)

    answer = lb.submissions.submit(SubmitRequest("scb", upload, form("M", "Alice Lab"), ALICE))

    assert disk.free == 0 and answer.status is Status.RECEIVED, answer
    (state,) = lb.catalog.all()
    assert state.meta.id == answer.submission_id
    assert not [f for f in files_under(tmp_path / "data") if Path(f).name.startswith(local.TMP_PREFIX)]
    monkeypatch.undo()
    again = board(tmp_path / "data")
    assert again.corrections.resume() == 1 and again.corrections.resume() == 0
    assert len(scored(again)) == 1


def test_an_overwrite_on_a_full_disk_keeps_the_old_bytes_and_no_temp_file(tmp_path: Path, monkeypatch):
    store = local.LocalStore(tmp_path / "root")
    store.put("results", {"board.json": b"old"}, "first", overwrite=True)
    monkeypatch.setattr(local, "open", FullDisk(1).open, raising=False)
    with pytest.raises(local.StoreFull):
        store.put("results", {"board.json": b"new and longer", "other.json": b"x"}, "second", overwrite=True)
    monkeypatch.undo()
    assert store.read("results", "board.json") == b"old" and not store.exists("results", "other.json")
    assert files_under(tmp_path / "root") == ["results/board.json"]
