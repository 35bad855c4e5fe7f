"""The lmms-eval tasks as ``python -m scoring.harness.lmms_eval tasks`` writes them, without lmms-eval:
every function a yaml names, prompts, images, and stage 2 grounding the image stage 1 chose (by
``doc_id``, the row of the public list), read as the site reads it; without the kit a task does not
load (no fallback to another rule)."""

from __future__ import annotations

import atexit
import importlib.util
import json
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

import scoring
from scoring.benchmarks import BENCHMARKS
from scoring.benchmarks.protocol import GROUNDING_PRESETS
from scoring.harness.lmms_eval.hooks import TwoStageTask
from scoring.harness.lmms_eval.tasks import main, write_tasks
from tests.harness.conftest import image_index

TASKS = Path(tempfile.mkdtemp(prefix="lmms-eval-tasks-"))
"""The shipped benchmarks' task folders, written once for this module (as a team writes them)."""
write_tasks(TASKS, [b for b in BENCHMARKS.values() if b.family is not None])
atexit.register(shutil.rmtree, TASKS, ignore_errors=True)


def load(name: str):
    """A task folder's ``utils.py`` as lmms-eval loads it (a file beside the yaml, by its path)."""
    spec = importlib.util.spec_from_file_location("utils", TASKS / name / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tasks_are_written_from_the_declarations(tmp_path, capsys):
    """One folder per benchmark with a family: the family's utils.py and templates as the package holds
    them, and its own few-line yaml files (``include:`` the family's template)."""
    assert main(["tasks", str(tmp_path)]) == 0
    written = {p.name for p in tmp_path.iterdir()}
    assert written == {b.id for b in BENCHMARKS.values() if b.family is not None}
    family = Path(scoring.__file__).parent / "harness" / "lmms_eval" / "multiple_choice" / "utils.py"
    assert (tmp_path / "kviscuit" / "utils.py").read_bytes() == family.read_bytes()
    kv = yaml.load((tmp_path / "kviscuit" / "kviscuit.yaml").read_text(), Loader=Tagged)
    assert kv["include"] == "_template_yaml" and kv["task"] == "kviscuit"
    assert kv["dataset_path"] == "ddehun/k-viscuit"  # its Hub dataset holds the questions, images and answers
    assert len((tmp_path / "kviscuit" / "kviscuit.yaml").read_text().splitlines()) <= 10
    assert main(["tasks", str(tmp_path), "nosuch"]) == 2 and "known:" in capsys.readouterr().err


class Tagged(yaml.SafeLoader):
    """Reads lmms-eval's ``!function`` tags as the names they point to."""


Tagged.add_constructor("!function", lambda loader, node: ("function", loader.construct_scalar(node)))


def config_of(path: Path) -> dict:
    """A task's configuration with its ``include`` files merged under it, as lmms-eval reads it."""
    config = yaml.load(path.read_text(), Loader=Tagged)
    included = config.pop("include", None)
    return {**config_of(path.parent / included), **config} if included else config


@pytest.mark.parametrize("path", sorted(TASKS.rglob("*.yaml")), ids=lambda p: p.name)
def test_every_function_a_task_names_exists(path):
    config = config_of(path)
    module = load(path.parent.name)
    named = [v[1] for v in config.values() if isinstance(v, tuple)]
    named += [m["aggregation"][1] for m in config.get("metric_list", []) if isinstance(m.get("aggregation"), tuple)]
    assert named
    for name in named:
        assert callable(getattr(module, name.split(".", 1)[1]))


def test_kviscuit_task_keeps_run_vqas_prompt_and_rule():
    kv = load("kviscuit")
    doc = {"question": "What is this?", "options": ["a", "b", "c", "d"], "answer": 2}
    assert kv.doc_to_text(doc).splitlines()[1:] == [
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


def test_every_grounding_family_has_its_stage2_variant():
    """The family's convention reaches lmms-eval by task variants (lmms_eval_specific_kwargs)."""
    for family in GROUNDING_PRESETS:
        config = config_of(TASKS / "scb" / f"scb_stage2_{family}.yaml")
        assert config["task"] == f"scb_stage2_{family}"
        assert config["lmms_eval_specific_kwargs"] == {"default": {"grounding_format": family}}
    plain = config_of(TASKS / "scb" / "scb_stage2.yaml")["lmms_eval_specific_kwargs"]
    assert plain["default"] == {"grounding_format": "plain"} and plain["qwen2_5_vl"]["grounding_format"] == "qwen2_5_vl"
    assert {v["grounding_format"] for v in plain.values()} <= set(GROUNDING_PRESETS)


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
    assert scb.chosen_letters(str(samples)) == {0: "B", 1: None, 2: "D"}
    picked = scb.stage2_visual(rows[0])[0]
    expected = int(rows[0]["options"][1]["image_id"][4:])
    import base64
    from io import BytesIO

    buffer = BytesIO()
    picked.save(buffer, format="PNG")
    part = {"image_url": {"url": "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()}}
    assert image_index(part) == expected
    # the family's convention comes with the grounding prompt (one protocol, issue 28); none named: a stop
    plain = GROUNDING_PRESETS["plain"].instruction
    assert scb.stage2_text(rows[0], {"grounding_format": "plain"}) == f"Locate the artifact in the image. {plain}"
    with pytest.raises(RuntimeError, match="scb_stage2_plain"):
        scb.stage2_text(rows[0])


def test_stage2_without_stage1_says_what_it_needs(monkeypatch, scb_case):
    _, questions, _, _ = scb_case
    scb = load("scb")
    monkeypatch.delenv("SCB_STAGE1_SAMPLES", raising=False)
    row = json.loads(questions.read_text().splitlines()[0])
    with pytest.raises(RuntimeError, match="SCB_STAGE1_SAMPLES"):
        scb.stage2_visual(row)


@pytest.mark.parametrize("task", ["kviscuit", "scb"])
def test_without_the_kit_a_task_does_not_load(task, monkeypatch):
    """lmms-eval's environment without ``pip install ./scoring[lmms-eval]``: the task's functions do
    not load at all (lmms-eval names the missing package), so no sample is ever asked by another rule
    (issue 28). A plain import, as inspect_evals' tasks do: no "install it or else" wrapper."""
    for name in [m for m in sys.modules if m == "scoring" or m.startswith("scoring.")]:
        monkeypatch.setitem(sys.modules, name, None)  # import of it fails, as in a bare environment
    with pytest.raises(ImportError, match="scoring"):
        load(task)


def test_stage2_grounds_for_every_question_the_image_the_site_reads_from_the_real_stage1_file(tmp_path, monkeypatch):
    """issue 28: on the stage-1 samples lmms-eval 0.7.3 wrote ("The answer is D."), the task chose option
    A's image for all 3,178 questions when it read with its own exact-letter rule; now it names, for every
    question, the letter the site reads (scoring.answers), so B, C and D come up as often as the toy says them."""
    from collections import Counter

    from scoring.answers import read_response
    from tests.support.harness_files import demo_gold_files, lmms_samples, written_name

    demo = demo_gold_files(str(tmp_path / "demo"))
    questions = tmp_path / "scb-questions.jsonl"
    rows = scoring.get_benchmark("scb").public_questions(demo["scb_gold"])
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows))
    stage1 = tmp_path / written_name("scb_stage1")
    stage1.write_bytes(lmms_samples("scb_stage1"))
    monkeypatch.setenv("SCB_QUESTIONS", str(questions))
    monkeypatch.setenv("SCB_STAGE1_SAMPLES", str(stage1))
    scb = load("scb")
    samples = [json.loads(x) for x in stage1.read_text().splitlines()]
    site = {s["doc_id"]: read_response(s["filtered_resps"], "ABCD").letter for s in samples}
    task = TwoStageTask.of(scb.BENCHMARK)  # what the shipped task binds (scb.stage2_visual shows one pick above)
    chosen = {k: "ABCD"[task.chosen(row)] for k, row in enumerate(rows)}
    assert chosen == site
    assert min(Counter(chosen.values()).values()) > len(rows) // 8  # every letter, not A for all


COLOURS = {"A": (200, 0, 0), "B": (0, 200, 0), "C": (0, 0, 200)}


@pytest.fixture
def three_way(tmp_path, monkeypatch):
    """A two-stage benchmark of its own declaration: three option images (A-C) under ``pictures``,
    its question in ``ask``, its grounding prompt in ``hint``, its own answer instruction and one
    grounding preset of its own; two questions, the option images one colour per letter."""
    from dataclasses import replace

    from scoring.benchmarks import register, unregister
    from scoring.benchmarks.families import TwoStage
    from scoring.benchmarks.protocol import GroundingPreset
    from scoring.benchmarks.scb.declaration import SCB

    boxy = GroundingPreset("boxy", "plain", "Answer as [x1, y1, x2, y2] in 0-1.", bbox_format="xyxy_norm")
    fields = {"question": "ask", "options": "pictures", "grounding_prompt": "hint"}
    family = TwoStage(**fields, instruction="Pick A, B or C.", grounding_presets={"boxy": boxy})
    bench = register(replace(SCB, id="sc3", choices="ABC", family=family, protocol={}))
    from PIL import Image

    rows = []
    for q in range(2):
        options = []
        for letter, colour in COLOURS.items():
            Image.new("RGB", (8, 8), colour).save(tmp_path / f"{letter}{q}.png")
            options.append({"url": f"release/{letter}{q}.png", "width": 8, "height": 8})
        rows.append({"question_id": f"s-{q}", "ask": f"Which shows kite {q}?", "pictures": options, "hint": "Find it."})
    questions = tmp_path / "sc3-questions.jsonl"
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setenv("SC3_IMAGES", str(tmp_path))
    monkeypatch.setenv("SC3_QUESTIONS", str(questions))
    yield bench, rows
    unregister(bench.id)


def test_a_two_stage_task_asks_what_its_benchmarks_declaration_says(three_way, tmp_path, monkeypatch):
    """TwoStageTask reads the declaration, not SCB's protocol by name: the letters, the family's fields
    and instruction, its grounding presets; stage 2 grounds the image stage 1 chose among its letters."""
    from scoring.benchmarks.protocol import UnknownFamily
    from scoring.harness.lmms_eval.hooks import TwoStageTask, aggregate_nothing

    _, rows = three_way
    task = TwoStageTask.of("sc3")
    stage1 = ["Image A:", "Image B:", "Image C:", "Which shows kite 0?", "Pick A, B or C."]
    assert task.stage1_text(rows[0]).splitlines() == stage1
    messages = task.stage1_messages(rows[0])
    assert [p["type"] for p in messages[0]["content"]] == ["text", "image"] * 3 + ["text"]
    images = [p["url"] for p in messages[0]["content"] if p["type"] == "image"]
    assert [im.getpixel((0, 0)) for im in images] == list(COLOURS.values())
    samples = tmp_path / "samples_sc3_stage1.jsonl"
    samples.write_text(
        "\n".join(json.dumps({"doc_id": i, "filtered_resps": [t]}) for i, t in enumerate(["The answer is C.", "D"]))
    )
    with pytest.raises(RuntimeError, match="sc3_stage2 needs SC3_STAGE1_SAMPLES"):
        task.stage2_visual(rows[0])
    monkeypatch.setenv("SC3_STAGE1_SAMPLES", str(samples))
    assert task.chosen_letters(str(samples)) == {0: "C", 1: None}  # D is no letter of this benchmark
    assert task.stage2_visual(rows[0])[0].getpixel((0, 0)) == COLOURS["C"]
    assert task.stage2_visual(rows[1])[0].getpixel((0, 0)) == COLOURS["A"]  # none named: option A's image
    assert task.stage2_text(rows[0], {"grounding_format": "boxy"}) == "Find it. Answer as [x1, y1, x2, y2] in 0-1."
    stage2 = task.stage2_messages(rows[0], {"grounding_format": "boxy"})[0]["content"]
    assert [p["type"] for p in stage2] == ["image", "text"] and stage2[0]["url"].getpixel((0, 0)) == COLOURS["C"]
    with pytest.raises(UnknownFamily, match="known: boxy"):
        task.stage2_text(rows[0], {"grounding_format": "plain"})  # SCB's preset, not this benchmark's
    with pytest.raises(RuntimeError, match="--tasks sc3_stage2_plain"):
        task.stage2_text(rows[0])
    assert task.process_results(rows[0], ["x"]) == {"sc3_bypass": 0.0} and aggregate_nothing([]) == 0.0
    with pytest.raises(RuntimeError, match="does not declare the two-stage family"):
        TwoStageTask.of("kviscuit")
