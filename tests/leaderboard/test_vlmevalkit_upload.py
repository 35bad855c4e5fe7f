"""VLMEvalKit's own files through the leaderboard (issue 28): the service's submit (what the Submit
form and ``/submit`` hand it) and the maintainer CLI take the workbooks VLMEvalKit 0.0.20 wrote
(tests/fixtures/harness/vlmevalkit-0.0.20/) as they are, and score them exactly as the same texts
in our JSONL; SCB's stage-2 workbook is one upload carrying both stages."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import scoring
from submissions.records import Status, SubmissionForm
from submissions.request import SubmitRequest
from tests.scoring.test_vlmevalkit_files import KVISCUIT, SCB_STAGE2, same_texts_as_jsonl
from tests.support import demo
from tests.support.submissions import ALICE, board

pytest.importorskip("openpyxl")


def _points(record: object) -> object:
    """A record without its intervals (each submission has its own secret bootstrap seed)."""
    if isinstance(record, dict):
        return {k: _points(v) for k, v in record.items() if not k.endswith("_ci")}
    return record


@pytest.mark.parametrize(("bench", "written"), [("scb", SCB_STAGE2), ("kviscuit", KVISCUIT)])
def test_a_vlmevalkit_workbook_is_one_upload_scored_as_our_jsonl(bench, written, tmp_path):
    gold_path = demo.write_jsonl(
        tmp_path / "gold.jsonl", demo.scb_gold(options=True) if bench == "scb" else demo.kviscuit_gold()
    )
    lb = board(tmp_path / "data")
    lb.corrections.add_gold(bench, gold_path, "maintainer")
    gold = scoring.load_gold(bench, gold_path)
    ours = same_texts_as_jsonl(bench, gold, written, tmp_path / "ours.jsonl")
    results = {}
    for name, path in (("jsonl", ours), ("vlmevalkit", written)):
        answer = lb.submissions.submit(
            SubmitRequest(bench, path, SubmissionForm(f"VLM-{name}", "Harness Team"), ALICE, path.name)
        )
        assert answer.status is Status.SCORED, answer.message
        results[name] = _points(answer.result.to_dict())
    assert results["vlmevalkit"] == results["jsonl"]
    if bench == "scb":
        assert results["vlmevalkit"]["overall"]["miou"] > 0  # the stage-2 boxes, read in the plain family

    cli = subprocess.run(
        [sys.executable, "-m", "leaderboard", "submit", "--benchmark", bench, "--file", str(written),
         "--model", "VLM-cli", "--team", "Harness Team", "--user", "alice"],
        capture_output=True, text=True, timeout=300, env={**os.environ, "LEADERBOARD_DATA_DIR": str(tmp_path / "data")},
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr + cli.stdout
