"""Hints for an unknown question id: the right kind of id, or the near miss that was meant.

Question ids are public (the question list publishes them), so naming one says nothing of the gold.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

_NOT_DIGIT = re.compile(r"\D")


def _kind(value: object) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "number"
    return "string" if isinstance(value, str) else type(value).__name__


def key_hint(value: object, keys: Sequence[object]) -> str:
    """What to tell about an unknown id ``value`` given the known ``keys`` ('' when nothing helps).

    >>> key_hint(2836, ["scb-00385", "scb-02836"])
    "ids here are strings like 'scb-00385', not numbers; did you mean 'scb-02836'?"
    >>> key_hint("scb-2836", ["scb-00385", "scb-02836"])
    "did you mean 'scb-02836'?"
    >>> key_hint("Food.1.0", [0, 1, 2])
    'ids here are numbers like 0, not strings'
    >>> key_hint(657, list(range(657)))
    'ids here are the row indices 0-656'
    """
    if not keys:
        return ""
    example = keys[0]
    if _is_index(value) and all(_is_index(k) for k in (keys[0], keys[-1])):
        return f"ids here are the row indices {keys[0]}-{keys[-1]}"  # a near spelling of a number means nothing
    parts = []
    if _kind(value) != _kind(example):
        parts.append(f"ids here are {_kind(example)}s like {example!r}, not {_kind(value)}s")
    meant = _near_miss(value, keys)
    if meant is not None:
        parts.append(f"did you mean {meant!r}?")
    return "; ".join(parts)


def _is_index(value: object) -> bool:
    return type(value) is int


def _near_miss(value: object, keys: Sequence[object]) -> object | None:
    """The one key with the same digits (2836 -> 'scb-02836'), else the closest spelling."""
    text = str(value)[:60]
    digits = _NOT_DIGIT.sub("", text).lstrip("0")
    if digits and isinstance(keys[0], str):
        same = [k for k in keys if _NOT_DIGIT.sub("", str(k)).lstrip("0") == digits]
        if len(same) == 1:
            return same[0]
    by_text = {str(k): k for k in keys}
    close = difflib.get_close_matches(text, list(by_text), n=1, cutoff=0.8)
    return by_text[close[0]] if close else None
