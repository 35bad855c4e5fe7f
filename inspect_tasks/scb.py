"""SCB for Inspect AI: both stages in one sample, as SCB's declaration asks them (the two-stage
family's task, ``_inputs.two_stage_task``): stage 1 the four option images and the question;
stage 2, in a fresh conversation, the image the model CHOSE in stage 1 (read with the site's own
answer reader, so it is the image the site scores the grounding on) and the grounding prompt in the
convention of the model family named by ``grounding_format`` (one of the family's grounding presets,
``scoring.protocol.GROUNDING_PRESETS``).

    inspect eval inspect_tasks/scb.py -T questions=scb-questions.jsonl -T images=images/ \\
        -T grounding_format=qwen2_5_vl --model openai-api/<name>/<model>

Sample ids are the question ids. Each sample keeps its stage-1 and stage-2 responses and the family
in its store (``scb/stage1``, ``scb/stage2``, ``scb/grounding_format``: ``scoring.inspect_log.store_keys``,
what the leaderboard reads back); its output is stage 2's.
The gold is hidden, so the task only predicts: upload the ``.eval`` log to the leaderboard.
"""

from __future__ import annotations

import sys
from pathlib import Path

from inspect_ai import Task, task

sys.path.insert(0, str(Path(__file__).parent))  # inspect loads a task by its path: _inputs lies beside it
from _inputs import two_stage_task  # noqa: E402


@task
def scb(questions: str = "scb-questions.jsonl", images: str = "images", grounding_format: str = "plain") -> Task:
    return two_stage_task("scb", questions, images, grounding_format)
