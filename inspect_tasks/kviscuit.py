"""K-Viscuit for Inspect AI: the official ``run_vqa.py`` prompt (its declaration's, through the
multiple-choice family), one sample per question, its id the question's ``question_id`` (the row in
the official order).

    inspect eval inspect_tasks/kviscuit.py -T questions=kviscuit-questions.jsonl -T images=images/ \\
        --model openai-api/<name>/<model>

The answers are not in the public list, so the task only predicts: upload the ``.eval`` log it
writes to the leaderboard, which scores it exactly as the same responses written as JSON Lines.
Another multiple-choice benchmark runs as ``inspect eval inspect_tasks/multiple_choice.py -T benchmark=ID ...``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from inspect_ai import Task, task

sys.path.insert(0, str(Path(__file__).parent))  # inspect loads a task by its path: _inputs lies beside it
from _inputs import multiple_choice_task  # noqa: E402


@task
def kviscuit(questions: str = "kviscuit-questions.jsonl", images: str = "images") -> Task:
    return multiple_choice_task("kviscuit", questions, images)
