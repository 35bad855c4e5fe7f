"""A benchmark's prompts as VLMEvalKit multi-modal messages, and how a two-stage stage 2 picks its image.

VLMEvalKit's message is an interleaved list of ``dict(type='image', value=PATH)`` and
``dict(type='text', value=TEXT)`` (docs/en/Development.md). The parts come from the benchmark's
declaration (its family's protocol; the runner, the lmms-eval and the Inspect tasks read the same): a
text part becomes a text item, an image part the path of the question's image at that index. Stage 2
grounds the option the site reads from the stage-1 answer (``scoring.answers``, through the family).

Importable without VLMEvalKit (the leaderboard's tests call it directly); needs the leaderboard's kit in
VLMEvalKit's environment (``pip install ./scoring[vlmevalkit]``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scoring.benchmarks import Benchmark, declared
from scoring.benchmarks.families import TwoStage
from scoring.benchmarks.protocol import Part, TextPart


def message(parts: Sequence[Part], paths: Sequence[str] | Mapping[int, str]) -> list[dict]:
    """Protocol parts as a VLMEvalKit message; an image part is ``paths[index]``."""
    return [
        dict(type="text", value=p.text) if isinstance(p, TextPart) else dict(type="image", value=paths[p.index])
        for p in parts
    ]


def _two_stage(bench: Benchmark) -> TwoStage:
    if not isinstance(bench.family, TwoStage):
        raise ValueError(f"benchmark {bench.id!r} does not declare the two-stage family")
    return bench.family


def stage1(benchmark: str, question: str, option_paths: Sequence[str]) -> list[dict]:
    """Stage 1 as the declaration asks it: each option image after its label, then the question."""
    return message(declared(benchmark).protocol["stage1"](question), option_paths)


def stage2(
    benchmark: str, grounding_prompt: str, family: str, chosen: int, option_paths: Mapping[int, str]
) -> list[dict]:
    """Stage 2: the option stage 1 chose, then the grounding prompt with the model family's convention."""
    return message(declared(benchmark).protocol["stage2"](grounding_prompt, family, chosen), option_paths)


def multiple_choice(benchmark: str, question: str, options: Sequence[str], image_path: str) -> list[dict]:
    """A multiple-choice benchmark's question as its declaration asks it: the image, then the prompt."""
    return message(declared(benchmark).protocol["answer"](question, list(options)), [image_path])


def chosen_option(benchmark: str, stage1_prediction: object) -> int | None:
    """The option a stage-1 answer picks, as the site reads it; None when it names none."""
    bench = declared(benchmark)
    letter = _two_stage(bench).chosen_letter(stage1_prediction, bench.choices)
    return bench.choices.index(letter) if letter else None


def grounding_columns(benchmark: str, family: str) -> dict[str, str]:
    """What a stage-2 row carries so the site reads its box with the model family's grammar; an unknown
    family stops here, naming the known ones."""
    return _two_stage(declared(benchmark)).grounding_preset(family).line_fields()
