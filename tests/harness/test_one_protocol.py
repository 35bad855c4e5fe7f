"""One protocol (issue 28): the runner and the lmms-eval tasks send, for the same question, the same
parts in the same order, text byte for byte, as the benchmark's declaration (its family's protocol,
``scoring.benchmarks.protocol``) builds them: parts as ("text", str) / ("image", option index)."""

from __future__ import annotations

import json

import pytest

from scoring.benchmarks import get_benchmark
from scoring.benchmarks.protocol import GROUNDING_PRESETS, ImagePart, TextPart
from scoring.harness.lmms_eval.hooks import TwoStageTask
from scoring.harness.runner.images import Images
from scoring.harness.runner.questions import ChoiceQuestion, load
from scoring.harness.runner.run import choice_line, two_stage_line
from tests.harness.conftest import image_index, write_image
from tests.harness.test_lmms_eval_tasks import load as load_task

KV_DOC = {
    "question": "무엇을 하는 모습입니까?",
    "options": ["밥 짓기", "김치 담그기", "떡 치기", "차 마시기"],
    "answer": 1,
}


def _declared(bench: str, stage: str, *args) -> list[tuple[str, object]]:
    parts = get_benchmark(bench).protocol[stage](*args)
    return [("text", p.text) if isinstance(p, TextPart) else ("image", p.index) for p in parts]


def _runner_parts(messages: list[dict], image_ids: list[int]) -> list[tuple[str, object]]:
    """Chat content as parts; an image is named by its option index (found by the image it carries)."""
    return [
        ("text", p["text"]) if p["type"] == "text" else ("image", image_ids.index(image_index(p)))
        for m in messages
        for p in m["content"]
    ]


def _lmms_parts(messages: list[dict], images: list) -> list[tuple[str, object]]:
    """lmms-eval content (``{"type": "image", "url": PIL image}``) as parts, images by identity."""

    def index(image) -> int:
        return next(i for i, known in enumerate(images) if known is image)

    content = [p for m in messages for p in m["content"]]
    return [("text", p["text"]) if p["type"] == "text" else ("image", index(p["url"])) for p in content]


def runner_asked(bench_id: str, question, images, family: str = "plain") -> list[list[dict]]:
    """The messages the runner sends for one question (stage 1 answered "The answer is C.", read as C
    by the site's rule, which stage 2 must follow)."""
    bench, asked = get_benchmark(bench_id), []

    def chat(messages: list[dict]) -> str:
        asked.append(messages)
        return "The answer is C." if len(asked) == 1 else "[0.1, 0.1, 0.5, 0.5]"

    if bench.family.stages == ("answer",):
        choice_line(question, chat, Images(str(images)), bench)
    else:
        two_stage_line(question, chat, Images(str(images)), bench, bench.family.grounding_preset(family))
    return asked


@pytest.fixture
def scb_paths(scb_case, tmp_path, monkeypatch):
    """Question 0 of the SCB case through the runner and through the lmms-eval tasks."""
    _, questions, images, _ = scb_case
    question = load(str(questions), get_benchmark("scb"))[0]
    doc = json.loads(questions.read_text().splitlines()[0])
    ids = [int(o["image_id"][4:]) for o in doc["options"]]
    samples = tmp_path / "2026_samples_scb_stage1.jsonl"
    samples.write_text(json.dumps({"doc_id": 0, "filtered_resps": "The answer is C.", "doc_hash": "x"}) + "\n")
    for name, value in (("SCB_IMAGES", images), ("SCB_QUESTIONS", questions), ("SCB_STAGE1_SAMPLES", samples)):
        monkeypatch.setenv(name, str(value))
    return question, doc, ids, load_task("scb"), images


def test_kviscuit_sends_the_same_parts_through_every_path(tmp_path):
    from PIL import Image

    image = Image.new("RGB", (8, 8), (1, 2, 77))
    write_image(tmp_path / "0.jpg", 7, 800, 800)
    declared = _declared("kviscuit", "answer", KV_DOC["question"], KV_DOC["options"])
    question = ChoiceQuestion(0, KV_DOC["question"], tuple(KV_DOC["options"]), "0.jpg")
    task = load_task("kviscuit")
    lmms_messages = task.doc_to_messages({**KV_DOC, "image": image})
    lmms = [("text", p["text"]) if p["type"] == "text" else ("image", 0) for p in lmms_messages[0]["content"]]
    (runner_messages,) = runner_asked("kviscuit", question, tmp_path)
    runner = _runner_parts(runner_messages, [7])
    assert declared == runner == lmms
    assert declared[1][1].encode() == runner[1][1].encode() == lmms[1][1].encode() == task.doc_to_text(KV_DOC).encode()
    instruction = "Answer with the option's letter from the given choices directly."
    assert declared[1][1].endswith(f"    D. 차 마시기\n    {instruction}")


def test_scb_stage1_sends_the_same_parts_through_every_path(scb_paths, monkeypatch):
    question, doc, ids, task, images = scb_paths
    declared = _declared("scb", "stage1", doc["question"])
    runner = _runner_parts(runner_asked("scb", question, images)[0], ids)
    visuals = task.stage1_visual(doc)
    # the same PIL objects, so images are named by identity (the task's hooks are its family's)
    monkeypatch.setattr(TwoStageTask, "stage1_visual", lambda _self, _doc: visuals)
    lmms = _lmms_parts(task.stage1_messages(doc), visuals)
    assert declared == runner == lmms
    assert [kind for kind, _ in declared] == ["text", "image"] * 4 + ["text"]
    assert [v for kind, v in declared if kind == "image"] == [0, 1, 2, 3]


@pytest.mark.parametrize("family", sorted(GROUNDING_PRESETS))
def test_scb_stage2_sends_the_same_parts_through_every_path(scb_paths, family):
    """Both ground option C (what the site reads from "The answer is C.") with the family's convention."""
    question, doc, ids, task, images = scb_paths
    preset = GROUNDING_PRESETS[family]
    declared = _declared("scb", "stage2", doc["grounding_prompt"], family, 2)
    runner = _runner_parts(runner_asked("scb", question, images, family)[1], ids)
    lmms_messages = task.stage2_messages(doc, {"grounding_format": family})
    picked = lmms_messages[0]["content"][0]["url"]
    assert picked.getpixel((0, 0))[:2] == (ids[2] // 256, ids[2] % 256)  # option C's image
    lmms = [("text", p["text"]) if p["type"] == "text" else ("image", 2) for p in lmms_messages[0]["content"]]
    assert declared == runner == lmms
    assert declared[1][1] == f"Locate the artifact in the image. {preset.instruction}"
    assert task.stage2_text(doc, {"grounding_format": family}).encode() == declared[1][1].encode()


def test_a_part_is_text_or_an_image_index():
    assert get_benchmark("scb").protocol["stage2"]("Find it.", "plain", 3)[0] == ImagePart(3)
