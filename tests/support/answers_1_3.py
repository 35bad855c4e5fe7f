"""Frozen copy of scoring/answers.py at scorer 1.3 (the differential oracle of
tests/scoring/test_answers.py: 1.4 must read every text 1.3 read the same). Do not edit.

Answer letters: normalising the ``answer`` field and reading a letter out of ``response``.

The extractor is deterministic and never guesses: rules are tried in order and the first
that yields exactly one letter wins; otherwise the line is "unparsed" (scored as wrong and
counted in the result). Rules, on the raw text:

1. the whole text is an answer as ``answer`` accepts it: ``"B"``, ``"(b)"``, ``"C."``;
2. the whole text is one option's text, when the question's options are known (K-Viscuit):
   compared after normalisation (case, surrounding spaces, quotes and a trailing ``.``),
   and only if exactly one option matches: "Bungeo-ppang" -> A;
3. an explicit statement: ``answer``/``option``/``choice``/``image`` (optionally
   ``final``/``correct``), then ``is``, ``:`` or ``=`` (optionally ``option``/``image``), then a
   capital letter, a bracketed letter, or a small letter closed by ``.``, ``)``, ``:`` or the end:
   "The answer is (C)", "**Answer:** B", "The correct image is C.", "answer: d." (markdown ``*``
   is ignored); "I choose B" / "I pick (c)" / "I'd go with option D"; in Korean ``정답``/``답``,
   optionally ``은``/``는``/``:``, then the letter: "정답: B", "정답은 B입니다"; or a named option
   with an affirming verb: "Option B is correct", "Image C shows it", "Option D is the answer".
   "The answer is a lion dance" and "Option B is wrong" state nothing. If statements disagree:
   unparsed;
4. the text starts with a letter followed by ``.``, ``)``, ``]`` or ``:``, e.g. "B) a drum"
   (not a bare letter and a space: "A man dances" states nothing);
5. exactly one distinct parenthesised or bracketed letter anywhere: "... so (D)".
Only the benchmark's choices count (its declared letters, e.g. ``"ABCD"``); lower case is
accepted in rules 1, 3 and 4 (rule 5 too, since it is bracketed).

The official K-Viscuit script reads a generation only when, stripped, it is exactly one capital
letter: :attr:`Reading.strict` says whether a line meets that rule, and the result counts the
others it read as ``lenient``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class _Patterns:
    answer: re.Pattern
    stated: tuple[re.Pattern, ...]
    leading: re.Pattern
    bracketed: re.Pattern


_NOUN = r"(?:[Aa]nswer|[Oo]ption|[Cc]hoice|[Ii]mage|[Pp]icture)"
_AFFIRM = r"(?:is\s+(?:the\s+)?(?:correct|right|answer|best|one)|shows|depicts|matches|contains)"


@lru_cache(maxsize=16)
def _patterns(choices: str) -> _Patterns:
    """The rules' patterns for one set of answer letters (capitals, checked by the declaration)."""
    up, low = f"[{choices}]", f"[{choices.lower()}]"
    both = f"[{choices}{choices.lower()}]"
    letter = rf"(?:[\(\[]\s*({both})\s*[\)\]]|({up})(?![\w'])|({low})(?=[.):]|$))"
    return _Patterns(
        answer=re.compile(rf"^\s*[\(\[]?\s*({both})\s*[\)\]]?\s*[.)]?\s*$"),
        stated=(
            re.compile(
                rf"\b(?:[Ff]inal\s+|[Cc]orrect\s+)?{_NOUN}\s*(?:is|:|=)\s*(?:(?:[Oo]ption|[Ii]mage)\s+)?{letter}"
            ),
            re.compile(
                rf"\bI(?:\s+would|'d)?\s+(?:choose|pick|select|go\s+with)\s+(?:(?:[Oo]ption|[Ii]mage)\s+)?{letter}"
            ),
            re.compile(
                rf"(?:정답|답)\s*(?:은|는)?\s*[:=]?\s*"
                rf"(?:[\(\[]\s*({both})\s*[\)\]]|({up})(?![A-Za-z])|({low})(?=[.):]|$|[가-힣]))"
            ),
            re.compile(
                rf"\b(?:[Oo]ption|[Ii]mage|[Cc]hoice|[Pp]icture)\s+(?:[\(\[]({both})[\)\]]|({up}))()\s+{_AFFIRM}\b"
            ),
        ),
        leading=re.compile(rf"^\s*[\(\[]?({both})[.):\]]"),
        bracketed=re.compile(rf"[\(\[]({both})[\)\]]"),
    )


