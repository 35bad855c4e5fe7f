"""The toy endpoint is one model whichever harness asks it (issue 42, team trial step 4): the same
question gets the same answer from the runner's request and from Inspect's, which differs only by
``"detail": "auto"`` on each image (inspect_ai 0.3.285 model/_openai.py; the kept Inspect logs show it
on every image part, tests/fixtures/harness/inspect_ai-0.3.285)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

from scoring.benchmarks import get_benchmark
from scoring.harness.runner.fake_endpoint import stand_in_reply
from scoring.harness.runner.images import Images
from scoring.harness.runner.questions import load
from scoring.harness.runner.run import choice_line, two_stage_line
from tests.harness.test_one_protocol import runner_asked
from tests.scoring.test_inspect_logs import _members
from tests.support.scoring import REPO_ROOT


def _as_inspect_sends(messages: list[dict]) -> list[dict]:
    sent = copy.deepcopy(messages)
    for message in sent:
        for part in message["content"] if isinstance(message["content"], list) else ():
            if part.get("type") == "image_url":
                part["image_url"]["detail"] = "auto"
    return sent


def test_inspect_sends_detail_auto_on_every_image():
    """What the stand-in must ignore, as the real Inspect run logged it."""
    sample = json.loads(_members("scb")["samples/scb-00000_epoch_1.json"])
    images = [p for p in sample["messages"][0]["content"] if p["type"] == "image"]
    assert len(images) == 4 and {p["detail"] for p in images} == {"auto"}


def test_the_same_question_gets_the_same_answer_from_the_runner_and_from_inspect(scb_case):
    """Before: the hash of the whole request drew another letter for about three in four questions."""
    _, public, images, _ = scb_case
    replies = []
    for question in load(str(public), get_benchmark("scb")):
        stage1 = runner_asked("scb", question, images)[0]
        replies.append((stand_in_reply(stage1), stand_in_reply(_as_inspect_sends(stage1))))
    assert all(runner == inspect for runner, inspect in replies), replies
    assert len({runner for runner, _ in replies}) > 1  # a letter per question, not one for all


LIMIT = 40
"""Questions of each demo list whose images the comparison writes (app_inputs.py, as the fixture run did)."""


def _app_inputs(folder: Path) -> Path:
    """What the app serves on the embedded default (scripts/harness-fixtures/app_inputs.py, the fixture
    run's own inputs): the question lists, and the images of the first :data:`LIMIT` questions."""
    env = {**os.environ, "LEADERBOARD_DATA_DIR": str(folder / "data"), "PYTHONPATH": str(REPO_ROOT)}
    script = REPO_ROOT / "scripts" / "harness-fixtures" / "app_inputs.py"
    subprocess.run([sys.executable, str(script), str(folder / "inputs"), "--limit", str(LIMIT)],
                   env=env, cwd=REPO_ROOT, check=True, capture_output=True, timeout=300)  # fmt: skip
    return folder / "inputs"


def test_the_runner_and_inspect_runs_of_the_toy_model_answer_alike(tmp_path):
    """Done when of issue 42: the real Inspect run of the toy model (the kept log's responses,
    tests/fixtures/harness/inspect_ai-0.3.285/{scb,kviscuit}.jsonl) answers each question as the runner's
    requests of the same question, on the same inputs, get answered by the stand-in."""
    inputs = _app_inputs(tmp_path)
    fixtures = REPO_ROOT / "tests" / "fixtures" / "harness" / "inspect_ai-0.3.285"
    for benchmark in ("scb", "kviscuit"):
        bench = get_benchmark(benchmark)
        logged = {}
        for raw in (fixtures / f"{benchmark}.jsonl").read_text(encoding="utf-8").splitlines():
            line = json.loads(raw)
            logged[line[bench.key_field]] = line
        questions = load(str(inputs / f"{benchmark}-questions.jsonl"), bench)[:LIMIT]
        images = Images(str(inputs / "images" / benchmark), inline=True)
        for question in questions:
            if benchmark == "scb":
                ours = two_stage_line(
                    question, stand_in_reply, images, bench, bench.family.grounding_preset("qwen2_5_vl")
                )
            else:
                ours = choice_line(question, stand_in_reply, images, bench)
            theirs = logged[question.key]
            assert ours["response"] == theirs["response"], (benchmark, question.key)
            assert ours.get("grounding_response") == theirs.get("grounding_response"), (benchmark, question.key)
