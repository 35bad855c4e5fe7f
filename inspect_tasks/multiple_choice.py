"""Any benchmark of the multiple-choice family for Inspect AI, from its declaration (the prompt, the
fields a question keeps its parts in, the key a sample's id is):

    inspect eval inspect_tasks/multiple_choice.py -T benchmark=ID -T questions=ID-questions.jsonl \\
        -T images=images/ --model openai-api/<name>/<model>

A plugin benchmark loads from ``LEADERBOARD_PLUGINS`` as in the app. The task only predicts: upload
the ``.eval`` log it writes to the leaderboard.
"""

from __future__ import annotations

import sys
from pathlib import Path

from inspect_ai import Task, task

sys.path.insert(0, str(Path(__file__).parent))  # inspect loads a task by its path: _inputs lies beside it
from _inputs import multiple_choice_task  # noqa: E402


@task
def multiple_choice(benchmark: str, questions: str, images: str = "images") -> Task:
    return multiple_choice_task(benchmark, questions, images)
