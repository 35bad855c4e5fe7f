"""Harness files through the leaderboard (issue 23): the service's submit (what the upload and the
API call), the maintainer CLI and the offline validator take lmms-eval samples and VLMEvalKit
predictions as they are, and score them exactly as the same answers in our JSONL."""

from __future__ import annotations

import json
import subprocess
import sys

from scoring.benchmarks.scb import public_questions
from submissions.records import Status, SubmissionForm
from tests.scoring.test_harness import lmms_v04, vlmevalkit_rows, write_tsv
from tests.support.scoring import with_options, write_lines
from tests.support.submissions import ALICE, board, small_gold, write_gold


def _points(record: object) -> object:
    """A record without its intervals (each submission has its own secret bootstrap seed)."""
    if isinstance(record, dict):
        return {k: _points(v) for k, v in record.items() if not k.endswith("_ci")}
    return record


def test_an_upload_of_harness_files_scores_as_our_jsonl(tmp_path):
    gold_path = write_gold(tmp_path / "gold.jsonl", with_options(small_gold(), seed=3))
    lb = board(tmp_path / "data", gold_path)
    questions = [json.loads(t) for t in lb.public_questions("scb").decode().splitlines()]
    assert [q["question_id"] for q in questions] == [q["question_id"] for q in public_questions(gold_path)]
    responses = [
        f"Image {'ABCD'[k % 4]}" if k % 3 else f"<answer>{'ABCD'[k % 4]}</answer>" for k in range(len(questions))
    ]
    ours = write_lines(
        tmp_path / "ours.jsonl",
        [{"question_id": q["question_id"], "response": r} for q, r in zip(questions, responses, strict=True)],
    )
    samples = write_lines(tmp_path / "samples_scb_stage1.jsonl", lmms_v04(questions, responses))
    tsv = write_tsv(tmp_path / "Model_SCB.tsv", vlmevalkit_rows(questions, responses))
    results = {}
    for name, path in (("jsonl", ours), ("lmms", samples), ("tsv", tsv)):
        answer = lb.submit("scb", path, SubmissionForm(f"VLM-{name}", "Harness Team"), ALICE)
        assert answer.status is Status.SCORED, answer.message
        results[name] = _points(answer.result.to_dict())
    assert results["lmms"] == results["jsonl"] == results["tsv"]
    assert results["jsonl"]["counts"]["unparsed"] == 0

    # the maintainer CLI takes the same file
    env_data = str(tmp_path / "data")
    run = subprocess.run(
        [sys.executable, "-m", "leaderboard", "submit", "--benchmark", "scb", "--file", str(tsv), "--model", "VLM-cli",
         "--team", "Harness Team", "--user", "alice"],
        capture_output=True, text=True, timeout=180, env={**__import__("os").environ, "LEADERBOARD_DATA_DIR": env_data},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr + run.stdout


def test_the_probe_detector_reads_a_harness_file_as_the_scorer_does(tmp_path):
    """Else an lmms-eval upload looks like a file answering no question (a probe's signal)."""
    import scoring
    from submissions.probes import read_answers

    gold_path = write_gold(tmp_path / "gold.jsonl", with_options(small_gold(), seed=3))
    gold = scoring.load_gold("scb", gold_path)
    questions = public_questions(gold_path)
    responses = ["ABCD"[k % 4] for k in range(len(questions))]
    ours = [{"question_id": q["question_id"], "response": r} for q, r in zip(questions, responses, strict=True)]
    bench = scoring.get_benchmark("scb")
    expected = read_answers(bench, gold, write_lines(tmp_path / "o.jsonl", ours).read_bytes()).letters
    got = read_answers(bench, gold, write_lines(tmp_path / "s.jsonl", lmms_v04(questions, responses)).read_bytes())
    assert (expected >= 0).all() and (got.letters == expected).all()
