"""The families' prompt builders, written once: what a model is asked, as message parts.

A benchmark's declaration binds them (``Benchmark.protocol``, by default its family's, with its own
letters and instruction), and every path that asks a model reads the declaration (the runner, the
lmms-eval, Inspect and VLMEvalKit adapters in ``scoring.harness``), so the same question sends the
same text whatever the harness. A builder returns parts in order: :class:`TextPart` carries text,
:class:`ImagePart` the position of an image among the question's own (two stages: option 0-3; multiple
choice: 0). Each harness turns them into its own message shape.

- :func:`pick_image` (two stages, stage 1): each option image after its label ("Image A:" ...
  "Image D:"), then the question and the instruction to answer with a letter.
- :func:`ground_chosen` (two stages, stage 2): the image the model CHOSE in stage 1, then the
  question's grounding prompt (SCB's paper: "Locate the artifact in the image.") plus the output
  instruction of the model family the team names (:data:`GROUNDING_PRESETS`): each family is asked for
  the box convention it was trained on, and the site reads the text with that family's grammar (SPEC
  "Raw model outputs").
- :func:`multiple_choice`: the image first, then the question with its options indented after their
  letters and the instruction (K-Viscuit's official ``run_vqa.py`` layout, without the model's own
  [INST] markers: the endpoint's chat template adds them).

The default texts are those of the benchmarks each family was written for; a declaration gives its own.
Stdlib only: the harnesses' environments get it with ``pip install ./scoring``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

LETTERS = "ABCD"
PICK_IMAGE_INSTRUCTION = "Answer with the letter of the correct image (A, B, C or D)."
"""The two-stage family's default stage-1 instruction (SCB's)."""
CHOICE_INSTRUCTION = "Answer with the option's letter from the given choices directly."
"""The multiple-choice family's default instruction (K-Viscuit's ``run_vqa.py``)."""
DEFAULT_GROUNDING_PROMPT = "Locate the artifact in the image."
"""The two-stage family's stage-2 prompt (SCB's paper), for question lists that do not carry their own."""


@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(frozen=True)
class ImagePart:
    index: int  # into the question's images: two stages' option 0-3, multiple choice's 0


Part = TextPart | ImagePart


@dataclass(frozen=True)
class GroundingPreset:
    """One model family's stage-2 request: what to ask for and how the site reads the answer."""

    name: str
    grounding_format: str  # SPEC's family name, written on every line
    instruction: str  # appended to the question's grounding prompt
    bbox_format: str | None = None  # for ``plain``: the box format the numbers are in

    def line_fields(self) -> dict[str, str]:
        """What every line (or row) with this family's stage-2 text carries, so the site reads it right."""
        fields = {"grounding_format": self.grounding_format}
        if self.bbox_format:
            fields["bbox_format"] = self.bbox_format
        return fields


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


class UnknownFamily(ValueError):
    """A grounding family that is not a preset: the message lists the known ones."""


def grounding_preset(family: str, presets: Mapping[str, GroundingPreset] = GROUNDING_PRESETS) -> GroundingPreset:
    """The preset of ``family`` among ``presets`` (a benchmark's own, by default these), or
    :class:`UnknownFamily` naming the known ones."""
    try:
        return presets[family]
    except KeyError:
        raise UnknownFamily(f"unknown grounding family {family!r}; known: {', '.join(presets)}") from None


def pick_image(question: str, letters: str = LETTERS, instruction: str = PICK_IMAGE_INSTRUCTION) -> tuple[Part, ...]:
    """Stage 1: every option image after its letter's label, then the question and the answer instruction."""
    parts: list[Part] = []
    for index, letter in enumerate(letters):
        parts += [TextPart(f"Image {letter}:"), ImagePart(index)]
    parts.append(TextPart(f"{question}\n{instruction}"))
    return tuple(parts)


def ground_chosen(
    grounding_prompt: str, family: str, chosen: int, presets: Mapping[str, GroundingPreset] = GROUNDING_PRESETS
) -> tuple[Part, ...]:
    """Stage 2: the chosen option's image, then the grounding prompt with the family's instruction
    (``family`` one of ``presets``)."""
    preset = grounding_preset(family, presets)
    prompt = f"{grounding_prompt or DEFAULT_GROUNDING_PROMPT} {preset.instruction}".strip()
    return (ImagePart(chosen), TextPart(prompt))


def multiple_choice_prompt(
    question: str, options: Sequence[str], letters: str = LETTERS, instruction: str = CHOICE_INSTRUCTION
) -> str:
    """``run_vqa.py``'s layout for any number of options: the question, the options indented by four
    spaces after their letters, the instruction."""
    lines = [f"    {letter}. {option}" for letter, option in zip(letters, options, strict=True)]
    return "\n".join([question, *lines, f"    {instruction}"])


def multiple_choice(
    question: str, options: Sequence[str], letters: str = LETTERS, instruction: str = CHOICE_INSTRUCTION
) -> tuple[Part, ...]:
    """A multiple-choice question on one image: the image, then :func:`multiple_choice_prompt`."""
    return (ImagePart(0), TextPart(multiple_choice_prompt(question, options, letters, instruction)))


def text_of(parts: Sequence[Part]) -> tuple[str, ...]:
    """The text parts in order (what a test compares across harnesses)."""
    return tuple(p.text for p in parts if isinstance(p, TextPart))


def user_turn(parts: Sequence[Part], image: Callable[[int], object]) -> list[dict]:
    """The parts as one user turn of chat messages: a text part as ``{"type": "text", ...}``, an image
    part as ``image(index)`` (each harness's own image item)."""
    content = [{"type": "text", "text": p.text} if isinstance(p, TextPart) else image(p.index) for p in parts]
    return [{"role": "user", "content": content}]
