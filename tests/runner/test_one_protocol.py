"""One protocol (issue 28): the runner and the shipped lmms-eval tasks send, for the same
question, the same parts in the same order, text byte for byte, as the benchmark's declaration
(``scoring.protocol``) builds them. A harness path is one entry of ``PATHS``: ``(question, stage,
family) -> the parts as ("text", str) / ("image", option index)``."""

from __future__ import annotations

import json

import pytest

from runner import protocol as runner_protocol
from runner.questions import KviscuitQuestion, load_scb
from scoring.benchmarks import get_benchmark
from scoring.benchmarks.lmms_eval import TwoStageTask
from scoring.protocol import GROUNDING_PRESETS, ImagePart, TextPart
from tests.runner.conftest import image_index
from tests.runner.test_lmms_eval_tasks import load

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


@pytest.fixture
def scb_paths(scb_case, tmp_path, monkeypatch):
    """Question 0 of the SCB case through the runner and through the lmms-eval tasks; stage 1
    answered "The answer is C." (read as C by the site's rule, which stage 2 must follow)."""
    _, questions, images, _ = scb_case
    question = load_scb(str(questions))[0]
    doc = json.loads(questions.read_text().splitlines()[0])
    ids = [int(o["image_id"][4:]) for o in doc["options"]]
    samples = tmp_path / "2026_samples_scb_stage1.jsonl"
    samples.write_text(json.dumps({"doc_id": 0, "filtered_resps": "The answer is C.", "doc_hash": "x"}) + "\n")
    for name, value in (("SCB_IMAGES", images), ("SCB_QUESTIONS", questions), ("SCB_STAGE1_SAMPLES", samples)):
        monkeypatch.setenv(name, str(value))
    task = load("scb")
    parts = {o.letter: {"type": "image_url", "image_url": {"url": _data_url(images / f"img-{i:05d}.png")}}
             for o, i in zip(question.options, ids)}  # fmt: skip
    return question, doc, ids, task, parts


def _data_url(path) -> str:
    import base64

    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


def test_kviscuit_sends_the_same_parts_through_every_path():
    from PIL import Image

    image = Image.new("RGB", (8, 8), (1, 2, 77))
    declared = _declared("kviscuit", "answer", KV_DOC["question"], KV_DOC["options"])
    question = KviscuitQuestion(0, KV_DOC["question"], tuple(KV_DOC["options"]), "0.jpg")
    task = load("kviscuit")
    lmms_messages = task.doc_to_messages({**KV_DOC, "image": image})
    lmms = [("text", p["text"]) if p["type"] == "text" else ("image", 0) for p in lmms_messages[0]["content"]]
    runner_messages = runner_protocol.kviscuit(question, {"type": "image_url", "image_url": {"url": "x"}})
    runner = [("text", p["text"]) if p["type"] == "text" else ("image", 0) for p in runner_messages[0]["content"]]
    assert declared == runner == lmms
    assert declared[1][1].encode() == runner[1][1].encode() == lmms[1][1].encode() == task.doc_to_text(KV_DOC).encode()
    instruction = "Answer with the option's letter from the given choices directly."
    assert declared[1][1].endswith(f"    D. 차 마시기\n    {instruction}")


def test_scb_stage1_sends_the_same_parts_through_every_path(scb_paths, monkeypatch):
    question, doc, ids, task, images = scb_paths
    declared = _declared("scb", "stage1", doc["question"])
    runner = _runner_parts(runner_protocol.scb_stage1(question, [images[letter] for letter in "ABCD"]), ids)
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
    runner = _runner_parts(runner_protocol.scb_stage2(question, images["C"], preset), ids)
    lmms_messages = task.stage2_messages(doc, {"grounding_format": family})
    picked = lmms_messages[0]["content"][0]["url"]
    assert picked.getpixel((0, 0))[:2] == (ids[2] // 256, ids[2] % 256)  # option C's image
    lmms = [("text", p["text"]) if p["type"] == "text" else ("image", 2) for p in lmms_messages[0]["content"]]
    assert declared == runner == lmms
    assert declared[1][1] == f"Locate the artifact in the image. {preset.instruction}"
    assert task.stage2_text(doc, {"grounding_format": family}).encode() == declared[1][1].encode()


def test_a_part_is_text_or_an_image_index():
    assert get_benchmark("scb").protocol["stage2"]("Find it.", "plain", 3)[0] == ImagePart(3)
