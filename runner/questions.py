"""The public question lists the runner reads, as typed records (a file path or an http(s) URL).

SCB (the two-stage family): the leaderboard's published list (``question_id``, ``question``,
``grounding_prompt``, ``options`` A-D with ``url``, ``width``, ``height``). A multiple-choice
benchmark (K-Viscuit): the leaderboard's published list, or the official file when its rows carry
the fields the family names (K-Viscuit's ``annotations.jsonl`` has no ``question_id``: a question's
key is then its 0-based row).
"""

from __future__ import annotations

import json
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from scoring.benchmarks import Benchmark
from scoring.benchmarks.families import MultipleChoice
from scoring.benchmarks.kviscuit import KVISCUIT
from scoring.protocol import DEFAULT_GROUNDING_PROMPT, LETTERS


class QuestionsError(ValueError):
    """The question list cannot be read: says which file and which record."""


@dataclass(frozen=True)
class OptionImage:
    letter: str
    ref: str  # where the image is published: a path relative to the images root, or a URL
    width: int
    height: int


@dataclass(frozen=True)
class ScbQuestion:
    question_id: str
    question: str
    grounding_prompt: str
    options: tuple[OptionImage, ...]

    def option(self, letter: str) -> OptionImage:
        return self.options[LETTERS.index(letter)]


@dataclass(frozen=True)
class ChoiceQuestion:
    """A multiple-choice question: text options on one image (``question_id``: the benchmark's key)."""

    question_id: object
    question: str
    options: tuple[str, ...]
    image_ref: str


KviscuitQuestion = ChoiceQuestion


def read_text(source: str) -> str:
    """The text of a local file or of an http(s) URL."""
    if source.startswith(("http://", "https://")):
        with urllib.request.urlopen(source, timeout=60) as response:  # noqa: S310 (a URL the team gave)
            return response.read().decode("utf-8")
    return Path(source).read_text(encoding="utf-8")


def _records(source: str) -> list[dict]:
    out = []
    for n, line in enumerate(read_text(source).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise QuestionsError(f"{source}: line {n} is not JSON ({e.msg})") from e
        if not isinstance(record, dict):
            raise QuestionsError(f"{source}: line {n} is not a JSON object")
        out.append(record)
    if not out:
        raise QuestionsError(f"{source}: no questions")
    return out


def _scb(record: dict, where: str) -> ScbQuestion:
    try:
        options = record["options"]
        if not isinstance(options, list) or len(options) != len(LETTERS):
            raise QuestionsError(f"{where}: options must list the 4 option images A-D")
        return ScbQuestion(
            question_id=str(record["question_id"]),
            question=str(record["question"]),
            grounding_prompt=str(record.get("grounding_prompt") or DEFAULT_GROUNDING_PROMPT),
            options=tuple(
                OptionImage(letter, str(o.get("url") or o["image_id"]), int(o["width"]), int(o["height"]))
                for letter, o in zip(LETTERS, options, strict=True)
            ),
        )
    except (KeyError, TypeError, ValueError) as e:
        if isinstance(e, QuestionsError):
            raise
        raise QuestionsError(f"{where}: missing or bad field {e}") from e


def _choice(record: dict, row: int, where: str, bench: Benchmark) -> ChoiceQuestion:
    family = bench.family
    assert isinstance(family, MultipleChoice)
    try:
        options = tuple(family.option_texts(record))
        if len(options) != len(bench.choices):
            raise QuestionsError(f"{where}: {family.options} must be {len(bench.choices)} texts")
        image = family.image_of(record)
        if not image:
            raise QuestionsError(f"{where}: no {' or '.join(family.image)}")
        key = bench.parse_key(record.get(bench.key_field, row))
        if key is None:
            raise QuestionsError(f"{where}: bad {bench.key_field} {record.get(bench.key_field)!r}")
        return ChoiceQuestion(key, str(record[family.question]), options, image)
    except (KeyError, TypeError, ValueError) as e:
        if isinstance(e, QuestionsError):
            raise
        raise QuestionsError(f"{where}: missing or bad field {e}") from e


def load_scb(source: str) -> list[ScbQuestion]:
    records = _records(source)
    if records and "options" not in records[0]:
        raise QuestionsError(f"{source}: not an SCB question list (no options): use the list the leaderboard publishes")
    return [_scb(r, f"{source}: question {i + 1}") for i, r in enumerate(records)]


def load_choices(source: str, bench: Benchmark) -> list[ChoiceQuestion]:
    """A multiple-choice benchmark's list, read by the fields its family names."""
    return [_choice(r, i, f"{source}: row {i}", bench) for i, r in enumerate(_records(source))]


def load_kviscuit(source: str) -> list[ChoiceQuestion]:
    return load_choices(source, KVISCUIT)
