"""The benchmarks' prompts as VLMEvalKit multi-modal messages, and how stage 2 picks its image.

VLMEvalKit's message is an interleaved list of ``dict(type='image', value=PATH)`` and
``dict(type='text', value=TEXT)`` (docs/en/Development.md). The parts come from the leaderboard's
one declaration of the protocol (``scoring.protocol``; the runner and the lmms-eval tasks read the
same): a text part becomes a text item, an image part the path of the question's image at that
index. Stage 2 grounds the option the site reads from the stage-1 answer (``scoring.answers``).

Needs the leaderboard's ``scoring`` package in VLMEvalKit's environment (``pip install ./scoring``
from a checkout); without it, it stops saying so, never falling back to another rule. Importable
without VLMEvalKit (the leaderboard's tests call it directly).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

NEEDS_SCORING = (
    "the leaderboard's VLMEvalKit datasets need its scoring package in VLMEvalKit's environment, for the "
    "benchmark's prompts and to read stage-1 answers as the site does: pip install ./scoring "
    "(from a checkout of the leaderboard)"
)


def scoring(module: str):
    """``scoring.<module>``, or a RuntimeError that says how to install it."""
    try:
        return importlib.import_module(f"scoring.{module}")
    except ImportError as e:
        raise RuntimeError(NEEDS_SCORING) from e


def message(parts: Sequence, paths: Sequence[str]) -> list[dict]:
    """Protocol parts as a VLMEvalKit message; an image part is ``paths[index]``."""
    text_part = scoring("protocol").TextPart
    return [
        dict(type="text", value=p.text) if isinstance(p, text_part) else dict(type="image", value=paths[p.index])
        for p in parts
    ]


def scb_stage1(question: str, option_paths: Sequence[str]) -> list[dict]:
    """Stage 1: "Image A:" and option A's image ... "Image D:" and D's, then the question."""
    return message(scoring("protocol").scb_stage1(question), option_paths)


def scb_stage2(grounding_prompt: str, family: str, chosen: int, option_paths: Sequence[str]) -> list[dict]:
    """Stage 2: the option stage 1 chose, then the grounding prompt with the family's convention."""
    return message(scoring("protocol").scb_stage2(grounding_prompt, family, chosen), option_paths)


def kviscuit(question: str, options: Sequence[str], image_path: str) -> list[dict]:
    """K-Viscuit: the image, then the official ``run_vqa.py`` prompt."""
    return message(scoring("protocol").kviscuit(question, list(options)), [image_path])


def declared(benchmark: str):
    """A benchmark's declaration (plugins named in ``LEADERBOARD_PLUGINS`` loaded first)."""
    return scoring("benchmarks.lmms_eval").declared(benchmark)


def multiple_choice(benchmark: str, question: str, options: Sequence[str], image_path: str) -> list[dict]:
    """A multiple-choice benchmark's question as its declaration asks it: the image, then the prompt."""
    return message(declared(benchmark).protocol["answer"](question, list(options)), [image_path])


def chosen_option(stage1_prediction: object) -> int | None:
    """The option (0-3) the site reads from a stage-1 answer, None when it names none."""
    protocol = scoring("protocol")
    letter = scoring("answers").read_response(stage1_prediction, protocol.LETTERS).letter
    return protocol.LETTERS.index(letter) if letter else None


def grounding_columns(family: str) -> dict[str, str]:
    """What a stage-2 row carries so the site reads its box with the family's grammar."""
    preset = scoring("protocol").grounding_preset(family)
    columns = {"grounding_format": preset.grounding_format}
    if preset.bbox_format:
        columns["bbox_format"] = preset.bbox_format
    return columns
