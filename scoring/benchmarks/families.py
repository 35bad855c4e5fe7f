"""Benchmark families: what a kind of benchmark asks a model and how its public rows look to the harnesses.

After lmms-eval's ``include:`` task families (one family file, a short file per task) and
pycocotools' ``Params`` (one record of settings that every step reads): a benchmark's declaration
names its family with the few fields that differ (where a public row keeps its question, options
and image; the instruction), and every surface that asks a model or hands a harness its inputs
reads the family instead of branching on a benchmark id: the harness adapters (``scoring.harness``:
the runner, the lmms-eval, Inspect and VLMEvalKit tasks), the VLMEvalKit TSV
(``scoring/benchmarks/tsv.py``), the served demo images (``ui/public_files.py``) and the question
browser (:meth:`browser_fields`).

- :class:`MultipleChoice`: text options on one image, answered by a letter (K-Viscuit; the toy).
- :class:`TwoStage`: pick the right image among option images, then ground the artifact in the
  chosen one (SCB).

Stdlib, :mod:`scoring.benchmarks.protocol` and :mod:`scoring.answers` only: the harness tasks import it
in their own environments.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from scoring import answers
from scoring.benchmarks import protocol
from scoring.benchmarks.protocol import GroundingPreset, Part

TSV_HEAD = ("index", "question")
TSV_TAIL = ("image_path", "category", "l2-category")
"""VLMEvalKit's custom MCQ columns around the option letters (no ``answer``: the gold is hidden)."""


def image_ref(benchmark: str, ref: str) -> str:
    """Where an image of the list is, seen from the TSV's address: an absolute URL as it is, a
    relative one at the site's image route (``/questions/{benchmark}/images/{name}``)."""
    if ref.startswith(("http://", "https://")):
        return ref
    return f"{benchmark}/images/{ref.rsplit('/', 1)[-1]}"


def image_name(ref: str) -> str:
    """The file name the site serves an image under (the last part of its address)."""
    return ref.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Recognised:
    """What a logged prompt shows a family asked: the stage, and for a grounding stage the preset."""

    stage: str
    preset: str | None = None


@dataclass(frozen=True)
class MultipleChoice:
    """Text options about one image, answered with a letter (K-Viscuit, CVQA).

    The fields name where a public row keeps each part; ``image`` lists the fields to try in order
    (the first non-empty one wins); ``subcategory`` is VLMEvalKit's ``l2-category``; ``demo_image_size``
    is the size the embedded default draws the images at (such lists give none)."""

    question: str = "question"
    options: str = "options"
    image: tuple[str, ...] = ("image_path", "image_url")
    category: str = "category"
    subcategory: str = ""
    instruction: str = protocol.CHOICE_INSTRUCTION
    demo_image_size: tuple[int, int] = (640, 480)

    stages = ("answer",)

    def describe(self, letters: str) -> str:
        return f"multiple choice: options {letters[0]}-{letters[-1]} as text, about one image"

    def recognise(self, prompt: str) -> Recognised | None:
        """The stage a harness's logged prompt asked, by this family's instruction; None if not this family's."""
        return Recognised("answer") if self.instruction in prompt else None

    def protocol(self, letters: str) -> dict[str, Callable[..., tuple[Part, ...]]]:
        """The stage builder: ``(question, options) -> parts``."""
        return {"answer": partial(protocol.multiple_choice, letters=letters, instruction=self.instruction)}

    def parts(self, row: Mapping, letters: str) -> tuple[Part, ...]:
        """What the model is asked for one public row."""
        return protocol.multiple_choice(str(row[self.question]), self.option_texts(row), letters, self.instruction)

    def option_texts(self, row: Mapping) -> list[str]:
        return [str(o) for o in row[self.options]]

    def image_of(self, row: Mapping) -> str:
        """The row's image address ("" when it names none)."""
        return next((str(row[f]) for f in self.image if row.get(f)), "")

    def tsv_columns(self, letters: str) -> tuple[str, ...]:
        return (*TSV_HEAD, *letters, *TSV_TAIL)

    def tsv_row(self, benchmark: str, position: int, row: Mapping, letters: str) -> dict:
        return {
            "index": position,
            "question": row.get(self.question, ""),
            **dict(zip(letters, self.option_texts(row), strict=True)),
            "image_path": image_ref(benchmark, self.image_of(row)),
            "category": row.get(self.category, ""),
            "l2-category": str(row.get(self.subcategory, "")) if self.subcategory else "",
        }

    def image_sizes(self, rows: Sequence[Mapping]) -> dict[str, tuple[int, int]]:
        """Image file name -> the size the embedded default draws it at."""
        return {image_name(ref): self.demo_image_size for ref in map(self.image_of, rows) if ref}

    def browser_fields(self) -> dict[str, object]:
        """Where a public row keeps each part, for the question browser (``ui/static/questions.js``)."""
        return {"kind": "choice", "question": self.question, "options": self.options, "image": list(self.image)}