def describe(choices: str) -> str:
    """How messages name the letters: a run as ``A-D``, others listed.

    >>> describe("ABCD"), describe("ABC"), describe("AC")
    ('A-D', 'A-C', 'A, C')
    """
    run = "".join(chr(ord(choices[0]) + i) for i in range(len(choices)))
    return f"{choices[0]}-{choices[-1]}" if choices == run and len(choices) > 2 else ", ".join(choices)


def normalize_answer(value: object, choices: str) -> str | None:
    """The letter (one of ``choices``) of an ``answer`` value, or None when it is not one.

    >>> [normalize_answer(v, "ABCD") for v in ["c", " (b) ", "B.", "[D]", "A)", "E", "AB", 2]]
    ['C', 'B', 'B', 'D', 'A', None, None, None]
    >>> normalize_answer("D", "ABC") is None
    True
    """
    if not isinstance(value, str) or len(value) > 16:
        return None
    m = _patterns(choices).answer.match(value)
    return m.group(1).upper() if m else None


@dataclass(frozen=True)
class Reading:
    """What the extractor read from a response: the letter (None: unparsed) and whether the
    official rule (stripped, exactly one capital letter) would have read it too."""

    letter: str | None
    strict: bool = False


def _plain_text(text: str) -> str:
    """An option or a response compared by rule 2: case folded, spaces collapsed, surrounding
    quotes, asterisks and one trailing full stop dropped."""
    folded = " ".join(text.casefold().split()).strip("\"'*` ")
    return folded[:-1].rstrip() if folded.endswith(".") else folded


def _option_letter(text: str, choices: str, options: Sequence[str]) -> str | None:
    plain = _plain_text(text)
    if not plain:
        return None
    hits = [k for k, option in enumerate(options[: len(choices)]) if _plain_text(str(option)) == plain]
    return choices[hits[0]] if len(hits) == 1 else None


def read_response(response: object, choices: str, options: Sequence[str] | None = None) -> Reading:
    """The letter ``response`` states by the rules of the module doc, and whether it is strict."""
    if not isinstance(response, str):
        return Reading(None)
    text = response[:10_000]
    if text.strip() in choices and len(text.strip()) == 1:
        return Reading(text.strip(), strict=True)
    return Reading(_lenient_letter(text, choices, options))


def _lenient_letter(text: str, choices: str, options: Sequence[str] | None) -> str | None:
    if (letter := normalize_answer(text, choices)) is not None:
        return letter
    if options and (letter := _option_letter(text, choices, options)) is not None:
        return letter
    rules = _patterns(choices)
    unstarred = text.replace("*", "")
    stated = {"".join(m).upper() for rule in rules.stated for m in rule.findall(unstarred)}
    if stated:
        return stated.pop() if len(stated) == 1 else None
    if m := rules.leading.match(text):
        return m.group(1).upper()
    bracketed = {m.upper() for m in rules.bracketed.findall(text)}
    return bracketed.pop() if len(bracketed) == 1 else None


def extract_answer(response: str, choices: str, options: Sequence[str] | None = None) -> str | None:
    """The letter (one of ``choices``) that ``response`` states, by the rules of the module doc, or None.

    ``options``: the question's option texts in letter order, when the benchmark has them (rule 2).

    >>> [extract_answer(t, "ABCD") for t in ["The answer is (C).", "B) a drum", "I think (a)", "A or B?"]]
    ['C', 'B', 'A', None]
    >>> extract_answer("Answer: B. Final answer: C", "ABCD") is None  # two statements disagree
    True
    >>> texts = ["**Answer:** B", "The correct answer is option C.", "The answer is a lion dance."]
    >>> [extract_answer(t, "ABCD") for t in texts]
    ['B', 'C', None]
    >>> [extract_answer(t, "ABCD") for t in ["Image C shows it.", "Option B is correct because", "정답은 B입니다."]]
    ['C', 'B', 'B']
    >>> extract_answer("bungeo-ppang.", "ABCD", ["Bungeo-ppang", "Hwangnam-ppang", "Dakjuk", "Ice cream"])
    'A'
    """
    return read_response(response, choices, options).letter
