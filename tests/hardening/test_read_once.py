"""The red team's turn-5 loads (red.md N1-N4), made small, through the real intake, pool and
maintainer commands: every upload is read once, in the bounded worker, and the web process (here:
this test process, which holds the Leaderboard as the app does) parses no team's file.

- a refused workbook is read by nothing again; the honest upload after it parses nothing here (N1);
- three compressed zips of one honest run are all scored, none held (the detector read a zip's raw
  bytes as "0 of N answers");
- sixteen zips in one validate-only upload are bounded by the worker, unopened here (N2);
- ``gold add`` and ``rescore`` with hostile files in the store stay within their bounds (a memory cap
  of 64 MB here), report each one stopped, and never read it again (N3);
- an account whose check ran past its bound costs the worker that one bound: its next checks are
  refused without running (N4).

Bounds are set small by settings and environment; no test asserts how long anything took.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import tracemalloc
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from leaderboard.joined import one_upload
from leaderboard.service import Leaderboard
from scoring import SCORER_VERSION, engine
from scoring.readers import harness_files as harness
from store import layout
from submissions import reading as reading_jobs
from submissions import worker
from submissions.job_bounds import JobBounds
from submissions.records import Identity, Status, SubmissionForm, SubmissionMeta
from submissions.request import SubmitRequest
from tests.support import demo, jobs
from tests.support.harness_files import lmms_samples, written_name
from tests.support.submissions import settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def kviscuit_records() -> list[dict]:
    return demo.kviscuit_gold()


@pytest.fixture
def web(tmp_path: Path, kviscuit_records):
    """The Leaderboard as app.py opens it, on the K-Viscuit demo gold, with a one-worker bounded pool."""
    lb = Leaderboard(settings(tmp_path / "data"))
    lb.corrections.add_gold("kviscuit", demo.write_jsonl(tmp_path / "gold.jsonl", kviscuit_records), "maintainer")
    pool = lb.use_scoring_pool(1, JobBounds(seconds=30, memory_mb=512))
    yield lb
    pool.close()


def refuse_parsing(monkeypatch) -> None:
    """Any reading of a team's file in this process fails the test (the pool's workers keep theirs)."""

    def refuse(*args, **kwargs):
        raise AssertionError("a team's file was parsed in the web process")

    for module, name in (
        (reading_jobs, "read"),
        (engine, "read_draft"),
        (harness, "as_submission"),
        (zipfile.ZipExtFile, "read"),
    ):
        monkeypatch.setattr(module, name, refuse)


def send(lb: Leaderboard, who: str, paths: list[Path], model: str, validate_only: bool = False):
    """What ``/submit`` does with these files (ui.submit.Submitter._upload)."""
    form = SubmissionForm.of(model=model, team=f"{model} Lab", visibility="private")
    with one_upload(paths, lb.settings.max_upload_bytes) as (path, name):
        request = SubmitRequest("kviscuit", path, form, Identity(who), name, validate_only=validate_only)
        return lb.submissions.submit(request)


def wide_workbook(path: Path, rows: int = 40, cells: int = 4_000) -> Path:
    """The red team's xwide.xlsx in small: few rows, each of many cells openpyxl would parse."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("[Content_Types].xml", b"<Types/>")
        text = lambda value: f'<c t="inlineStr"><is><t>{value}</t></is></c>'.encode()  # noqa: E731
        body = b"".join(
            f"<row><c><v>{i}</v></c>".encode() + text("A") + b"<c><v>1</v></c>" * cells + b"</row>" for i in range(rows)
        )
        sheet = b"<worksheet><sheetData><row>" + text("index") + text("prediction") + b"</row>" + body
        book.writestr("xl/worksheets/sheet1.xml", sheet + b"</sheetData></worksheet>")
    return path


def test_a_refused_workbook_is_read_by_nothing_again_and_the_next_upload_parses_nothing_here(
    web, tmp_path, kviscuit_records, monkeypatch
):
    hostile = send(web, "sybil", [wide_workbook(tmp_path / "xwide.xlsx")], "Stall")
    assert hostile.status is Status.REJECTED and "cells" in hostile.issues[0].message  # before openpyxl
    state = web.catalog.get(hostile.submission_id)
    assert state.readings  # its reading (a refusal) is kept: nothing reads the workbook again
    honest = demo.write_jsonl(tmp_path / "honest.jsonl", demo.kviscuit_submission(kviscuit_records, 0.6, 7))
    with monkeypatch.context() as here:
        refuse_parsing(here)
        answer = send(web, "alice", [honest], "AliceNet")
    assert answer.status is Status.SCORED, answer.message
    assert web.moderation.probe_report("kviscuit") == [] and web.moderation.unread("kviscuit") == 1  # the refusal


