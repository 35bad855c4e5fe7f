"""Answer letters: normalising the ``answer`` field and reading a letter out of ``response``.

The reader is deterministic and never guesses: rules are tried in order and the first that
yields a letter wins; a rule that names two different letters in one text leaves the line
"unparsed" (scored as wrong and counted in the result), and so does a text no rule reads.
A ``<think>...</think>`` block (a reasoning model's deliberation) is dropped first when text
follows it. Rules, on the raw text:

1. the whole text is an answer as ``answer`` accepts it, also inside markdown emphasis, or a
   named option alone: ``"B"``, ``"(b)"``, ``"C."``, ``"**C**"``, ``"Image C"``, ``"Picture C."``,
   ``"Option (C)"``;
2. the whole text is one option's text, when the question's options are known (K-Viscuit):
   compared after normalisation (case, surrounding spaces, quotes and a trailing ``.``),
   and only if exactly one option matches: "Bungeo-ppang" -> A;
3. answer markup: ``<answer>C</answer>``, ``\\boxed{C}`` (``\\boxed{\\text{C}}``), its content read
   by rule 1;
4. an explicit statement: ``answer``/``option``/``choice``/``image``/``picture`` in any case
   (optionally ``final``/``correct``), then ``is``, ``:``, ``is:`` or ``=`` (optionally
   ``option``/``image``), then a capital letter, a bracketed letter, or a small letter closed
   by ``.``, ``)``, ``:`` or the end: "The answer is (C)", "**Answer:** B", "ANSWER: C",
   "The correct image is C.", "answer: d." (markdown ``*`` is ignored); "I choose B" /
   "I pick (c)" / "I'd go with option D"; in Korean ``정답``/``답``, optionally ``은``/``는``/``:``,
   then the letter: "정답: B", "정답은 B입니다"; a named option with an affirming verb:
   "Option B is correct", "Image C shows it", "Option D is the answer"; or a letter with one:
   "C is correct", "Based on the images, C is the right one". "The answer is a lion dance"
   and "Option B is wrong" state nothing;
5. the text starts with a letter followed by ``.``, ``)``, ``]`` or ``:``, e.g. "B) a drum", or
   by a line break and an explanation: "C\\n\\nExplanation: ..." (not a bare letter and a
   space: "A man dances" states nothing);
6. exactly one distinct parenthesised or bracketed letter anywhere: "... so (D)";
7. ordinal words naming an option: "the third image", "Second picture" (image options only),
   "the fourth option"; one introduced by "answer is" first, else the only one named;
8. the text ends with ``is``/``it's`` and a capital letter: "The image that shows the dance is
   C.", "It's C."
Only the benchmark's choices count (its declared letters, e.g. ``"ABCD"``); lower case is
accepted in rules 1, 3, 4 and 5 (rule 6 too, since it is bracketed).

Rules 3, 7 and 8, the named option alone and the emphasis of rule 1, ``is:``, any case of the
noun and the letter-first statements of rule 4, and the line break of rule 5 came with scorer
1.4: every text the 1.3 reader read still reads the same, except where a 1.4 rule that comes
first reads it otherwise: an ``<answer>`` tag or ``\\boxed{}``, text after a ``<think>`` block, a
statement 1.3 did not see (naming another letter, or a second one, which makes the text
unparsed), or a letter alone on the first line (1.3 read the explanation's one bracketed
letter). tests/scoring/test_answers.py compares both readers on generated texts.

The official K-Viscuit script reads a generation only when, stripped, it is exactly one capital
letter: :attr:`Reading.strict` says whether a line meets that rule, and the result counts the
others it read as ``lenient``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class _Patterns:
    answer: re.Pattern
    named: re.Pattern
    stated: tuple[re.Pattern, ...]
    leading: tuple[re.Pattern, ...]
    ordinal_stated: re.Pattern
    ordinal: re.Pattern
    bracketed: re.Pattern
    closing: re.Pattern


_NOUN = r"(?i:answer|option|choice|image|picture)"
_NAMED = r"(?i:option|image|choice|picture)"
_AFFIRM = r"(?:is\s++(?:the\s++)?(?:correct|right|answer|best|one)|shows|depicts|matches|contains)"
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
_ORDINAL_NUMBERS = ("1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th")
_THINK = re.compile(r"^\s*<think>.*?</think>\s*(?=\S)", re.S)
_EMPHASIS = re.compile(r"[*_`]")
_BOXED = re.compile(r"\\boxed\{\s*+(?:\\text(?:bf)?\{\s*+)?((?:[^{}\s]++|\s++(?=[^{}\s]))*+)\s*+\}?\s*+\}")
"""``\\boxed{C}``, ``\\boxed{\\text{C}}``: the content up to the first brace, its surrounding whitespace left
out. Each run of whitespace is taken whole (possessive ``++``) and never given back: the backtracking
spelling, ``\\s*(?:...)?([^{}]*?)\\s*\\}?\\s*\\}``, tried every split of a run of spaces between its parts
(``\\boxed{`` and 800 spaces took 141 s, growth n^4.4)."""
_OPEN_TAG, _CLOSE_TAG = "<answer>", "</answer>"


@lru_cache(maxsize=16)
def _patterns(choices: str) -> _Patterns:
    """The rules' patterns for one set of answer letters (capitals, checked by the declaration)."""
    up, low = f"[{choices}]", f"[{choices.lower()}]"
    both = f"[{choices}{choices.lower()}]"
    letter = rf"(?:[\(\[]\s*+({both})\s*+[\)\]]|({up})(?![\w'])|({low})(?=[.):]|$))"
    words = "|".join(_ORDINALS[: len(choices)] + _ORDINAL_NUMBERS[: len(choices)])
    ordinal = rf"\b(?i:({words}))\s++(?i:(image|picture|option|choice))\b"
    return _Patterns(
        answer=re.compile(rf"^\s*[\(\[]?\s*({both})\s*[\)\]]?\s*[.)]?\s*$"),
        named=re.compile(rf"^\s*{_NAMED}\s*[\(\[]?\s*({both})\s*[\)\]]?\s*[.)]?\s*$"),
        stated=(
            re.compile(
                rf"\b(?:[Ff]inal\s++|[Cc]orrect\s++)?{_NOUN}\s*+(?:is\s*+:?|:|=)\s*+(?:(?:[Oo]ption|[Ii]mage)\s++)?{letter}"
            ),
            re.compile(
                rf"\bI(?:\s++would|'d)?\s++(?:choose|pick|select|go\s++with)\s++(?:(?:[Oo]ption|[Ii]mage)\s++)?{letter}"
            ),
            re.compile(
                rf"(?:정답|답)\s*+(?:은|는)?\s*+[:=]?\s*+"
                rf"(?:[\(\[]\s*+({both})\s*+[\)\]]|({up})(?![A-Za-z])|({low})(?=[.):]|$|[가-힣]))"
            ),
            re.compile(rf"\b{_NAMED}\s++(?:[\(\[]({both})[\)\]]|({up}))()\s++{_AFFIRM}\b"),
            re.compile(
                rf"(?<![\w'])({up})\s++is\s++(?:the\s++)?(?:correct|right)\b"
                rf"|(?<![\w'])({up})\s++is\s++the\s++(?:correct\s++|right\s++|best\s++)?(?:answer|choice|option|one)\b"
            ),
        ),
        leading=(re.compile(rf"^\s*[\(\[]?({both})[.):\]]"), re.compile(rf"^\s*[\(\[]?({up})[\)\]]?[ \t]*\r?\n")),
        ordinal_stated=re.compile(rf"(?i:answer|choice)\s*+(?:is\s*+:?|:)\s*+(?:(?i:the)\s++)?{ordinal}"),
        ordinal=re.compile(ordinal),
        bracketed=re.compile(rf"[\(\[]({both})[\)\]]"),
        closing=re.compile(rf"(?:\bis|\b[Ii]t'?s|\b[Ii]t’s)\s++(?:{_NAMED}\s++)?[\(\[]?({up})[\)\]]?\s*+[.!]?\s*+$"),
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
    return Reading(_lenient_letter(_THINK.sub("", text, count=1), choices, options))


_UNPARSED = ""
"""What a rule returns when it names two different letters: the text is unparsed, no later rule runs."""


def _one(letters: set[str]) -> str | None:
    """The rule's letter; :data:`_UNPARSED` when it names two, None when it names none."""
    if not letters:
        return None
    return letters.pop() if len(letters) == 1 else _UNPARSED


def _whole(text: str, rules: _Patterns, choices: str, options: Sequence[str] | None) -> str | None:
    """Rules 1 and 2: the whole text is a letter, a named option or one option's text."""
    if (letter := normalize_answer(text, choices)) is not None:
        return letter
    bare = _EMPHASIS.sub("", text)
    if len(bare) <= 40 and (m := rules.answer.match(bare) or rules.named.match(bare)):
        return m.group(1).upper()
    if options and (letter := _option_letter(text, choices, options)) is not None:
        return letter
    return None


def _lenient_letter(text: str, choices: str, options: Sequence[str] | None) -> str | None:
    rules = _patterns(choices)
    if (letter := _whole(text, rules, choices, options)) is not None:
        return letter
    unstarred = text.replace("*", "")
    for rule in _RULES:
        letter = rule(text, unstarred, rules, choices, options)
        if letter is not None:
            return letter or None
    return None


def _markup(text: str, unstarred: str, rules: _Patterns, choices: str, options: Sequence[str] | None) -> str | None:
    """Rule 3: ``<answer>`` tags and ``\\boxed{}``, their content read as a whole text."""
    found = {read for content in _markup_contents(text) if (read := _whole(content, rules, choices, options))}
    return _one(found)


def _markup_contents(text: str) -> Iterator[str]:
    """The contents of the markups in ``text``, left to right, none inside another (as one pattern
    with both alternatives found them, ``<answer>\\s*(.*?)\\s*</answer>|\\\\boxed...``)."""
    next_tagged = _tag_finder(text)
    tagged, boxed = next_tagged(0), _BOXED.search(text)
    while tagged is not None or boxed is not None:
        if boxed is None or (tagged is not None and tagged[0] < boxed.start()):
            _, at, content = tagged
        else:
            at, content = boxed.end(), boxed.group(1)
        yield content
        if tagged is not None and tagged[0] < at:
            tagged = next_tagged(at)
        if boxed is not None and boxed.start() < at:
            boxed = _BOXED.search(text, at)


def _tag_finder(text: str) -> Callable[[int], tuple[int, int, str] | None]:
    """The first ``<answer>...</answer>`` from a position on, as (start, end, content without its
    surrounding whitespace), or None. Positions asked for only grow and the closing tag found is
    kept, so the text is searched once: a pattern looked for a closing tag from each of many
    opening tags, time quadratic in the text."""
    closing = -1

    def first_from(at: int) -> tuple[int, int, str] | None:
        nonlocal closing
        start = text.find(_OPEN_TAG, at)
        inner = start + len(_OPEN_TAG)
        if start < 0 or (closing < inner and (closing := text.find(_CLOSE_TAG, inner)) < 0):
            return None
        return start, closing + len(_CLOSE_TAG), text[inner:closing].strip()

    return first_from


def _stated(text: str, unstarred: str, rules: _Patterns, choices: str, options: Sequence[str] | None) -> str | None:
    """Rule 4: explicit statements; statements that disagree leave the text unparsed."""
    return _one({"".join(m).upper() for rule in rules.stated for m in rule.findall(unstarred)})


def _leading(text: str, unstarred: str, rules: _Patterns, choices: str, options: Sequence[str] | None) -> str | None:
    """Rule 5: a leading letter closed by punctuation, or on a line of its own."""
    old, line = rules.leading
    m = old.match(text) or line.match(unstarred)
    return m.group(1).upper() if m else None


def _ordinal(text: str, unstarred: str, rules: _Patterns, choices: str, options: Sequence[str] | None) -> str | None:
    """Rule 7: "the third image" (image options only) or "the second option": a stated ordinal
    first, else the one ordinal the text names."""
    textual = options is not None

    def letters(matches: list[tuple[str, str]]) -> set[str]:
        out = set()
        for word, noun in matches:
            if textual and noun.lower() in ("image", "picture"):
                continue
            k = _ORDINALS.index(word.lower()) if word.lower() in _ORDINALS else _ORDINAL_NUMBERS.index(word.lower())
            out.add(choices[k])
        return out

    stated = letters(rules.ordinal_stated.findall(unstarred))
    return _one(stated) if stated else _one(letters(rules.ordinal.findall(unstarred)))


def _bracketed(text: str, unstarred: str, rules: _Patterns, choices: str, options: Sequence[str] | None) -> str | None:
    """Rule 6: exactly one distinct bracketed letter anywhere (two: no reading, later rules may)."""
    found = {m.upper() for m in rules.bracketed.findall(text)}
    return found.pop() if len(found) == 1 else None


def _closing(text: str, unstarred: str, rules: _Patterns, choices: str, options: Sequence[str] | None) -> str | None:
    """Rule 8: the text ends with "is C." or "It's C."."""
    m = rules.closing.search(unstarred)
    return m.group(1) if m else None


_RULES = (_markup, _stated, _leading, _bracketed, _ordinal, _closing)
"""Rules 3-8 in order (rules 1-2 read the whole text, :func:`_whole`)."""


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
    >>> [extract_answer(t, "ABCD") for t in ["Image C", "**C**", "<answer>C</answer>", "The third image."]]
    ['C', 'C', 'C', 'C']
    >>> extract_answer("bungeo-ppang.", "ABCD", ["Bungeo-ppang", "Hwangnam-ppang", "Dakjuk", "Ice cream"])
    'A'
    """
    return read_response(response, choices, options).letter
