"""One protocol through VLMEvalKit (issue 28): the leaderboard's VLMEvalKit datasets (``vlmevalkit/``)
send, for the same question, the runner's parts in the runner's order, text byte for byte. Checked
twice: the datasets' message builder here (no VLMEvalKit needed), and ``build_prompt`` as VLMEvalKit's
own dataset machinery ran it on the site's TSV (``prompts.json``, written with the fixtures by
scripts/harness-fixtures/vlmevalkit.sh), images named by their file names."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from leaderboard import demo
from runner import protocol as runner_protocol
from runner.questions import load_kviscuit, load_scb
from scoring.answers import read_response
from scoring.benchmarks import get_benchmark
from scoring.protocol import GROUNDING_PRESETS, LETTERS
from vlmevalkit import prompts

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
    return {"scb": load_scb(str(scb_path)), "kviscuit": load_kviscuit(str(kv_path)), "kv_rows": kviscuit}


def _named(ref: str) -> dict:
    return {"type": "image_url", "image_url": {"url": ref.rsplit("/", 1)[-1]}}


def runner_parts(messages: list[dict]) -> list[tuple[str, str]]:
    return [
        ("text", p["text"]) if p["type"] == "text" else ("image", p["image_url"]["url"])
        for m in messages
        for p in m["content"]
    ]


def vlmevalkit_parts(message: list[dict]) -> list[tuple[str, str]]:
    return [(m["type"], m["value"] if m["type"] == "text" else m["value"].rsplit("/", 1)[-1]) for m in message]


def runner_stage1(question) -> list[tuple[str, str]]:
    return runner_parts(runner_protocol.scb_stage1(question, [_named(o.ref) for o in question.options]))


def runner_stage2(question, stage1_answer: str, family: str) -> list[tuple[str, str]]:
    """The runner's stage 2 on the option the site reads from the stage-1 answer (A when none)."""
    letter = read_response(stage1_answer, LETTERS).letter or "A"
    image = _named(question.option(letter).ref)
    return runner_parts(runner_protocol.scb_stage2(question, image, GROUNDING_PRESETS[family]))


def runner_kviscuit(question) -> list[tuple[str, str]]:
    return runner_parts(runner_protocol.kviscuit(question, _named(question.image_ref)))


def test_the_builder_sends_the_runners_parts(questions):
    for question in questions["scb"]:
        paths = [f"/LMUData/images/SCB_LB/{o.ref.rsplit('/', 1)[-1]}" for o in question.options]
        assert vlmevalkit_parts(prompts.scb_stage1(question.question, paths)) == runner_stage1(question)
        for family in GROUNDING_PRESETS:
            for answer in ("The answer is C.", "B", "I cannot tell."):
                chosen = prompts.chosen_option(answer)
                message = prompts.scb_stage2(question.grounding_prompt, family, 0 if chosen is None else chosen, paths)
                assert vlmevalkit_parts(message) == runner_stage2(question, answer, family)
    for question, row in zip(questions["kviscuit"], questions["kv_rows"], strict=True):
        message = prompts.kviscuit(row["question"], row["options"], f"/x/{row['image_path']}")
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


def test_without_the_scoring_package_it_stops_saying_how(monkeypatch):
    """VLMEvalKit's environment has none of the leaderboard's packages: no silent fallback."""
    monkeypatch.setitem(sys.modules, "scoring.protocol", None)
    with pytest.raises(RuntimeError, match=r"pip install \./scoring"):
        prompts.scb_stage1("Which?", ["a", "b", "c", "d"])


def test_stage2_rows_carry_the_family_the_site_reads_them_in():
    from scoring.protocol import UnknownFamily

    assert prompts.grounding_columns("plain") == {"grounding_format": "plain", "bbox_format": "xyxy_norm"}
    assert prompts.grounding_columns("qwen2_5_vl") == {"grounding_format": "qwen2_5_vl"}
    with pytest.raises(UnknownFamily, match="known: .*gemini"):
        prompts.grounding_columns("qwen9")