def _zipped(data: bytes, name: str, level: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as z:
        z.writestr(f"logs/run/{name}", data)
    return buffer.getvalue()


def test_three_compressed_zips_of_one_honest_run_are_all_scored_and_none_held(tmp_path):
    """At 2880999 the probe detector read each stored zip's bytes as JSON Lines: "answers only 0 of
    657 questions" three times, and the third zip of an honest team was held for review."""
    from tests.support.harness_files import demo_gold_files

    lb = Leaderboard(settings(tmp_path / "data"))
    lb.corrections.add_gold("kviscuit", demo_gold_files(str(tmp_path / "demo"))["kviscuit_gold"], "maintainer")
    samples, name = lmms_samples("kviscuit"), written_name("kviscuit")
    answers = []
    for k, level in enumerate((1, 6, 9)):  # the same run zipped three times: three files, one model
        path = tmp_path / f"run{k}.zip"
        path.write_bytes(_zipped(samples, name, level))
        answers.append(send(lb, "honest", [path], "HonestNet"))
    assert [a.status for a in answers] == [Status.SCORED] * 3, [a.message for a in answers]
    assert not any(lb.moderation.is_held(a.submission_id) for a in answers)
    assert lb.moderation.probe_report("kviscuit") == []
    gold = lb.golds.get("kviscuit")
    letters = lb.probes.answers(lb.catalog.get(answers[-1].submission_id), gold).letters
    assert (letters != -1).sum() == gold.size  # every question answered, as the scorer read it


def test_sixteen_zips_in_one_validate_only_upload_are_bounded_unopened_here(tmp_path, kviscuit_records, monkeypatch):
    """Each zip holds a samples file that unpacks to 1 MB (the red team's: 50 MB, compressed to 153 KB),
    16 of them against a 2 MB upload limit: refused from their directories, in the worker."""
    lb = Leaderboard(settings(tmp_path / "data", max_upload_bytes=2 * 2**20))
    lb.corrections.add_gold("kviscuit", demo.write_jsonl(tmp_path / "gold.jsonl", kviscuit_records), "maintainer")
    line = (json.dumps({"doc_id": 0, "filtered_resps": ["A"]}) + "\n").encode()
    paths = []
    for i in range(16):
        paths.append(tmp_path / f"run{i:02d}.zip")
        paths[-1].write_bytes(_zipped(line * (2**20 // len(line)), f"2026_samples_kviscuit_{i}.jsonl", 9))
    pool = lb.use_scoring_pool(1, JobBounds(seconds=30, memory_mb=512))
    refuse_parsing(monkeypatch)
    tracemalloc.start()
    try:
        answer = send(lb, "zipper", paths, "Zips", validate_only=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        pool.close()
    assert answer.status.value == "rejected" and "bytes together, unpacked" in answer.issues[0].message, answer
    assert peak < 8 * 2**20  # the zips as sent (16 x ~3 KB) and their parts zip: nothing unpacked here


def _store_before_readings(lb: Leaderboard, files: list[Path]) -> list[str]:
    """Uploads stored as before readings existed (raw file and record): what a maintainer inherits."""
    start, ids = datetime.now(UTC) - timedelta(days=1), []
    for i, path in enumerate(files):
        body, when = path.read_bytes(), start + timedelta(minutes=i)
        ids.append(f"{when:%Y%m%d-%H%M%S}-{i:010x}")
        meta = SubmissionMeta(
            id=ids[-1], benchmark="kviscuit", model=f"m{i}", team=f"t{i}", model_type="open", paper_url="",
            code_url="", description="", submitter=f"u{i}", sha256=hashlib.sha256(body).hexdigest(),
            bbox_format="xyxy", submitted_at=when.isoformat(), size_bytes=len(body), filename=path.name,
        )  # fmt: skip
        files_ = {layout.raw("kviscuit", ids[-1]): body, layout.meta("kviscuit", ids[-1]): meta.to_bytes()}
        lb.store.put("submissions", files_, "import")
    return ids


def fat_log(path: Path, records: list[dict]) -> Path:
    """The red team's fat.eval in small: an Inspect log within every log bound (a 30 KB file) whose
    first sample carries 6 M empty objects, ~400 MB once parsed (mk_eval.py fat)."""
    header = {"version": 2, "status": "success", "eval": {"task": "kviscuit", "dataset": {"shuffled": False}}}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps(header))
        for i in range(len(records)):
            body = json.dumps({"id": i, "epoch": 1, "output": {"completion": "The answer is (A)."}})
            if i == 0:
                body = body[:-1] + ', "pad": [' + ",".join(["{}"] * 6_000_000) + "]}"
            z.writestr(f"samples/{i}_epoch_1.json", body)
    return path


def _cli(data: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "LEADERBOARD_DATA_DIR": str(data), "LEADERBOARD_DEMO": "0", "LEADERBOARD_JOB_MEMORY_MB": "64"}
    return subprocess.run(
        [sys.executable, "-m", "leaderboard", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=500
    )


def test_gold_add_and_rescore_with_hostile_uploads_stay_within_their_bounds(tmp_path, kviscuit_records):
    """red.md N3: four hostile uploads in the store made `gold add` take 4 min 33 s and 1.40 GB in the
    maintainer's process. Here each is read once, in the CLI's bounded pool (64 MB a job): the
    workbooks are refused by their cells and shared strings, the samples file of one huge line is
    stopped at the memory bound, reported, marked unreadable and never read again."""
    data = tmp_path / "data"
    lb = Leaderboard(settings(data))
    lb.corrections.add_gold("kviscuit", demo.write_jsonl(tmp_path / "gold.jsonl", kviscuit_records), "maintainer")
    honest = [
        demo.write_jsonl(tmp_path / f"h{i}.jsonl", demo.kviscuit_submission(kviscuit_records, 0.6, i)) for i in range(3)
    ]
    strings = tmp_path / "xstr.xlsx"
    with zipfile.ZipFile(strings, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("[Content_Types].xml", b"<Types/>")
        book.writestr("xl/worksheets/sheet1.xml", b"<worksheet><sheetData><row r='1'/></sheetData></worksheet>")
        book.writestr("xl/sharedStrings.xml", b"<sst>" + b"<si><t>A</t></si>" * 400_000 + b"</sst>")
    fat = fat_log(tmp_path / "fat.eval", kviscuit_records)
    ids = _store_before_readings(lb, [*honest, wide_workbook(tmp_path / "xwide.xlsx"), strings, fat])
    cut = demo.write_jsonl(tmp_path / "cut.jsonl", kviscuit_records[:-1])
    added = _cli(data, "gold", "add", "--benchmark", "kviscuit", "--file", str(cut), "--confirm")
    assert added.returncode == 0, added.stderr[-2000:]
    assert f"ran past a job's bound while read: rejected on every gold, never read again: {ids[-1]}" in added.stdout
    rescored = _cli(data, "rescore", "--benchmark", "kviscuit")
    assert rescored.returncode == 0, rescored.stderr[-2000:]
    assert "ran past a job's bound" not in rescored.stdout  # not read again
    after = Leaderboard(settings(data))
    states = {s.meta.id: s for s in after.catalog.all("kviscuit")}
    version = after.golds.info("kviscuit").version
    assert states[ids[-1]].unreadable is not None
    assert [states[i].status(version, SCORER_VERSION).value for i in ids] == ["scored"] * 3 + ["rejected"] * 3
    assert all(states[i].readings for i in ids[:-1])  # each read once, its reading kept


def test_an_account_over_its_bound_costs_the_worker_that_one_bound(tmp_path, monkeypatch):
    """red.md N4: three accounts each sending checks that run the whole bound held an honest check
    for three bounds. Each account's check over its bound now strikes it: its next checks are
    refused at once, without a job, and the honest check runs."""
    from tests.support.submissions import board, write_gold, write_submission

    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))
    # 5 s: far past what the honest check takes in a fresh worker even on a loaded host (with 1 s, beside
    # CPU hogs, it ran over too: a fourth replacement), far short of a stalled check's 600 s
    pool = lb.use_scoring_pool(1, JobBounds(seconds=5, memory_mb=1024))
    lb.intake.run_check = lambda check, gold, *args: pool.run_check(jobs.stalling_check, gold, *args)
    replaced = []
    real_replace = worker.WorkerPool._replace
    monkeypatch.setattr(worker.WorkerPool, "_replace", lambda self, w: replaced.append(1) or real_replace(self, w))
    path = write_submission(tmp_path / "s.jsonl", accuracy=0.6)
    try:
        said = []
        for account in ("sybil0", "sybil1", "sybil2"):
            for _ in range(2):
                form = SubmissionForm.of(model=jobs.STALLED_MODEL, team=f"{account} Lab")
                request = SubmitRequest("scb", path, form, Identity(account), "s.jsonl", validate_only=True)
                said.append(lb.submissions.submit(request))
        honest = lb.submissions.submit(
            SubmitRequest(
                "scb", path, SubmissionForm.of(model="Honest", team="H"), Identity("carol"), validate_only=True
            )
        )
    finally:
        pool.close()
    assert [a.issues[0].code if a.issues else a.status.value for a in said] == ["job_over_bound", "retry"] * 3
    assert all("ran past the time or memory bound" in a.message for a in said[1::2])
    assert len(replaced) == 3  # one bound per account, not one per check
    assert honest.status.value == "valid"
