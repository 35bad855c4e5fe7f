"""One protocol through VLMEvalKit (issue 28): the leaderboard's VLMEvalKit datasets
(``scoring.harness.vlmevalkit``) send, for the same question, the runner's parts in the runner's order,
text byte for byte. Checked
twice: the datasets' message builder here (no VLMEvalKit needed), and ``build_prompt`` as VLMEvalKit's
own dataset machinery ran it on the site's TSV (``prompts.json``, written with the fixtures by
scripts/harness-fixtures/vlmevalkit.sh), images named by their file names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.benchmarks import get_benchmark
from scoring.benchmarks.protocol import GROUNDING_PRESETS
from scoring.harness.runner.images import Images
from scoring.harness.runner.questions import load
from scoring.harness.runner.run import choice_line, two_stage_line
from scoring.harness.vlmevalkit import prompts
from tests.support import demo

FIXTURES = Path(__file__).parents[1] / "fixtures" / "harness" / "vlmevalkit-0.0.20"


@pytest.fixture(scope="module")
def questions(tmp_path_factory):
    """The embedded default's first questions as the runner reads them, and as the public list has them."""
    folder = tmp_path_factory.mktemp("lists")
    scb = sorted(demo.scb_questions(demo.scb_gold(options=True)), key=lambda q: q["question_id"])[:3]
    kv_gold = demo.write_jsonl(folder / "kv_gold.jsonl", demo.kviscuit_gold())
    kviscuit = get_benchmark("kviscuit").public_questions(kv_gold)[:3]
    scb_path = demo.write_jsonl(folder / "scb.jsonl", scb)
    kv_path = demo.write_jsonl(folder / "kv.jsonl", kviscuit)
    scb_questions = load(str(scb_path), get_benchmark("scb"))
    return {"scb": scb_questions, "kviscuit": load(str(kv_path), get_benchmark("kviscuit")), "kv_rows": kviscuit}


def runner_asked(bench_id: str, question, stage1_answer: str = "B", family: str = "plain") -> list[list[dict]]:
    """The runner's messages for one question, its images at an address (sent as URLs, named by file)."""
    bench, asked = get_benchmark(bench_id), []

    def chat(messages: list[dict]) -> str:
        asked.append(messages)
        return stage1_answer if len(asked) == 1 else "[0.1, 0.1, 0.5, 0.5]"

    images = Images("http://images.invalid/x")
    if bench.family.stages == ("answer",):
        choice_line(question, chat, images, bench)
    else:
        two_stage_line(question, chat, images, bench, bench.family.grounding_preset(family))
    return asked


def runner_parts(messages: list[dict]) -> list[tuple[str, str]]:
    return [
        ("text", p["text"]) if p["type"] == "text" else ("image", p["image_url"]["url"].rsplit("/", 1)[-1])
        for m in messages
        for p in m["content"]
    ]


def vlmevalkit_parts(message: list[dict]) -> list[tuple[str, str]]:
    return [(m["type"], m["value"] if m["type"] == "text" else m["value"].rsplit("/", 1)[-1]) for m in message]


def runner_stage1(question) -> list[tuple[str, str]]:
    return runner_parts(runner_asked("scb", question)[0])


def runner_stage2(question, stage1_answer: str, family: str) -> list[tuple[str, str]]:
    """The runner's stage 2 on the option the site reads from the stage-1 answer; the runner asks no
    stage 2 when the answer names no letter, where VLMEvalKit's dataset grounds option A (the site
    ignores that grounding): compared as option A's."""
    asked = runner_asked("scb", question, stage1_answer if question_letter(stage1_answer) else "A", family)
    return runner_parts(asked[1])


def question_letter(answer: str) -> str | None:
    return get_benchmark("scb").family.chosen_letter(answer, "ABCD")


def runner_kviscuit(question) -> list[tuple[str, str]]:
    return runner_parts(runner_asked("kviscuit", question)[0])


def test_the_builder_sends_the_runners_parts(questions):
    for question in questions["scb"]:
        paths = [f"/LMUData/images/SCB_LB/{o.ref.rsplit('/', 1)[-1]}" for o in question.options]
        assert vlmevalkit_parts(prompts.stage1("scb", question.question, paths)) == runner_stage1(question)
        for family in GROUNDING_PRESETS:
            for answer in ("The answer is C.", "B", "I cannot tell."):
                chosen = prompts.chosen_option("scb", answer)
                chosen = 0 if chosen is None else chosen
                message = prompts.stage2("scb", question.grounding_prompt, family, chosen, {chosen: paths[chosen]})
                assert vlmevalkit_parts(message) == runner_stage2(question, answer, family)
    for question, row in zip(questions["kviscuit"], questions["kv_rows"], strict=True):
        message = prompts.multiple_choice("kviscuit", row["question"], row["options"], f"/x/{row['image_path']}")
        assert vlmevalkit_parts(message) == runner_kviscuit(question)


def test_vlmevalkit_built_the_runners_parts(questions):
    """build_prompt of the dataset classes, run by VLMEvalKit 0.0.20 itself on the site's TSV."""
    built = json.loads((FIXTURES / "prompts.json").read_text(encoding="utf-8"))
    for question, message in zip(questions["scb"], built["scb_stage1"], strict=True):
        assert vlmevalkit_parts(message) == runner_stage1(question)
        texts = [value for kind, value in vlmevalkit_parts(message) if kind == "text"]
        assert texts[:4] == ["Image A:", "Image B:", "Image C:", "Image D:"]
    for family, rows in built["scb_stage2"].items():
        for question, row in zip(questions["scb"], rows, strict=True):
            expected = runner_stage2(question, row["stage1_prediction"], family)
            assert vlmevalkit_parts(row["message"]) == expected
            assert [v for k, v in expected if k == "text"][-1].encode() == row["message"][-1]["value"].encode()
    for question, message in zip(questions["kviscuit"], built["kviscuit"], strict=True):
        assert vlmevalkit_parts(message) == runner_kviscuit(question)
    assert set(built["scb_stage2"]) == set(GROUNDING_PRESETS)


def test_stage2_rows_carry_the_family_the_site_reads_them_in():
    from scoring.benchmarks.protocol import UnknownFamily

    assert prompts.grounding_columns("scb", "plain") == {"grounding_format": "plain", "bbox_format": "xyxy_norm"}
    assert prompts.grounding_columns("scb", "qwen2_5_vl") == {"grounding_format": "qwen2_5_vl"}
    with pytest.raises(UnknownFamily, match="known: .*gemini"):
        prompts.grounding_columns("scb", "qwen9")
    with pytest.raises(ValueError, match="does not declare the two-stage family"):
        prompts.grounding_columns("kviscuit", "plain")
