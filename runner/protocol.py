"""What the runner asks the model, per the benchmarks' own protocols, and what it writes back.

- SCB stage 1: the question with the four option images, each introduced by its label
  ("Image A:" ... "Image D:"), then the instruction to answer with a letter.
- SCB stage 2: the question's grounding prompt (the paper: "Locate the artifact in the image.")
  with the image the model CHOSE in stage 1, plus the output instruction of the model family the
  team named (:data:`GROUNDING_PRESETS`): each family is asked for the box convention it was trained
  on, and the line says which family it is, so the site reads the text with that family's grammar
  (SPEC "Raw model outputs").
- K-Viscuit: the official ``run_vqa.py`` prompt, the image first, options indented as there.
"""

from __future__ import annotations

from dataclasses import dataclass

from runner.questions import LETTERS, KviscuitQuestion, ScbQuestion

SCB_ANSWER_INSTRUCTION = "Answer with the letter of the correct image (A, B, C or D)."
KVISCUIT_INSTRUCTION = "Answer with the option's letter from the given choices directly."


@dataclass(frozen=True)
class GroundingPreset:
    """One model family's stage-2 request: what to ask for and how the site reads the answer."""

    name: str
    grounding_format: str  # SPEC's family name, written on every line
    instruction: str  # appended to the question's grounding prompt
    bbox_format: str | None = None  # for ``plain``: the box format the numbers are in


GROUNDING_PRESETS: dict[str, GroundingPreset] = {
    p.name: p
    for p in (
        GroundingPreset("qwen2_5_vl", "qwen2_5_vl", "Output its bbox coordinates in JSON format."),
        GroundingPreset("qwen3_vl", "qwen3_vl", "Output its bbox_2d coordinates in JSON format."),
        GroundingPreset("qwen2_vl", "qwen2_vl", "Output the bounding box of the artifact."),
        GroundingPreset(
            "internvl",
            "internvl",
            "Please provide the bounding box coordinate of the region this sentence describes: <ref>the artifact</ref>",
        ),
        GroundingPreset(
            "gemini",
            "gemini",
            'Return a JSON list of objects with "box_2d" and "label". '
            "The box_2d should be [ymin, xmin, ymax, xmax] normalized to 0-1000.",
        ),
        GroundingPreset("cogvlm", "cogvlm", "Where is the artifact? answer in [[x0,y0,x1,y1]] format."),
        GroundingPreset(
            "plain",
            "plain",
            "Give the bounding box of the artifact as [x1, y1, x2, y2], "
            "with coordinates normalised to 0-1 of the image width and height.",
            bbox_format="xyxy_norm",
        ),
    )
}
"""Families a chat endpoint can serve; ``plain`` is for models with no native box convention
(GPT-4.1, o3): it asks for normalised corners and says so on the line."""


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def scb_stage1(question: ScbQuestion, images: list[dict]) -> list[dict]:
    """The chat messages of stage 1: every option image after its label, then the question."""
    content: list[dict] = []
    for letter, image in zip(LETTERS, images, strict=True):
        content += [text(f"Image {letter}:"), image]
    content.append(text(f"{question.question}\n{SCB_ANSWER_INSTRUCTION}"))
    return [{"role": "user", "content": content}]


def scb_stage2(question: ScbQuestion, image: dict, preset: GroundingPreset) -> list[dict]:
    """The chat messages of stage 2: the chosen image and the grounding prompt."""
    prompt = f"{question.grounding_prompt} {preset.instruction}".strip()
    return [{"role": "user", "content": [image, text(prompt)]}]


def kviscuit_prompt(question: KviscuitQuestion) -> str:
    """``run_vqa.py``'s prompt without the model's own [INST] markers (the endpoint's chat template adds them)."""
    options = "\n".join(f"    {letter}. {option}" for letter, option in zip(LETTERS, question.options, strict=True))
    return f"{question.question}\n{options}\n    {KVISCUIT_INSTRUCTION}"


def kviscuit(question: KviscuitQuestion, image: dict) -> list[dict]:
    return [{"role": "user", "content": [image, text(kviscuit_prompt(question))]}]


def grounding_fields(preset: GroundingPreset) -> dict:
    """What every SCB line with a ``grounding_response`` carries, so the site reads it right."""
    fields = {"grounding_format": preset.grounding_format}
    if preset.bbox_format:
        fields["bbox_format"] = preset.bbox_format
    return fields
