"""Harness files through the leaderboard (issue 23): the service's submit (what the upload and the
API call), the maintainer CLI and the offline validator take lmms-eval samples as they are, and score
them exactly as the same answers in our JSONL. VLMEvalKit's workbooks, as VLMEvalKit wrote them, are in
test_vlmevalkit_upload.py (the hand-built TSV that stood here went)."""

from __future__ import annotations

import json
import subprocess
import sys

from submissions.records import Status, SubmissionForm
from submissions.request import SubmitRequest
from tests.scoring.test_lmms_eval_files import _ours_scb
from tests.support.harness_files import demo_gold_files, lmms_samples, written_name
from tests.support.scoring import write_lines
from tests.support.submissions import ALICE, board


def _points(record: object) -> object:
    """A record without its intervals (each submission has its own secret bootstrap seed)."""
    if isinstance(record, dict):
        return {k: _points(v) for k, v in record.items() if not k.endswith("_ci")}
    return record


def _lmms_files(tmp_path):
    """The two SCB samples files lmms-eval 0.7.3 wrote, under its names, and the demo gold they answer."""
    paths = []
    for task in ("scb_stage1", "scb_stage2"):
        paths.append(tmp_path / written_name(task))
        paths[-1].write_bytes(lmms_samples(task))
    return paths, demo_gold_files(str(tmp_path / "demo"))["scb_gold"]


def test_both_lmms_eval_stage_files_are_one_upload_through_the_service_and_the_cli(tmp_path):
    """issue 28: what the form and /submit hand the service (leaderboard.joined), and the maintainer CLI's
    ``--file STAGE1 STAGE2``, score as the same texts in our JSONL."""
    from leaderboard.joined import one_upload

    (stage1, stage2), gold_path = _lmms_files(tmp_path)
    lb = board(tmp_path / "data", gold_path)
    ours = write_lines(tmp_path / "ours.jsonl", _ours_scb(__import__("scoring").load_gold("scb", gold_path)))
    expected = lb.submissions.submit(SubmitRequest("scb", ours, SubmissionForm("VLM-jsonl", "Harness Team"), ALICE))
    with one_upload([stage2, stage1], lb.settings.max_upload_bytes) as (path, name):
        answer = lb.submissions.submit(
            SubmitRequest("scb", path, SubmissionForm("VLM-lmms", "Harness Team"), ALICE, name)
        )
    assert answer.status is Status.SCORED and expected.status is Status.SCORED, answer.message
    got, want = answer.result.overall, expected.result.overall
    assert got["acc"] == want["acc"] and abs(got["miou"] - want["miou"]) <= 0.001
    assert not path.exists()  # the joined file is gone once the service has it
    run = subprocess.run(
        [sys.executable, "-m", "leaderboard", "submit", "--benchmark", "scb", "--file", str(stage1), str(stage2),
         "--model", "VLM-cli", "--team", "Harness Team", "--user", "alice"],
        capture_output=True, text=True, timeout=300,
        env={**__import__("os").environ, "LEADERBOARD_DATA_DIR": str(tmp_path / "data")},
    )  # fmt: skip
    assert run.returncode == 0 and run.stdout.startswith("scored"), run.stderr + run.stdout
    assert json.loads(run.stdout.splitlines()[-1])["acc"] == want["acc"]


def test_the_probe_detector_reads_a_harness_file_as_the_scorer_does(tmp_path):
    """Else an lmms-eval upload looks like a file answering no question (a probe's signal): the
    detector takes the reading the worker made of the upload as stored (both files in one parts zip)."""
    import scoring
    from leaderboard.joined import pack
    from scoring.reading import read
    from submissions.probes import answers_of

    paths, gold_path = _lmms_files(tmp_path)
    gold = scoring.load_gold("scb", gold_path)
    bench = scoring.get_benchmark("scb")
    ours = read(bench, gold, write_lines(tmp_path / "o.jsonl", _ours_scb(gold)).read_bytes())[0]
    pack(paths, tmp_path / "both.zip", 10**8)
    theirs = read(bench, gold, (tmp_path / "both.zip").read_bytes())[0]
    expected = answers_of(ours.answers(), gold).letters
    assert (expected >= 0).all() and (answers_of(theirs.answers(), gold).letters == expected).all()
