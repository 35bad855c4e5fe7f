"""The toy endpoint is one model whichever harness asks it (issue 42, team trial step 4): the same
question gets the same answer from the runner's request and from Inspect's, which differs only by
``"detail": "auto"`` on each image (inspect_ai 0.3.285 model/_openai.py; the kept Inspect logs show it
on every image part, tests/fixtures/harness/inspect_ai-0.3.285)."""

from __future__ import annotations

import copy
import json

from scoring.benchmarks import get_benchmark
from scoring.harness.runner.fake_endpoint import stand_in_reply
from scoring.harness.runner.questions import load
from tests.harness.test_one_protocol import runner_asked
from tests.scoring.test_inspect_logs import _members


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
