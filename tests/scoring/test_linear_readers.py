"""Every pattern that reads a team's text runs in time linear in its length (issue 30 item 1).

At ebb85c5 ``\\boxed{`` and 800 spaces took 141 s to read (growth about n^4.4), and one such line held
the only scoring worker for minutes. Here each adversarial family is read at n and 4n characters, up to
the readers' caps (10,000 characters of a response, 20,000 of a grounding response), and the time
ratio must stay linear (tests/support/growth.py: best-of-k runs, ratios only, a guard for runs of
minutes). The families are the red team's (attacks.md #1, scripts/red/redos.py) and ones Hypothesis
builds from the rules' own tokens. The readings themselves do not change: the linear reader reads every
generated text as the backtracking reader of ebb85c5 did (tests/support/answers_1_4.py).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.answers import read_response
from scoring.grounding_formats import FAMILIES, find_boxes, other_readings
from tests.support import answers_1_4
from tests.support.growth import LINEAR_BOUND, growth

RESPONSE_CAP = 10_000
GROUNDING_CAP = 20_000
OPTIONS = ["a b", "c", "d", "e"]


def _read(text: str) -> None:
    read_response(text, "ABCD")
    read_response(text, "ABCD", OPTIONS)


def _read_boxes(text: str) -> None:
    for family in FAMILIES.values():
        find_boxes(text, family)
    other_readings(text, FAMILIES["plain"])


def _filled(prefix: str, unit: str, suffix: str = ""):
    """A text of about ``n`` characters: ``prefix``, ``unit`` repeated, ``suffix``."""
    return lambda n: prefix + unit * max(1, (n - len(prefix) - len(suffix)) // len(unit)) + suffix


RESPONSE_FAMILIES = {
    "\\boxed{ + spaces": _filled("\\boxed{", " "),
    "\\boxed{\\text{ + spaces": _filled("\\boxed{\\text{", " "),
    "\\boxed{x + spaces": _filled("\\boxed{x", " "),
    "\\boxed{ + spaces + }": _filled("\\boxed{", " ", "}"),
    "<answer> + spaces": _filled("<answer>", " "),
    "<answer> repeated": _filled("", "<answer>"),
    "</answer> then <answer> repeated": _filled("</answer>", "<answer> "),
    "<answer> + spaces + </answer>": _filled("<answer>", " ", "</answer>"),
    "is A + spaces + x": _filled("is A", " ", "x"),
    "answer is + spaces + x": _filled("answer is", " ", "x"),
    "answer is: + tabs and newlines": _filled("answer is:", " \t\n"),
    "(answer is ) repeated": _filled("", "answer is "),
    "(Image A ) repeated": _filled("", "Image A "),
    "(first ) repeated": _filled("", "first "),
    "( parens": _filled("", "("),
    "<think> unclosed": _filled("<think>", "x"),
    "<think></think> + spaces": _filled("<think></think>", " "),
    "정답 + spaces + x": _filled("정답", " ", "x"),
    "정답은 + spaces + : + spaces": _filled("정답은" + " " * 100 + ":", " ", "x"),
    "I + spaces + choose": _filled("I", " ", "choose"),
    "spaces": _filled("", " "),
}

GROUNDING_FAMILIES = {
    "[ + digits": _filled("[", "1"),
    "([1, ) repeated": _filled("", "[1,"),
    "[1,1,1, + spaces": _filled("[1,1,1,", " "),
    "((1, ) repeated": _filled("", "(1,"),
    '("bbox_2d": [1, 2, 3) repeated': _filled("", '"bbox_2d": [1, 2, 3'),
    "(<loc_1>) repeated": _filled("", "<loc_1>"),
    "<think> + [": _filled("<think>", "["),
    "[1 + spaces + ,": _filled("[1", " ", ","),
}


@pytest.mark.parametrize("name", RESPONSE_FAMILIES)
def test_responses_are_read_in_linear_time(name):
    ratio = growth(_read, RESPONSE_FAMILIES[name], RESPONSE_CAP // 4)
    assert ratio <= LINEAR_BOUND, f"{name}: 4x the text took {ratio:.1f}x the time"


@pytest.mark.parametrize("name", GROUNDING_FAMILIES)
def test_grounding_responses_are_read_in_linear_time(name):
    ratio = growth(_read_boxes, GROUNDING_FAMILIES[name], GROUNDING_CAP // 4)
    assert ratio <= LINEAR_BOUND, f"{name}: 4x the text took {ratio:.1f}x the time"


TOKENS = [
    "\\boxed{", "\\text{", "\\textbf{", "}", "{", "<answer>", "</answer>", "<think>", "</think>", "정답", "답", "은",
    "는", ":", "=", " ", "  ", "\n", "\t", "\r\n", "answer", "Answer", "is", "the", "final", "correct", "I", "would",
    "choose", "go with", "Option", "image", "Picture", "first", "third", "It's", "shows", "right", "one", "A", "B", "c",
    "d", "(", ")", "[", "]", ".", "*", "x",
]  # fmt: skip
_token_lists = st.lists(st.sampled_from(TOKENS), min_size=1, max_size=6).map("".join)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prefix=_token_lists, unit=_token_lists, suffix=_token_lists)
def test_generated_families_are_read_in_linear_time(prefix, unit, suffix):
    """``prefix + unit * k + suffix`` from the rules' own tokens, at n and 4n up to the cap."""
    ratio = growth(_read, _filled(prefix, unit, suffix), RESPONSE_CAP // 4)
    assert ratio <= LINEAR_BOUND, f"{prefix!r} + {unit!r} * k + {suffix!r}: 4x the text took {ratio:.1f}x the time"


def _reading(text: str, options: list[str] | None) -> tuple[str | None, bool]:
    reading = read_response(text, "ABCD", options)
    return reading.letter, reading.strict


def _old_reading(text: str, options: list[str] | None) -> tuple[str | None, bool]:
    reading = answers_1_4.read_response(text, "ABCD", options)
    return reading.letter, reading.strict


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=24).map("".join), st.booleans())
def test_the_linear_reader_reads_as_the_backtracking_one_did(text, with_options):
    assert _reading(text, OPTIONS if with_options else None) == _old_reading(text, OPTIONS if with_options else None)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(TOKENS), max_size=6).map("".join),
    st.sampled_from([" ", "\n", " \t", "\u3000", "\xa0"]),
    st.integers(0, 40),
    st.lists(st.sampled_from(TOKENS), max_size=6).map("".join),
)
def test_long_whitespace_reads_as_it_did(head, space, count, tail):
    """Whitespace runs are where the patterns changed (possessive runs, a scanned markup)."""
    text = head + space * count + tail
    for options in (None, OPTIONS):
        assert _reading(text, options) == _old_reading(text, options)


MARKUP_CASES = [
    "<answer>B</answer>", "<answer> B </answer>", "<answer>\n(C)\n</answer> and <answer>C</answer>",
    "<answer><answer>B</answer>", "<answer>A</answer><answer>B</answer>", "<answer>B</answer", "</answer><answer>C",
    "\\boxed{<answer>B</answer>}", "<answer>\\boxed{B}</answer>", "<answer>\\boxed{B}</answer> \\boxed{C}",
    "\\boxed{\\text{ B }}", "\\boxed{\\textbf{C}} }", "\\boxed{ B } }", "\\boxed{B{", "\\boxed{\\text{B{",
    "\\boxed{ }", "\\boxed{\\text{}}", "\\boxed{B} \\boxed{B}", "\\boxed{B} <answer>C</answer>", "\\boxed{\u3000D\xa0}",
    "\\boxed{<answer>}<answer>C</answer>", "<answer>\\boxed{</answer>B}", "\\boxed{A</answer>}<answer>B</answer>",
]  # fmt: skip


@pytest.mark.parametrize("text", MARKUP_CASES)
def test_markup_reads_as_it_did(text):
    for options in (None, ["B", "<answer>B", "c", "d"]):
        assert _reading(text, options) == _old_reading(text, options)
