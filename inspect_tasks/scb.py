"""SCB for Inspect AI: both stages in one sample, as the leaderboard's protocol asks them
(``scoring.protocol``): stage 1 the four option images and the question; stage 2, in a fresh
conversation, the image the model CHOSE in stage 1 (read with the site's own answer reader, so it
is the image the site scores the grounding on) and the grounding prompt in the convention of the
model family named by ``grounding_format`` (a ``scoring.protocol.GROUNDING_PRESETS`` name).

    inspect eval inspect_tasks/scb.py -T questions=scb-questions.jsonl -T images=images/ \\
        -T grounding_format=qwen2_5_vl --model openai-api/<name>/<model>

Sample ids are the question ids. Each sample keeps its stage-1 and stage-2 responses and the family
in its store (``scb/stage1``, ``scb/stage2``, ``scb/grounding_format``); its output is stage 2's.
The gold is hidden, so the task only predicts: upload the ``.eval`` log to the leaderboard.
"""

from __future__ import annotations

import sys
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.util import materialize_media

sys.path.insert(0, str(Path(__file__).parent))  # inspect loads a task by its path: _inputs lies beside it
from _inputs import image_ref, read_questions, scoring, user_message  # noqa: E402

STORE = {"stage1": "scb/stage1", "stage2": "scb/stage2", "family": "scb/grounding_format"}
"""The store keys of a sample's two responses and family (what the leaderboard reads back)."""


def _sample(question: dict, images: str) -> Sample:
    refs = [image_ref(images, option["url"]) for option in question["options"]]
    return Sample(
        id=question["question_id"],
        input=[user_message(scoring("protocol").scb_stage1(question.get("question", "")), refs)],
        metadata={"images": refs, "grounding_prompt": question.get("grounding_prompt", "")},
    )


@solver
def two_stages(grounding_format: str):
    """Stage 1 on the sample's input; stage 2 on the chosen image, as its own request."""
    protocol, answers = scoring("protocol"), scoring("answers")
    protocol.grounding_preset(grounding_format)  # an unknown family stops the task here, naming the known

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state = await generate(state)
        first = state.output.completion
        letter = answers.read_response(first, protocol.LETTERS).letter
        chosen = protocol.LETTERS.index(letter) if letter else 0  # none named: the site counts it wrong anyway
        parts = protocol.scb_stage2(state.metadata["grounding_prompt"], grounding_format, chosen)
        image = await materialize_media(state.metadata["images"][chosen])  # inspect inlines the input's; this is ours
        second = await get_model().generate([user_message(parts, {chosen: image})])
        state.store.set(STORE["stage1"], first)
        state.store.set(STORE["stage2"], second.completion)
        state.store.set(STORE["family"], grounding_format)
        state.output = second
        return state

    return solve


@task
def scb(questions: str = "scb-questions.jsonl", images: str = "images", grounding_format: str = "plain") -> Task:
    dataset = MemoryDataset([_sample(q, images) for q in read_questions(questions)], name="scb")
    return Task(dataset=dataset, solver=two_stages(grounding_format), name="scb")
