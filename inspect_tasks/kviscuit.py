"""K-Viscuit for Inspect AI: the official ``run_vqa.py`` prompt (``scoring.protocol.kviscuit``),
one sample per question, its id the question's ``question_id`` (the row in the official order).

    inspect eval inspect_tasks/kviscuit.py -T questions=kviscuit-questions.jsonl -T images=images/ \\
        --model openai-api/<name>/<model>

The answers are not in the public list, so the task only predicts: upload the ``.eval`` log it
writes to the leaderboard, which scores it exactly as the same responses written as JSON Lines.
"""

from __future__ import annotations

import sys
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.solver import generate

sys.path.insert(0, str(Path(__file__).parent))  # inspect loads a task by its path: _inputs lies beside it
from _inputs import image_ref, read_questions, scoring, user_message  # noqa: E402


def _sample(question: dict, images: str) -> Sample:
    parts = scoring("protocol").kviscuit(question["question"], question["options"])
    image = question.get("image_path") or question.get("image_url") or ""
    return Sample(
        id=question["question_id"],
        input=[user_message(parts, [image_ref(images, image)])],
        metadata={"id_": question.get("id_", "")},
    )


@task
def kviscuit(questions: str = "kviscuit-questions.jsonl", images: str = "images") -> Task:
    dataset = MemoryDataset([_sample(q, images) for q in read_questions(questions)], name="kviscuit")
    return Task(dataset=dataset, solver=generate(), name="kviscuit")
