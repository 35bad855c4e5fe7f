"""The shipped lmms-eval tasks' functions, without lmms-eval: prompts, images, and stage 2
grounding the image stage 1 chose (by ``doc_id``, the row of the public list)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import yaml

from runner.protocol import kviscuit_prompt
from runner.questions import KviscuitQuestion
from tests.runner.conftest import image_index

REPO = Path(__file__).resolve().parents[2]
TASKS = REPO / "lmms_eval_tasks"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"task_{name}", TASKS / name / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Tagged(yaml.SafeLoader):
    """Reads lmms-eval's ``!function`` tags as the names they point to."""


Tagged.add_constructor("!function", lambda loader, node: ("function", loader.construct_scalar(node)))


@pytest.mark.parametrize("path", sorted(TASKS.rglob("*.yaml")), ids=lambda p: p.name)
def test_every_function_a_task_names_exists(path):
    config = yaml.load(path.read_text(), Loader=Tagged)
    module = load(path.parent.name)
    named = [v[1] for v in config.values() if isinstance(v, tuple)]
    named += [m["aggregation"][1] for m in config.get("metric_list", []) if isinstance(m.get("aggregation"), tuple)]
    assert named
    for name in named:
        assert callable(getattr(module, name.split(".", 1)[1]))


def test_kviscuit_prompt_is_the_runners_and_run_vqas():
    kv = load("kviscuit")
    doc = {"question": "What is this?", "options": ["a", "b", "c", "d"], "answer": 2}
    text = kv.doc_to_text(doc)
    assert text == kviscuit_prompt(KviscuitQuestion(0, "What is this?", ("a", "b", "c", "d"), "0.jpg"))
    assert text.splitlines()[1:] == [
        "    A. a",
        "    B. b",
        "    C. c",
        "    D. d",
        "    Answer with the option's letter from the given choices directly.",
    ]
    assert kv.doc_to_target(doc) == "C"
    # the official rule: exactly one capital letter after strip
    results = [kv.process_results(doc, [g])["kviscuit_acc"] for g in ("C", " C\n", "c", "C.")]
    assert kv.aggregate_accuracy(results) == 50.0


def test_scb_stage2_grounds_the_image_stage1_chose(scb_case, tmp_path, monkeypatch):
    _, questions, images, gold = scb_case
    scb = load("scb")
    rows = [json.loads(x) for x in questions.read_text().splitlines()]
    monkeypatch.setenv("SCB_IMAGES", str(images))
    monkeypatch.setenv("SCB_QUESTIONS", str(questions))
    # stage 1: four labelled images in letter order
    messages = scb.stage1_messages(rows[0])
    kinds = [p["type"] for p in messages[0]["content"]]
    assert kinds == ["text", "image"] * 4 + ["text"]
    # v0.4+ samples (no doc): doc 0 answered "The answer is B.", doc 1 unparsed, doc 2 as "D"
    samples = tmp_path / "samples_scb_stage1.jsonl"
    samples.write_text(
        "\n".join(
            json.dumps({"doc_id": i, "filtered_resps": text, "doc_hash": "x"})
            for i, text in enumerate(["The answer is B.", "no idea", "D"])
        )
    )
    monkeypatch.setenv("SCB_STAGE1_SAMPLES", str(samples))
    scb.chosen_letters.cache_clear()
    scb._chosen_by_question.cache_clear()
    assert scb.chosen_letters(str(samples)) == {0: "B", 1: None, 2: "D"}
    picked = scb.stage2_visual(rows[0])[0]
    expected = int(rows[0]["options"][1]["image_id"][4:])
    import base64
    from io import BytesIO

    buffer = BytesIO()
    picked.save(buffer, format="PNG")
    part = {"image_url": {"url": "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()}}
    assert image_index(part) == expected
    assert scb.stage2_text(rows[0]) == "Locate the artifact in the image."


def test_stage2_without_stage1_says_what_it_needs(monkeypatch, scb_case):
    _, questions, _, _ = scb_case
    scb = load("scb")
    monkeypatch.delenv("SCB_STAGE1_SAMPLES", raising=False)
    row = json.loads(questions.read_text().splitlines()[0])
    with pytest.raises(RuntimeError, match="SCB_STAGE1_SAMPLES"):
        scb.stage2_visual(row)
