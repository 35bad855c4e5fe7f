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
Only A-D count; lower case is accepted in rules 1-3 (rule 4 too, since it is bracketed).
"""

from __future__ import annotations

import re

LETTERS = "ABCD"

_ANSWER = re.compile(r"^\s*[\(\[]?\s*([A-Da-d])\s*[\)\]]?\s*[.)]?\s*$")
_STATED = re.compile(
    r"\b(?:[Ff]inal\s+|[Cc]orrect\s+)?(?:[Aa]nswer|[Oo]ption|[Cc]hoice)\s*(?:is|:|=)\s*(?:[Oo]ption\s+)?"
    r"(?:[\(\[]\s*([A-Da-d])\s*[\)\]]|([A-D])(?![\w'])|([a-d])(?=[.):]|$))",
)
_LEADING = re.compile(r"^\s*[\(\[]?([A-Da-d])[.):\]]")
_BRACKETED = re.compile(r"[\(\[]([A-Da-d])[\)\]]")


def normalize_answer(value: object) -> str | None:
    """The letter A-D of an ``answer`` value, or None when it is not one.

    >>> [normalize_answer(v) for v in ["c", " (b) ", "B.", "[D]", "A)", "E", "AB", 2]]
    ['C', 'B', 'B', 'D', 'A', None, None, None]
    """
    if not isinstance(value, str) or len(value) > 16:
        return None
    m = _ANSWER.match(value)
    return m.group(1).upper() if m else None


def extract_answer(response: str) -> str | None:
    """The letter that ``response`` states, by the rules of the module doc, or None.

    >>> [extract_answer(t) for t in ["The answer is (C).", "B) a drum", "I think (a)", "A or B?"]]
    ['C', 'B', 'A', None]
    >>> extract_answer("Answer: B. Final answer: C") is None  # two statements disagree
    True
    >>> [extract_answer(t) for t in ["**Answer:** B", "The correct answer is option C.", "The answer is a lion dance."]]
    ['B', 'C', None]
    """
    if not isinstance(response, str):
        return None
    text = response[:10_000]
    if (letter := normalize_answer(text)) is not None:
        return letter
    stated = {"".join(m).upper() for m in _STATED.findall(text.replace("*", ""))}
    if stated:
        return stated.pop() if len(stated) == 1 else None
    if m := _LEADING.match(text):
        return m.group(1).upper()
    bracketed = {m.upper() for m in _BRACKETED.findall(text)}
    return bracketed.pop() if len(bracketed) == 1 else None
