"""The public results dataset, the CLI's public output and the logs hold no gold."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pandas as pd

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from submissions.records import Identity, SubmissionForm
from submissions.request import SubmitRequest
from tests.hardening.secrets import GoldSecrets
from tests.support import demo

ROOT = Path(__file__).resolve().parents[2]


def test_public_files_cli_and_logs_hold_no_gold(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    gold = demo.scb_gold(sizes=(20, 20, 30))
    secrets = GoldSecrets.from_scb(gold)
    gold_path = tmp_path / "gold.jsonl"
    demo.write_jsonl(gold_path, gold)
    lb = Leaderboard(Settings(data_dir=tmp_path / "data"))
    lb.corrections.add_gold("scb", gold_path, "maintainer")
    good = tmp_path / "good.jsonl"
    demo.write_jsonl(good, demo.scb_submission(gold, 0.7, "polygon", seed=1))
    bad = tmp_path / "bad.jsonl"
    probes = probe_lines(gold[:12])
    bad.write_text("\n".join(probes) + "\nnope\n")
    user = Identity("probe")
    assert lb.submissions.submit(SubmitRequest("scb", good, SubmissionForm("M", "T"), user)).result is not None
    rejected = lb.submissions.submit(SubmitRequest("scb", bad, SubmissionForm("M2", "T"), user))
    assert len(rejected.issues) == len(probes) + 1
    for issue in rejected.issues[:-1]:  # no message about a line holds a number made of its gold
        text = probes[issue.line - 1]
        assert secrets.numbers_leaked(issue.message, json.loads(text)["question_id"], text) == [], issue
    texts = [caplog.text, rejected.message] + [str(i) for i in rejected.issues]
    results = tmp_path / "data" / "results"
    for path in results.rglob("*"):
        if path.suffix == ".parquet":
            texts.append(pd.read_parquet(path).to_csv())
        elif path.is_file() and "questions" not in path.parts:
            texts.append(path.read_text())
    questions = (results / "questions" / "scb.jsonl").read_text()
    assert "answer" not in questions and "segmentation" not in questions and "width" not in questions
    env = {"LEADERBOARD_DATA_DIR": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
    for fmt in ("csv", "json", "text"):
        cli = subprocess.run(
            [sys.executable, "-m", "leaderboard", "table", "--benchmark", "scb", "--format", fmt],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        texts += [cli.stdout, cli.stderr]
    for text in texts:
        assert secrets.leaks(text) == []


def probe_lines(gold: list[dict]) -> list[str]:
    """Lines that reach every check a gold size could once shape (attacks.md finding 1)."""
    probes = [
        {"polygon": [[0, 0, 1000, 0, 1000, 0.001]], "bbox_ref_size": [1, 100_000]},  # outline 2000 x width
        {"polygon": [[0, 0, 0.001, 0, 0, 1000]], "bbox_ref_size": [100_000, 1]},  # 2000 x height
        {"mask": {"size": [1, 1], "counts": [1]}},
        {"mask": {"size": [7, 9], "counts": [0, 63]}},
        {"bbox": [0, 0, 1e7, 1], "bbox_ref_size": [1, 1]},
        {"polygon": [[[0, 0], [1e6, 0], [0, 1e6]]]},
    ]
    lines = []
    for i, rec in enumerate(gold):
        answer = rec["answer"] if i % 2 else "ABCD"[("ABCD".index(rec["answer"]) + 1) % 4]
        lines.append(json.dumps({"question_id": rec["question_id"], "answer": answer} | probes[i % len(probes)]))
    return lines


def test_the_finder_finds_real_leaks():
    gold = demo.scb_gold(sizes=(5, 5, 5))
    secrets = GoldSecrets.from_scb(gold)
    assert secrets.leaks(demo.dumps_jsonl(gold).decode())
    rec = gold[3]
    assert secrets.leaks(f'{{"{rec["question_id"]}": "{rec["answer"]}"}}')
    assert secrets.leaks(f"image is {rec['width']}x{rec['height']}")
    assert secrets.leaks('{"question_id": "q", "answer": "B"}')
    assert not secrets.leaks("Demo model, 85.15 ± 1.20, scored here")
