"""Answer letters: normalising the ``answer`` field and reading a letter out of ``response``.

The extractor is deterministic and never guesses: rules are tried in order and the first
that yields exactly one letter wins; otherwise the line is "unparsed" (scored as wrong and
counted in the result). Rules, on the raw text:

1. the whole text is an answer as ``answer`` accepts it: ``"B"``, ``"(b)"``, ``"C."``;
2. an explicit statement: ``answer``/``option``/``choice`` (optionally ``final``/``correct``),
   then ``is``, ``:`` or ``=`` (optionally ``option``), then a capital letter, a bracketed
   letter, or a small letter closed by ``.``, ``)``, ``:`` or the end: "The answer is (C)",
   "**Answer:** B", "The correct answer is option C.", "answer: d." (markdown ``*`` is
   ignored). "The answer is a lion dance" states nothing. If statements disagree: unparsed;
3. the text starts with a letter followed by ``.``, ``)``, ``]`` or ``:``, e.g. "B) a drum"
   (not a bare letter and a space: "A man dances" states nothing);
4. exactly one distinct parenthesised or bracketed letter anywhere: "... so (D)".
Only the benchmark's choices count (its declared letters, e.g. ``"ABCD"``); lower case is
accepted in rules 1-3 (rule 4 too, since it is bracketed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class _Patterns:
    answer: re.Pattern
    stated: re.Pattern
    leading: re.Pattern
    bracketed: re.Pattern


@lru_cache(maxsize=16)
def _patterns(choices: str) -> _Patterns:
    """The four rules' patterns for one set of answer letters (capitals, checked by the declaration)."""
    up, low = f"[{choices}]", f"[{choices.lower()}]"
    both = f"[{choices}{choices.lower()}]"
    return _Patterns(
        answer=re.compile(rf"^\s*[\(\[]?\s*({both})\s*[\)\]]?\s*[.)]?\s*$"),
        stated=re.compile(
            r"\b(?:[Ff]inal\s+|[Cc]orrect\s+)?(?:[Aa]nswer|[Oo]ption|[Cc]hoice)\s*(?:is|:|=)\s*(?:[Oo]ption\s+)?"
            rf"(?:[\(\[]\s*({both})\s*[\)\]]|({up})(?![\w'])|({low})(?=[.):]|$))",
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


def extract_answer(response: str, choices: str) -> str | None:
    """The letter (one of ``choices``) that ``response`` states, by the rules of the module doc, or None.

    >>> [extract_answer(t, "ABCD") for t in ["The answer is (C).", "B) a drum", "I think (a)", "A or B?"]]
    ['C', 'B', 'A', None]
    >>> extract_answer("Answer: B. Final answer: C", "ABCD") is None  # two statements disagree
    True
    >>> texts = ["**Answer:** B", "The correct answer is option C.", "The answer is a lion dance."]
    >>> [extract_answer(t, "ABCD") for t in texts]
    ['B', 'C', None]
    """
    if not isinstance(response, str):
        return None
    text = response[:10_000]
    if (letter := normalize_answer(text, choices)) is not None:
        return letter
    rules = _patterns(choices)
    stated = {"".join(m).upper() for m in rules.stated.findall(text.replace("*", ""))}
    if stated:
        return stated.pop() if len(stated) == 1 else None
    if m := rules.leading.match(text):
        return m.group(1).upper()
    bracketed = {m.upper() for m in rules.bracketed.findall(text)}
    return bracketed.pop() if len(bracketed) == 1 else None
