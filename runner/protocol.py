"""What the runner asks the model, and what it writes back: the benchmarks' protocol
(:mod:`scoring.protocol`, the one place the prompts are written) as OpenAI chat messages.

The parts a builder returns become message content in their order: text parts as ``text``, image
parts as the question's image at that index (SCB: the option images; K-Viscuit: its one image).
"""

from __future__ import annotations

from collections.abc import Sequence

from runner.questions import ChoiceQuestion, KviscuitQuestion, ScbQuestion
from scoring import protocol as shared
from scoring.benchmarks import Benchmark
from scoring.protocol import GROUNDING_PRESETS, LETTERS, GroundingPreset, Part

__all__ = [
    "GROUNDING_PRESETS",
    "LETTERS",
    "GroundingPreset",
    "choice",
    "grounding_fields",
    "kviscuit",
    "kviscuit_prompt",
    "scb_stage1",
    "scb_stage2",
]


def _user(parts: Sequence[Part], images: Sequence[dict]) -> list[dict]:
    """One user turn; an image part is ``images[index]`` (an ``image_url`` content part)."""
    return shared.user_turn(parts, images.__getitem__)


def scb_stage1(question: ScbQuestion, images: list[dict]) -> list[dict]:
    """Stage 1: every option image after its label, then the question."""
    return _user(shared.scb_stage1(question.question), images)


def scb_stage2(question: ScbQuestion, image: dict, preset: GroundingPreset) -> list[dict]:
    """Stage 2: the chosen image (``image``, the only one sent) and the grounding prompt."""
    return _user(shared.scb_stage2(question.grounding_prompt, preset.name, 0), [image])


def kviscuit_prompt(question: KviscuitQuestion) -> str:
    return shared.kviscuit_prompt(question.question, question.options)


def kviscuit(question: KviscuitQuestion, image: dict) -> list[dict]:
    return _user(shared.kviscuit(question.question, question.options), [image])


def choice(question: ChoiceQuestion, image: dict, bench: Benchmark) -> list[dict]:
    """A multiple-choice question as its benchmark asks it (the declaration's ``answer`` stage)."""
    return _user(bench.protocol["answer"](question.question, question.options), [image])


def grounding_fields(preset: GroundingPreset) -> dict:
    """What every SCB line with a ``grounding_response`` carries, so the site reads it right."""
    fields = {"grounding_format": preset.grounding_format}
    if preset.bbox_format:
        fields["bbox_format"] = preset.bbox_format
    return fields
