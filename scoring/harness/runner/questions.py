"""The public question list the runner reads, as typed records, by the benchmark's family: the fields a
row keeps its parts in are the declaration's (:mod:`scoring.benchmarks.families`), never a benchmark's
own names.

- Two stages: the question, the grounding prompt (the family's default when a row has none) and one
  option image per answer letter (``url``, ``width``, ``height``), in letter order.
- Multiple choice: the question, one text option per letter and one image. A list without the
  declaration's key field (K-Viscuit's official ``annotations.jsonl``) is keyed by its 0-based rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.benchmarks import Benchmark
from scoring.benchmarks.families import MultipleChoice, TwoStage
from scoring.benchmarks.protocol import DEFAULT_GROUNDING_PROMPT
from scoring.harness.inputs import QuestionsError, read_list


@dataclass(frozen=True)
class OptionImage:
    letter: str
    ref: str  # where the image is published: a path the list gives, or a URL
    width: int
    height: int


@dataclass(frozen=True)
class TwoStageQuestion:
    key: object
    question: str
    grounding_prompt: str
    options: tuple[OptionImage, ...]


@dataclass(frozen=True)
class ChoiceQuestion:
    """Text options on one image (``key``: the benchmark's key of the question)."""

    key: object
    question: str
    options: tuple[str, ...]
    image_ref: str


def _two_stage(record: dict, row: int, where: str, bench: Benchmark) -> TwoStageQuestion:
    family = bench.family
    assert isinstance(family, TwoStage)
    if family.options not in record:
        raise QuestionsError(f"{where}: no {family.options}: use the question list the leaderboard publishes")
    options = record[family.options]
    if not isinstance(options, list) or len(options) != len(bench.choices):
        raise QuestionsError(f"{where}: {family.options} must list the {len(bench.choices)} option images")
    return TwoStageQuestion(
        key=_key(record, row, where, bench),
        question=str(record[family.question]),
        grounding_prompt=str(record.get(family.grounding_prompt) or DEFAULT_GROUNDING_PROMPT),
        options=tuple(
            OptionImage(letter, str(o.get("url") or o["image_id"]), int(o["width"]), int(o["height"]))
            for letter, o in zip(bench.choices, options, strict=True)
        ),
    )


def _choice(record: dict, row: int, where: str, bench: Benchmark) -> ChoiceQuestion:
    family = bench.family
    assert isinstance(family, MultipleChoice)
    options = tuple(family.option_texts(record))
    if len(options) != len(bench.choices):
        raise QuestionsError(f"{where}: {family.options} must be {len(bench.choices)} texts")
    image = family.image_of(record)
    if not image:
        raise QuestionsError(f"{where}: no {' or '.join(family.image)}")
    return ChoiceQuestion(_key(record, row, where, bench), str(record[family.question]), options, image)


def _key(record: dict, row: int, where: str, bench: Benchmark) -> object:
    key = bench.parse_key(record.get(bench.key_field, row))
    if key is None:
        raise QuestionsError(f"{where}: bad {bench.key_field} {record.get(bench.key_field)!r}")
    return key


def load(source: str, bench: Benchmark) -> list[TwoStageQuestion] | list[ChoiceQuestion]:
    """The benchmark's public list (a file or an http(s) URL), read by the fields its family names."""
    read = _two_stage if isinstance(bench.family, TwoStage) else _choice
    out = []
    for row, record in enumerate(read_list(source)):
        where = f"{source}: row {row}"
        try:
            out.append(read(record, row, where, bench))
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, QuestionsError):
                raise
            raise QuestionsError(f"{where}: missing or bad field {e}") from e
    return out
