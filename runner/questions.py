"""The public question lists the runner reads, as typed records (a file path or an http(s) URL).

SCB: the leaderboard's published list (``question_id``, ``question``, ``grounding_prompt``,
``options`` A-D with ``url``, ``width``, ``height``). K-Viscuit: the leaderboard's published list
or the official ``annotations.jsonl`` (no ``question_id``: a question's key is its 0-based row).
"""

from __future__ import annotations

import json
import urllib.request
from dataclasses import dataclass
from pathlib import Path

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
class KviscuitQuestion:
    question_id: int
    question: str
    options: tuple[str, ...]
    image_ref: str


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


def _kviscuit(record: dict, row: int, where: str) -> KviscuitQuestion:
    try:
        options = tuple(str(o) for o in record["options"])
        if len(options) != len(LETTERS):
            raise QuestionsError(f"{where}: options must be 4 texts")
        image = record.get("image_path") or record.get("image_url")
        if not image:
            raise QuestionsError(f"{where}: no image_path or image_url")
        return KviscuitQuestion(int(record.get("question_id", row)), str(record["question"]), options, str(image))
    except (KeyError, TypeError, ValueError) as e:
        if isinstance(e, QuestionsError):
            raise
        raise QuestionsError(f"{where}: missing or bad field {e}") from e


def load_scb(source: str) -> list[ScbQuestion]:
    records = _records(source)
    if records and "options" not in records[0]:
        raise QuestionsError(f"{source}: not an SCB question list (no options): use the list the leaderboard publishes")
    return [_scb(r, f"{source}: question {i + 1}") for i, r in enumerate(records)]


def load_kviscuit(source: str) -> list[KviscuitQuestion]:
    return [_kviscuit(r, i, f"{source}: row {i}") for i, r in enumerate(_records(source))]
