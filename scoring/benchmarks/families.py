"""Benchmark families: what a kind of benchmark asks a model and how its public rows look to the harnesses.

After lmms-eval's ``include:`` task families (one family file, a short file per task) and
pycocotools' ``Params`` (one record of settings that every step reads): a benchmark's declaration
names its family with the few fields that differ (where a public row keeps its question, options
and image; the instruction), and every surface that asks a model or hands a harness its inputs
reads the family instead of branching on a benchmark id: the runner (``runner/``), the VLMEvalKit
TSV (``leaderboard/harness_inputs.py``), the shipped lmms-eval, Inspect and VLMEvalKit tasks, the
served demo images (``ui/public_files.py``).

- :class:`MultipleChoice`: text options on one image, answered by a letter (K-Viscuit; CVQA).
- :class:`TwoStage`: pick the right image among option images, then ground the artifact in the
  chosen one (SCB).

Stdlib and :mod:`scoring.protocol` only: the harness tasks import it in their own environments.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from scoring import protocol
from scoring.protocol import Part

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
    instruction: str = protocol.KVISCUIT_INSTRUCTION
    demo_image_size: tuple[int, int] = (640, 480)

    stages = ("answer",)

    def describe(self, letters: str) -> str:
        return f"multiple choice: options {letters[0]}-{letters[-1]} as text, about one image"

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


@dataclass(frozen=True)
class TwoStage:
    """Pick the image (among option images, in letter order) that shows what is asked, then ground
    the artifact in the image chosen (SCB). ``options`` holds ``{"url", "width", "height"}`` per
    letter; ``grounding_prompt`` stage 2's prompt (the paper's when a row has none)."""

    question: str = "question"
    options: str = "options"
    grounding_prompt: str = "grounding_prompt"
    category: str = "category"
    subcategory: str = "country"

    stages = ("stage1", "stage2")

    def describe(self, letters: str) -> str:
        return f"two stages: pick the image {letters[0]}-{letters[-1]}, then ground the artifact in the image picked"

    def protocol(self, letters: str) -> dict[str, Callable[..., tuple[Part, ...]]]:
        """Stage 1 ``(question) -> parts``; stage 2 ``(grounding prompt, family, chosen index) -> parts``."""
        return {"stage1": protocol.scb_stage1, "stage2": protocol.scb_stage2}

    def tsv_columns(self, letters: str) -> tuple[str, ...]:
        return (*TSV_HEAD, *letters, *TSV_TAIL, "grounding_prompt")

    def tsv_row(self, benchmark: str, position: int, row: Mapping, letters: str) -> dict:
        """Each option cell an ``<image>`` placeholder; ``image_path`` the option images in letter order."""
        return {
            "index": position,
            "question": row.get(self.question, ""),
            **{letter: "<image>" for letter in letters},
            "image_path": json.dumps([image_ref(benchmark, o["url"]) for o in row[self.options]]),
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


Family = MultipleChoice | TwoStage

__all__ = ["Family", "MultipleChoice", "TwoStage", "image_name", "image_ref"]
