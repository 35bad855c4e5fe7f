"""Streaming JSON Lines reader with limits: reads a submission line by line, never whole.

Every malformed line becomes an :class:`~scoring.errors.Issue` in an :class:`IssueLog`;
well-formed objects are yielded with their 1-based line numbers. Limits protect the server
from hostile files (huge files or lines, deep nesting, NaN/Infinity, 1e999).
"""

from __future__ import annotations

import io
import json
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import orjson

from scoring.errors import MAX_LISTED, Issue, SubmissionError


@dataclass(frozen=True)
class Limits:
    """Bounds on a submission file; the app makes ``max_bytes`` configurable."""

    max_bytes: int = 50 * 1024 * 1024
    max_line_bytes: int = 4 * 1024 * 1024
    max_lines: int = 100_000


@dataclass
class IssueLog:
    """Collects issues up to :data:`MAX_LISTED` and counts all of them."""

    listed: list[Issue] = field(default_factory=list)
    total: int = 0
    by_code: Counter = field(default_factory=Counter)

    def add(self, code: str, line: int, field_name: str, message: str) -> None:
        self.add_issue(Issue(code, line, field_name, message))

    def add_issue(self, issue: Issue) -> None:
        """An issue made elsewhere, kept whole (its ``suggested`` settings too)."""
        self.total += 1
        self.by_code[issue.code] += 1
        if len(self.listed) < MAX_LISTED:
            self.listed.append(issue)

    @property
    def will_list(self) -> bool:
        """Whether the next issue will be listed (costly hints are worked out only for those)."""
        return len(self.listed) < MAX_LISTED

    def add_first(self, issue: Issue) -> None:
        """A whole-file issue that explains the others (listed first, even past the limit)."""
        self.total += 1
        self.by_code[issue.code] += 1
        self.listed = [issue, *self.listed][:MAX_LISTED]

    def explain(self, issue: Issue, codes: frozenset[str]) -> None:
        """A whole-file issue that *replaces* the line issues of ``codes`` it explains (one
        "the ids are shifted" instead of 657 unknown ids and id_ mismatches)."""
        dropped = sum(self.by_code.pop(code, 0) for code in codes)
        self.total -= dropped
        self.listed = [i for i in self.listed if i.code not in codes]
        self.add_first(issue)

    def raise_if_any(self) -> None:
        if self.total:
            raise SubmissionError(self.listed, self.total)


class _NonFinite(ValueError):
    pass


def _reject_constant(name: str) -> float:
    raise _NonFinite(name)


def _parse_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _NonFinite(text)
    return value


_PLAIN = json.JSONDecoder(parse_constant=_reject_constant)
_STRICT = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_parse_float)
_BIG_EXPONENT = re.compile(r"[0-9][eE][+-]?[0-9]{3}")
"""Only a number with a 3-digit exponent can overflow to infinity (1e999): such lines take the
decoder with a Python hook per float, the others the plain one (a polygon line holds hundreds
of floats, and the hook would double the parsing time)."""
_CHAR_CLASSES = bytes(
    ord("0") if chr(c).isdigit() and c < 128 else ord("[") if chr(c) in "[{" else ord(" ") for c in range(256)
)
"""Digits -> ``0``, opening brackets -> ``[``, all else -> space: one ``translate`` and two C
searches then say whether orjson may read a line (a regular expression costs 5x as much)."""
_LONG_DIGITS = b"0" * 19
_MAX_ORJSON_BRACKETS = 256
_NOTHING = object()
"""What a blank or unreadable line decodes to (None is a ``null`` line: not an object, an error)."""


def _fast(raw: bytes) -> object:
    """The line decoded by orjson (3x faster than the standard decoder, the same values), or
    :data:`_NOTHING` when the standard decoders must read it: orjson turns integers beyond 64
    bits into floats (so lines with 19 digits in a row are left to the standard decoder), nests
    up to 1,024 levels where the standard decoder stops earlier, at Python's recursion limit
    less the caller's depth (so lines with over 256 brackets are left to it), and every line
    orjson refuses is read again by the standard decoders, so that errors keep their messages."""
    classes = raw.translate(_CHAR_CLASSES)
    if _LONG_DIGITS in classes or classes.count(b"[") > _MAX_ORJSON_BRACKETS:
        return _NOTHING
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _NOTHING


def _decode(raw: bytes, line_no: int, log: IssueLog) -> object:
    """The line's JSON value, or :data:`_NOTHING` for a blank line or one logged as unreadable."""
    if (obj := _fast(raw)) is not _NOTHING:
        return obj
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        log.add("encoding", line_no, "", f"not UTF-8: byte 0x{raw[e.start]:02x} at position {e.start + 1}")
        return _NOTHING
    if line_no == 1:
        text = text.removeprefix("\ufeff")  # a BOM is harmless: accept it
    if not text.strip():
        return _NOTHING
    text = text.rstrip("\r\n")  # else an unfinished line is reported at column 1 of the next
    try:
        return (_STRICT if _BIG_EXPONENT.search(text) else _PLAIN).decode(text)
    except _NonFinite as e:
        log.add("non_finite_number", line_no, "", f"non-finite number {str(e)[:20]}: JSON numbers must be finite")
    except json.JSONDecodeError as e:
        log.add("json_decode", line_no, "", f"not valid JSON: {e.msg} at column {e.colno}")
    except RecursionError:
        log.add("json_decode", line_no, "", "not valid JSON: nested too deeply")
    except ValueError as e:  # e.g. an integer with thousands of digits
        log.add("json_decode", line_no, "", f"not valid JSON: {str(e)[:80]}")
    return _NOTHING


def _open(source: str | Path | bytes) -> tuple[int, BinaryIO]:
    """The size and a binary reader of a file path or of bytes already in memory."""
    if isinstance(source, bytes):
        return len(source), io.BytesIO(source)
    return os.stat(source).st_size, open(source, "rb")  # noqa: SIM115 (closed by the caller's with)


def read_objects(source: str | Path | bytes, log: IssueLog, limits: Limits = Limits()) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, object)`` for each well-formed JSON object line of ``source``
    (a file's path, or its bytes when a store already holds them in memory).

    Blank lines are skipped. Whole-file problems (too large, too many lines, empty) are logged
    with line 0 or the line where reading stopped.
    """
    size, reader = _open(source)
    if size > limits.max_bytes:
        reader.close()
        log.add("file_too_large", 0, "", f"file is {size:,} bytes; the limit is {limits.max_bytes:,}")
        return
    seen_object = False
    with reader as f:
        line_no = 0
        while True:
            raw = f.readline(limits.max_line_bytes + 1)
            if not raw:
                break
            line_no += 1
            if line_no > limits.max_lines:
                log.add("too_many_lines", line_no, "", f"more than {limits.max_lines:,} lines; reading stopped")
                return
            if len(raw) > limits.max_line_bytes and not raw.endswith(b"\n"):
                log.add("line_too_long", line_no, "", f"line is longer than {limits.max_line_bytes:,} bytes")
                while (chunk := f.readline(1 << 20)) and not chunk.endswith(b"\n"):
                    pass
                continue
            obj = _decode(raw, line_no, log)
            if obj is _NOTHING:
                continue
            if not isinstance(obj, dict):
                got = "null" if obj is None else type(obj).__name__
                log.add("not_object", line_no, "", f"expected a JSON object, got {got}")
                continue
            seen_object = True
            yield line_no, obj
    if not seen_object and log.total == 0:
        log.add("empty_file", 0, "", "the file holds no prediction lines")
