"""The response extractor (scoring/answers.py rules 1-4) and how unparsed responses are scored."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scoring
from scoring.answers import extract_answer, normalize_answer
from tests.support.scoring import write_lines

RULE_CASES = {
    # rule 1: the whole text is an answer as `answer` accepts it
    "bare letter": ("B", "B"),
    "lower case": ("d", "D"),
    "parenthesised": ("(b)", "B"),
    "bracketed": (" [C] ", "C"),
    "trailing dot": ("C.", "C"),
    "trailing paren": ("A)", "A"),
    # rule 2: an explicit statement
    "answer is (C)": ("The answer is (C).", "C"),
    "Answer: d": ("Answer: d", "D"),
    "final answer": ("Let me think. Final answer: B", "B"),
    "correct option": ("The correct option is A because it shows a drum.", "A"),
    "choice =": ("choice = [D]", "D"),
    "statement beats leading letter": ("A) looks close, but the answer is C", "C"),
    "statement beats brackets": ("(A) and (B) are wrong; answer: D", "D"),
    "two agreeing statements": ("Answer: B. So the final answer is B.", "B"),
    # rule 3: leading letter with . ) ] :
    "leading B)": ("B) a drum", "B"),
    "leading C.": ("C. The wedding dress", "C"),
    "leading a:": ("a: the first picture", "A"),
    "leading [D]": ("[D] because of the colours", "D"),
    # rule 4: exactly one distinct bracketed letter
    "one bracketed": ("I think (a)", "A"),
    "same bracketed twice": ("(C) is it; yes (c)", "C"),
}

UNPARSED_CASES = {
    "two statements disagree": "Answer: B. Final answer: C",
    "question back": "A or B?",
    "bare letter and space": "A man dances in the picture",
    "two bracketed letters": "Either (A) or (B)",
    "letter out of range": "The answer is E",
    "empty": "",
    "whitespace": "   ",
    "no letter": "I cannot tell from the images.",
    "bracketed E": "(E)",
    "word starting with a letter": "Dance",
}


@pytest.mark.parametrize(("text", "letter"), list(RULE_CASES.values()), ids=list(RULE_CASES))
def test_extractor_reads_a_letter(text, letter):
    assert extract_answer(text, "ABCD") == letter


@pytest.mark.parametrize("text", list(UNPARSED_CASES.values()), ids=list(UNPARSED_CASES))
def test_extractor_leaves_unreadable_text_unparsed(text):
    assert extract_answer(text, "ABCD") is None


def test_extractor_reads_only_strings():
    assert extract_answer(None, "ABCD") is None  # type: ignore[arg-type]
    assert extract_answer(3, "ABCD") is None  # type: ignore[arg-type]


def test_extractor_reads_only_the_first_10000_characters():
    assert extract_answer("x" * 10_000 + " The answer is B", "ABCD") is None
    assert extract_answer("The answer is B " + "x" * 20_000, "ABCD") == "B"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_extractor_is_deterministic_and_returns_a_letter_or_none(text):
    first = extract_answer(text, "ABCD")
    assert first in (None, "A", "B", "C", "D")
    assert all(extract_answer(text, "ABCD") == first for _ in range(3))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from("ABCDabcd"), st.sampled_from(["{}", "({})", "[{}]", "{}.", "{})", " {} ", "( {} )"]))
def test_anything_answer_accepts_is_read_the_same_from_response(letter, template):
    text = template.format(letter)
    assert normalize_answer(text, "ABCD") == letter.upper()
    assert extract_answer(text, "ABCD") == letter.upper()


@pytest.mark.parametrize(
    ("choices", "text", "letter"),
    [("ABC", "The answer is (C).", "C"), ("ABC", "The answer is (D).", None), ("ABC", "D", None),
     ("ABC", "d) a drum", None), ("ABCDE", "Answer: E", "E"), ("ABCDE", "(e)", "E")],
)  # fmt: skip
def test_only_the_declared_choices_count(choices, text, letter):
    assert extract_answer(text, choices) == letter
    assert normalize_answer(text, choices) == (letter if len(text) <= 3 else None)


def test_unparsed_responses_are_counted_and_scored_wrong(scb_square_gold, tmp_path):
    """q1 (gold A) stated right, q2 (gold B) unreadable, q3 (gold C) stated wrong; nothing
    guesses: an unreadable response is wrong even though a guess could have been right."""
    lines = [
        {"question_id": "q1", "response": "After looking closely, the answer is (A)."},
        {"question_id": "q2", "response": "It could be (A) or (B)."},
        {"question_id": "q3", "response": "Answer: D"},
    ]
    result = scoring.score_file("scb", scb_square_gold, write_lines(tmp_path / "sub.jsonl", lines))
    assert result.counts["unparsed"] == 1
    assert result.counts["submitted"] == 3
    assert result.overall["correct"] == 1
    assert [result.groups["type"][t]["correct"] for t in "123"] == [1, 0, 0]


def test_answer_wins_over_response(scb_square_gold, tmp_path):
    lines = [{"question_id": "q1", "answer": "A", "response": "The answer is (B)."}]
    result = scoring.score_file("scb", scb_square_gold, write_lines(tmp_path / "sub.jsonl", lines))
    assert (result.overall["correct"], result.counts["unparsed"]) == (1, 0)


def test_unparsed_scoring_is_deterministic(scb_square_gold, tmp_path):
    lines = [{"question_id": q, "response": "hmm, (A) or (B) or (C)"} for q in ("q1", "q2", "q3")]
    path = write_lines(tmp_path / "sub.jsonl", lines)
    results = [scoring.score_file("scb", scb_square_gold, path).to_dict() for _ in range(3)]
    assert results[0] == results[1] == results[2]
    assert results[0]["counts"]["unparsed"] == 3
    assert results[0]["overall"]["acc"] == 0.0


def test_demo_submission_with_responses_counts_no_unparsed(kviscuit_demo_records, kviscuit_demo_gold, tmp_path):
    from leaderboard import demo

    lines = demo.kviscuit_submission(kviscuit_demo_records, 0.66, seed=204, as_response=0.15)
    result = scoring.score_file("kviscuit", kviscuit_demo_gold, write_lines(tmp_path / "sub.jsonl", lines))
    assert result.counts["unparsed"] == 0
    assert result.overall["correct"] == round(0.66 * 657)
