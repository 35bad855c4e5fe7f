"""The fast path of validation: a file with nothing unusual in it, checked as a whole.

Nearly every submission is a plain file: one JSON object a line, each with a known id given
once, an ``answer`` and at most the benchmark's usual grounding. :func:`read_plain` reads such
a file in a few passes over lists and arrays and gives exactly what the per-line reader
(``scoring.engine._LineReader``) would give; on anything else (a line it cannot read the same
way, a field it does not handle, a value the per-line reader would refuse or treat specially)
it returns None and the engine reads the file line by line. It never reports an issue itself,
so every message, its line number and its order come from the per-line reader alone, and
it accepts exactly the files that reader accepts. Its first :data:`PROBE_LINES` lines are read
first, so that a file that is not plain (polygons, masks, responses) costs little before it
is turned away. tests/scoring/test_batch.py compares both paths.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import orjson

from scoring.answers import normalize_answer
from scoring.benchmarks import Benchmark
from scoring.gold import Gold
from scoring.jsonl import _CHAR_CLASSES, _LONG_DIGITS, _MAX_ORJSON_BRACKETS, Limits


@dataclass(frozen=True)
class PlainFile:
    """A plain file's lines, read: per line (in file order) its gold row and the index of its
    letter in the benchmark's choices; its groundings by row and its box samples."""

    rows: list[int]
    letters: list[int]
    groundings: dict[int, object]
    box_samples: tuple


def read_plain(
    bench: Benchmark, gold: Gold, source: str | Path | bytes, box_format: str, limits: Limits
) -> PlainFile | None:
    """What the per-line reader would read from ``source``, or None to let it read the file."""
    if bench.read_lines is None:
        return None
    data = _raw(source, limits)
    if not data:
        return None
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    # A few lines first: a file of polygons or responses is turned away before it is parsed whole.
    if _read(bench, gold, lines[:PROBE_LINES], box_format) is None or not _orjson_reads(data, lines, limits):
        return None
    return _read(bench, gold, lines, box_format)


PROBE_LINES = 16
"""Lines read before the whole file: one polygon file parsed whole for nothing cost ~18 ms."""


def _raw(source: str | Path | bytes, limits: Limits) -> bytes | None:
    if isinstance(source, bytes):
        return source if len(source) <= limits.max_bytes else None
    if os.stat(source).st_size > limits.max_bytes:
        return None
    data = Path(source).read_bytes()
    return data if len(data) <= limits.max_bytes else None


def _orjson_reads(data: bytes, lines: list[bytes], limits: Limits) -> bool:
    """Whether ``scoring.jsonl`` would hand every line to orjson as it is: the file is within its
    limits and has no 19-digit run or line with over 256 brackets."""
    longest = max(map(len, lines), default=0)
    if longest >= limits.max_line_bytes or len(lines) > limits.max_lines:
        return False
    if _LONG_DIGITS in data.translate(_CHAR_CLASSES):
        return False
    return longest <= _MAX_ORJSON_BRACKETS or not any(
        line.count(b"[") + line.count(b"{") > _MAX_ORJSON_BRACKETS for line in lines if len(line) > _MAX_ORJSON_BRACKETS
    )


def _read(bench: Benchmark, gold: Gold, raw: list[bytes], box_format: str) -> PlainFile | None:
    """The lines read, when every one is a JSON object orjson reads (no blank line or BOM) with
    a known key given once, an answer and what ``bench.read_lines`` reads; else None."""
    try:
        lines = [orjson.loads(line) for line in raw]
    except orjson.JSONDecodeError:
        return None
    if set(map(type, lines)) != {dict}:
        return None
    rows = _rows(bench, gold, lines)
    if rows is None:
        return None
    letters = _letters(bench, lines)
    if letters is None:
        return None
    read = bench.read_lines(lines, gold, rows, letters, box_format)
    if read is None:
        return None
    index = {letter: k for k, letter in enumerate(bench.choices)}
    return PlainFile(rows, [index[letter] for letter in letters], *read)


def _rows(bench: Benchmark, gold: Gold, lines: list[dict]) -> list[int] | None:
    """Each line's gold row, when every line has a known key and no key is given twice."""
    key_field = bench.key_field
    if not all(key_field in line for line in lines):
        return None
    try:
        rows = [gold.index.get(key) for key in map(bench.parse_key, (line[key_field] for line in lines))]
    except TypeError:  # an unhashable key
        return None
    if None in rows or len(set(rows)) != len(rows):
        return None
    return rows


def _letters(bench: Benchmark, lines: list[dict]) -> list[str] | None:
    """Each line's letter, when every line has an ``answer`` string that reads as one."""
    answers = [line.get("answer") for line in lines]
    if set(map(type, answers)) != {str}:
        return None
    read = {value: normalize_answer(value, bench.choices) for value in set(answers)}
    if None in read.values():
        return None
    return [read[value] for value in answers]
