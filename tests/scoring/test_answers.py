"""The response extractor (scoring/answers.py rules 1-8) and how unparsed responses are scored."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scoring
from scoring.answers import Reading, _patterns, _stated, extract_answer, normalize_answer, read_response
from tests.support import answers_1_3
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
    from tests.support import demo

    lines = demo.kviscuit_submission(kviscuit_demo_records, 0.66, seed=204, as_response=0.15)
    result = scoring.score_file("kviscuit", kviscuit_demo_gold, write_lines(tmp_path / "sub.jsonl", lines))
    assert result.counts["unparsed"] == 0
    assert result.overall["correct"] == round(0.66 * 657)


# ---- scorer 1.4: what real models print (as-users.md #5, model-and-harness-formats.md) ----

REAL_OUTPUTS = {
    # rule 1: a named option alone, markdown emphasis (Qwen2.5-VL's "Image C": 19 % of one file)
    "Qwen 'Image C'": ("Image C", "C", None),
    "Qwen 'Image C.'": ("Image C.", "C", None),
    "Picture C": ("Picture C", "C", None),
    "Option C.": ("Option C.", "C", None),
    "Gemini **C**": ("**C**", "C", None),
    "bold with dot": ("**B.**", "B", None),
    # rule 3: answer markup (R1-style tags, math-style boxes)
    "answer tag": ("<answer>C</answer>", "C", None),
    "answer tag after reasoning": ("The drum is a kendang, so the match is shown in C.\n<answer>C</answer>", "C", None),
    "boxed": ("The final answer is $\\boxed{C}$", "C", None),
    "boxed text": ("\\boxed{\\text{B}}", "B", None),
    "think then answer": ("<think>Image A shows a drum... maybe A? No, B.</think>\nAnswer: B", "B", None),
    # rule 4: statements in any case, "is:", the letter first
    "ANSWER: C": ("ANSWER: C", "C", None),
    "Answer: (C)": ("Answer: (C)", "C", None),
    "answer is: bold": ("The answer is: **C. The third image**", "C", None),
    "C is correct.": ("C is correct.", "C", None),
    "Based on the images, C is correct.": ("Based on the images, C is correct.", "C", None),
    "GPT image B best match": ("I believe image B is the best match for a Thai wedding.", "B", None),
    "Gemini **Answer: B**": ("**Answer: B**\n\nThe second image shows the sampeah greeting.", "B", None),
    "GPT (B) because": ("The answer is (B) because the costume is Khmer.", "B", None),
    "정답: C": ("정답: C", "C", None),
    # rule 5: a letter on its own line, then an explanation (24 of 657 K-Viscuit lines)
    "C then explanation": ("C\n\nExplanation: the image shows a hanbok worn at a wedding.", "C", None),
    "A then explanation crlf": ("A\r\nExplanation: Bungeo-ppang is fish-shaped.", "A", None),
    "K-Viscuit B. text": ("B. Hwangnam-ppang", "B", None),
    # rule 7: ordinal words for image options
    "the third image": ("The third image.", "C", None),
    "Third image": ("Third image", "C", None),
    "answer is the second picture": ("The first image is a drum; the answer is the second picture.", "B", None),
    "fourth option (text options)": ("I would say the fourth option.", "D", ["a", "b", "c", "d"]),
    # rule 8: a closing "is C." / "It's C."
    "closing is C": ("The image that shows the dance is C.", "C", None),
    "It's C.": ("It's C.", "C", None),
    # rule 2, unchanged: the exact text of one option (K-Viscuit)
    "option text": ("Dakjuk", "C", ["Bungeo-ppang", "Hwangnam-ppang", "Dakjuk", "Ice cream"]),
}

STILL_UNREAD = {
    "two tags disagree": ("<answer>B</answer> ... <answer>C</answer>", None),
    "two boxes disagree": ("\\boxed{A} or \\boxed{D}", None),
    "two ordinals": ("The first image or the third image, hard to say.", None),
    "two letter-first statements": ("A is correct. No wait, C is correct.", None),
    "image ordinal on text options": ("In the first image a man holds a drum.", ["x", "y", "z", "w"]),
    "refusal": ("I'm not able to determine which image shows the ceremony.", None),
    "article A": ("A man is dancing.\nIt is a festival.", None),
    "named option then words": ("Image C could be it but so could image D", None),
    "It's a": ("It's a drum.", None),
    "tag with no letter": ("<answer>a lion dance</answer>", None),
}


@pytest.mark.parametrize(("text", "letter", "options"), list(REAL_OUTPUTS.values()), ids=list(REAL_OUTPUTS))
def test_real_model_outputs_are_read_leniently(text, letter, options):
    reading = read_response(text, "ABCD", options)
    assert (reading.letter, reading.strict) == (letter, False)


@pytest.mark.parametrize(("text", "options"), list(STILL_UNREAD.values()), ids=list(STILL_UNREAD))
def test_two_letters_by_one_rule_or_no_statement_stay_unparsed(text, options):
    assert read_response(text, "ABCD", options).letter is None


def test_only_an_exact_capital_letter_is_strict():
    assert read_response(" C\n", "ABCD") == Reading("C", strict=True)
    assert [read_response(t, "ABCD").strict for t in ("c", "C.", "**C**", "Image C", "(C)")] == [False] * 5


def test_ordinals_stop_at_the_declared_choices():
    assert extract_answer("The fourth image", "ABC") is None
    assert extract_answer("The third image", "ABC") == "C"


def test_the_first_matching_rule_wins():
    """A tag (rule 3) beats a statement (rule 4), a statement beats a leading letter (rule 5),
    which beats one bracketed letter (rule 6), which beats an ordinal (rule 7), which beats a
    closing "is C" (rule 8)."""
    assert extract_answer("Answer: B\n<answer>C</answer>", "ABCD") == "C"
    assert extract_answer("A) looks close, but C is correct", "ABCD") == "C"
    assert extract_answer("D\nThe third image is close too", "ABCD") == "D"
    assert extract_answer("The second image, not (A)", "ABCD") == "A"
    assert extract_answer("The second image, which is D.", "ABCD") == "B"


# Texts 1.3 read (each rule of its docstring and the tests above, and what the demo writes):
# 1.4 must read them the same.
OLD_CORPUS = [
    *(text for text, _ in RULE_CASES.values()), *UNPARSED_CASES.values(),
    "The answer is (A).", "The answer is (D).", "After looking closely, the answer is (A).", "Answer: D",
    "The correct option is C.", "I would choose image C.", "C: the dance", "Final Answer: C", "**Answer:** C",
    "(C) Image C", "I'd go with option D", "I pick (c)", "Image C shows it.", "Option D is the answer",
    "Option B is wrong", "정답은 (d)입니다.", "이미지를 보면 정답은 A입니다.", "(A) and (B) are wrong; answer: D",
    "The answer is a lion dance.", "Answer: B. So the final answer is B.", "It could be (A) or (B).",
    "hmm, (A) or (B) or (C)", "Option B is wrong; option D is the answer.", "[B] Both are drums",
]  # fmt: skip


@pytest.mark.parametrize("text", OLD_CORPUS)
def test_every_text_the_old_reader_read_reads_the_same(text):
    old = answers_1_3.read_response(text, "ABCD")
    if old.letter is not None:
        assert read_response(text, "ABCD") == Reading(old.letter, old.strict)


def _old_stated(text: str) -> set[str]:
    unstarred = text.replace("*", "")
    return {"".join(m).upper() for rule in answers_1_3._patterns("ABCD").stated for m in rule.findall(unstarred)}


@settings(max_examples=600, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["A", "B", "C", "d", "(B)", "[c]", "D.", "C)", "Answer", "answer:", "is", "is:", "the", "image", "Option",
             "correct", "I choose", "정답은", "**", "\n", "B\n", "first", "third", "picture", "because", "It's",
             ".", ":", "right", "shows", "ANSWER"]
        ),
        max_size=12,
    ).map(" ".join)
)  # fmt: skip
def test_old_readings_survive_on_generated_texts(text):
    """Generated from the rules' own words: where 1.3 read a letter, 1.4 reads the same one,
    unless a 1.4 rule that comes first reads the text (scoring/answers.py): a statement 1.3 did
    not see ("ANSWER: C", "is: C", "C is correct"; naming another letter, or two), or a letter
    alone on the first line ("B\\n... (C)": the explanation's bracketed letter was read before)."""
    old = answers_1_3.read_response(text, "ABCD").letter
    new = read_response(text, "ABCD").letter
    if old is None or new == old:
        return
    rules, unstarred = _patterns("ABCD"), text.replace("*", "")
    new_statement = _stated(text, unstarred, rules, "ABCD", None) is not None and (
        not _old_stated(text) or _stated(text, unstarred, rules, "ABCD", None) == ""
    )
    first_line = rules.leading[1].match(unstarred) is not None and new == rules.leading[1].match(unstarred).group(1)
    assert new_statement or first_line
