"""The public results dataset, the CLI's public output and the logs hold no gold."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pandas as pd

from leaderboard import demo
from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from submissions.records import Identity, SubmissionForm
from tests.hardening.secrets import GoldSecrets

ROOT = Path(__file__).resolve().parents[2]


def test_public_files_cli_and_logs_hold_no_gold(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    gold = demo.scb_gold(sizes=(20, 20, 30))
    secrets = GoldSecrets.from_scb(gold)
    gold_path = tmp_path / "gold.jsonl"
    demo.write_jsonl(gold_path, gold)
    lb = Leaderboard(Settings(data_dir=tmp_path / "data"))
    lb.add_gold("scb", gold_path, "maintainer")
    good = tmp_path / "good.jsonl"
    demo.write_jsonl(good, demo.scb_submission(gold, 0.7, "polygon", seed=1))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question_id": "scb-00000", "answer": "A", "mask": {"size": [1, 1], "counts": [1]}}\nnope\n')
    user = Identity("probe")
    assert lb.submit("scb", good, SubmissionForm("M", "T"), user).result is not None
    rejected = lb.submit("scb", bad, SubmissionForm("M2", "T"), user)
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


def test_the_finder_finds_real_leaks():
    gold = demo.scb_gold(sizes=(5, 5, 5))
    secrets = GoldSecrets.from_scb(gold)
    assert secrets.leaks(demo.dumps_jsonl(gold).decode())
    rec = gold[3]
    assert secrets.leaks(f'{{"{rec["question_id"]}": "{rec["answer"]}"}}')
    assert secrets.leaks(f"image is {rec['width']}x{rec['height']}")
    assert secrets.leaks('{"question_id": "q", "answer": "B"}')
    assert not secrets.leaks("Demo model, 85.15 ± 1.20, scored here")
