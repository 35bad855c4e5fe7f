"""Done when: a new team, given only the README/About/docs, downloads the public question list,
writes a valid SCB submission with a small script around a fake model, checks it with the offline
validator, and submits it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from submissions.records import Status, SubmissionForm
from submissions.request import SubmitRequest
from tests.support.scoring import with_options
from tests.support.submissions import ALICE, board, small_gold, write_gold
from ui.about import about_markdown

ROOT = Path(__file__).resolve().parents[2]

TEAM_SCRIPT = '''
"""A team's script: run a (fake) model on every public question, write the submission."""
import hashlib, json, sys

questions, out = sys.argv[1], sys.argv[2]

def fake_model(question):
    """Stands in for a VLM: picks an option and answers like Gemini (box_2d, 0-1000 grid)."""
    digest = hashlib.sha256(question["question_id"].encode()).digest()
    letter = "ABCD"[digest[0] % 4]
    return f"**Answer: {letter}**", [200, 150, 700, 850]  # [ymin, xmin, ymax, xmax]

with open(questions, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as w:
    for line in f:
        q = json.loads(line)
        text, box_2d = fake_model(q)
        w.write(json.dumps({"question_id": q["question_id"], "response": text, "bbox": box_2d}) + "\\n")
'''


def test_a_new_team_gets_from_the_docs_to_a_scored_submission(tmp_path):
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl", with_options(small_gold(), seed=3)))
    # what they read
    about = about_markdown()
    guide = (ROOT / "docs" / "submitting.md").read_text(encoding="utf-8")
    for text in (about, guide):
        assert "python -m scoring validate" in text and "yxyx_1000" in text
    assert "docs/submitting.md" in about
    # what they download (the About tab's question list; also in the results dataset)
    questions = tmp_path / "scb-questions.jsonl"
    questions.write_bytes(lb.public_questions("scb"))
    first = json.loads(questions.read_text().splitlines()[0])
    assert {"question", "grounding_prompt", "options"} <= set(first) and "answer" not in first
    # what they run
    script = tmp_path / "run_model.py"
    script.write_text(TEAM_SCRIPT)
    predictions = tmp_path / "predictions.jsonl"
    subprocess.run([sys.executable, str(script), str(questions), str(predictions)], check=True, timeout=60)
    command = ["validate", "--benchmark", "scb", "--questions", str(questions), "--predictions", str(predictions)]
    forgot = subprocess.run([sys.executable, "-m", "scoring", *command], capture_output=True, text=True, timeout=120)
    assert forgot.returncode == 2 and "Did you mean yxyx_1000" in forgot.stderr  # the default xyxy is caught
    checked = subprocess.run(
        [sys.executable, "-m", "scoring", *command, "--bbox-format", "yxyx_1000"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert checked.returncode == 0 and checked.stdout.startswith("valid: the file answers 140 of 140")
    # and submit it
    answer = lb.submissions.submit(
        SubmitRequest("scb", predictions, SubmissionForm("Fake-VLM", "New Team", bbox_format="yxyx_1000"), ALICE)
    )
    assert answer.status is Status.SCORED and answer.rank is not None
    assert answer.result.counts["unparsed"] == 0 and answer.result.overall["miou"] is not None