@dataclass(frozen=True)
class TwoStage:
    """Pick the image (among option images, in letter order) that shows what is asked, then ground
    the artifact in the image chosen (SCB). ``options`` holds ``{"url", "width", "height"}`` per
    letter; ``grounding_prompt`` stage 2's prompt (the paper's when a row has none); ``instruction``
    ends stage 1; ``grounding_presets`` are the model families stage 2 can ask in their own box
    convention (a team names one; the site reads the answer in its grammar)."""

    question: str = "question"
    options: str = "options"
    grounding_prompt: str = "grounding_prompt"
    category: str = "category"
    subcategory: str = "country"
    instruction: str = protocol.PICK_IMAGE_INSTRUCTION
    grounding_presets: Mapping[str, GroundingPreset] = field(
        default_factory=lambda: protocol.GROUNDING_PRESETS, hash=False
    )

    stages = ("stage1", "stage2")

    def describe(self, letters: str) -> str:
        return f"two stages: pick the image {letters[0]}-{letters[-1]}, then ground the artifact in the image picked"

    def recognise(self, prompt: str) -> Recognised | None:
        """Stage 1 by its instruction; stage 2 by a grounding preset's instruction ending it (with that
        preset), or the paper's grounding prompt alone; None if neither."""
        if self.instruction in prompt:
            return Recognised("stage1")
        ends = prompt.rstrip()
        preset = next((p.name for p in self.grounding_presets.values() if ends.endswith(p.instruction)), None)
        if preset is not None or prompt.strip() == protocol.DEFAULT_GROUNDING_PROMPT:
            return Recognised("stage2", preset)
        return None

    def protocol(self, letters: str) -> dict[str, Callable[..., tuple[Part, ...]]]:
        """Stage 1 ``(question) -> parts``; stage 2 ``(grounding prompt, family, chosen index) -> parts``."""
        return {
            "stage1": partial(protocol.pick_image, letters=letters, instruction=self.instruction),
            "stage2": partial(protocol.ground_chosen, presets=self.grounding_presets),
        }

    def grounding_preset(self, name: str) -> GroundingPreset:
        """The preset a team names for stage 2, or :class:`~scoring.benchmarks.protocol.UnknownFamily` naming
        the known."""
        return protocol.grounding_preset(name, self.grounding_presets)

    def option_images(self, row: Mapping) -> list[str]:
        """The row's option image addresses, in letter order."""
        return [str(option["url"]) for option in row[self.options]]

    @staticmethod
    def chosen_letter(response: str, letters: str) -> str | None:
        """The letter a stage-1 response picks, read as the site reads it (:mod:`scoring.answers`), so
        that stage 2 grounds the image the site scores the grounding on; None when it names none."""
        return answers.read_response(response, letters).letter

    @staticmethod
    def chosen_index(letter: str | None, letters: str) -> int:
        """The option stage 2 grounds: the chosen letter's, option A's (0) when stage 1 named none (the
        site then counts the answer wrong and ignores the grounding)."""
        return letters.index(letter) if letter else 0

    def tsv_columns(self, letters: str) -> tuple[str, ...]:
        return (*TSV_HEAD, *letters, *TSV_TAIL, "grounding_prompt")

    def tsv_row(self, benchmark: str, position: int, row: Mapping, letters: str) -> dict:
        """Each option cell an ``<image>`` placeholder; ``image_path`` the option images in letter order."""
        return {
            "index": position,
            "question": row.get(self.question, ""),
            **{letter: "<image>" for letter in letters},
            "image_path": json.dumps([image_ref(benchmark, ref) for ref in self.option_images(row)]),
            "category": row.get(self.category, ""),
            "l2-category": row.get(self.subcategory, ""),
            "grounding_prompt": row.get(self.grounding_prompt, ""),
        }

    def image_sizes(self, rows: Sequence[Mapping]) -> dict[str, tuple[int, int]]:
        """Image file name -> its public (width, height), from the options."""
        out = {}
        for row in rows:
            for option in row.get(self.options, []):
                out[image_name(str(option.get("url", "")))] = (int(option["width"]), int(option["height"]))
        return out

    def browser_fields(self) -> dict[str, object]:
        """Where a public row keeps each part, for the question browser (``ui/static/questions.js``)."""
        return {
            "kind": "images",
            "question": self.question,
            "options": self.options,
            "grounding_prompt": self.grounding_prompt,
        }


Family = MultipleChoice | TwoStage

__all__ = ["Family", "MultipleChoice", "Recognised", "TwoStage", "image_name", "image_ref"]
