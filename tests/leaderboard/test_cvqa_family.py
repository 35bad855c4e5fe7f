"""A CVQA-like benchmark is one short declaration (issue 31): multiple choice with five options, its
own field names (``prompt``, ``choices``, ``img``, ``lang``) and key (``qid``), declared in
:data:`CVQA` below through the multiple-choice family, reaches the board, the runner's requests,
the VLMEvalKit TSV and the lmms-eval task's hooks without a production edit.

Hand-counted: 10 questions, answer letter ``ABCDE[i % 5]``; the runner's model answers the first 7
right, so the board shows 70.0: 4 of 5 right in Spain (even i), 3 of 5 in Peru (odd i)."""

from __future__ import annotations

import csv
import io
import json
from argparse import Namespace
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from scoring.benchmarks import BENCHMARKS, Benchmark, Grouping, register, unregister
from scoring.benchmarks.base import ACCURACY
from scoring.benchmarks.families import MultipleChoice
from scoring.benchmarks.tsv import vlmevalkit_tsv
from scoring.gold import Gold, content_version, group_codes, read_records
from scoring.harness.lmms_eval.hooks import ChoiceTask, aggregate_accuracy
from scoring.harness.runner.cli import questions_and_answer, runnable
from scoring.harness.runner.images import Images
from scoring.harness.runner.run import run
from submissions.records import Identity, Status, SubmissionForm
from submissions.request import SubmitRequest
from tests.support import demo

LETTERS = "ABCDE"
COUNTRIES = ("Spain", "Peru")
PUBLIC = ("qid", "prompt", "choices", "img", "country", "lang")


def load_gold(path: Path) -> Gold:
    rows = read_records(path)
    return Gold(
        benchmark="cvqa",
        version=content_version(rows),
        keys=[r["qid"] for r in rows],
        answers=np.array([LETTERS.index(r["answer"]) for r in rows], dtype=np.int8),
        groups={"country": group_codes([r["country"] for r in rows], list(COUNTRIES))},
    )


CVQA = Benchmark(
    id="cvqa",
    name="CVQA-like",
    description="10 five-way questions.",
    paper="A test declaration",
    key_field="qid",
    prediction_fields={"qid": "the question's id", "answer": "A-E"},
    choices=LETTERS,
    groupings=(Grouping("country", "Country", COUNTRIES),),
    metrics=(ACCURACY,),
    primary_metric="acc",
    load_gold=load_gold,
    parse_key=lambda v: v if isinstance(v, str) and v else None,
    read_line=lambda line, gold, row, box_format, letter=None: None,
    public_questions=lambda path: [{k: r[k] for k in PUBLIC} for r in read_records(path)],
    family=MultipleChoice(question="prompt", options="choices", image=("img",), category="country", subcategory="lang"),
)


def gold_rows() -> list[dict]:
    return [
        {
            "qid": f"q{i}",
            "prompt": f"What is shown in q{i}?",
            "choices": [f"opt{i}{c}" for c in "abcde"],
            "img": f"photos/q{i}.jpg",
            "country": COUNTRIES[i % 2],
            "lang": "es",
            "answer": LETTERS[i % 5],
        }
        for i in range(10)
    ]


@pytest.fixture
def cvqa():
    register(CVQA)
    yield CVQA
    unregister("cvqa")
    assert "cvqa" not in BENCHMARKS


@pytest.fixture
def board(cvqa, tmp_path: Path) -> Leaderboard:
    lb = Leaderboard(Settings(data_dir=tmp_path / "data", demo=False))
    lb.corrections.add_gold("cvqa", demo.write_jsonl(tmp_path / "gold.jsonl", gold_rows()), "maintainer")
    return lb


def model(messages: list[dict]) -> str:
    """Right on q0-q6, the next letter on the rest; the question is read back from the prompt."""
    text = "".join(p["text"] for m in messages for p in m["content"] if p["type"] == "text")
    i = int(text.split("q", 1)[1].split("?", 1)[0])
    right = LETTERS[i % 5]
    return right if i < 7 else LETTERS[(i % 5 + 1) % 5]


def test_the_runners_requests_and_file_reach_the_board(board: Leaderboard, tmp_path: Path) -> None:
    assert "cvqa" in runnable()
    listed = tmp_path / "cvqa-questions.jsonl"
    listed.write_bytes(board.public_questions("cvqa"))
    assert "answer" not in listed.read_text()
    (tmp_path / "photos").mkdir()
    for i in range(10):
        (tmp_path / "photos" / f"q{i}.jpg").write_bytes(b"\xff\xd8jpeg" + bytes([i]))
    asked: list[list[dict]] = []

    def chat(messages: list[dict]) -> str:
        asked.append(messages)
        return model(messages)

    args = Namespace(questions=str(listed), grounding_format="plain")
    questions, answer = questions_and_answer(CVQA, args, chat, Images(str(tmp_path)))
    out = tmp_path / "predictions.jsonl"
    assert run(questions, answer, out, resume=False, concurrency=2, progress=False, key="qid").written == 10
    first = next(m for m in asked if "q0?" in m[0]["content"][1]["text"])[0]["content"]
    assert first[0]["type"] == "image_url" and first[0]["image_url"]["url"].startswith("data:")
    assert first[1]["text"] == (
        "What is shown in q0?\n    A. opt0a\n    B. opt0b\n    C. opt0c\n    D. opt0d\n    E. opt0e\n"
        "    Answer with the option's letter from the given choices directly."
    )
    lines = sorted((json.loads(x) for x in out.read_text().splitlines()), key=lambda r: r["qid"])
    assert set(lines[0]) == {"qid", "response"}
    form = SubmissionForm(model="Runner", team="lab", model_type="open")
    outcome = board.submissions.submit(
        SubmitRequest("cvqa", out, form, Identity("maintainer", is_maintainer=True, source="cli"), out.name)
    )
    assert outcome.status is Status.SCORED
    table = board.table("cvqa")
    assert list(table["model"]) == ["Runner"] and list(table["overall.acc"]) == pytest.approx([70.0])
    by_country = board.table("cvqa", "country")
    assert list(by_country["country.Spain.acc"]) == pytest.approx([80.0])  # q0 q2 q4 q6 right, q8 not
    assert list(by_country["country.Peru.acc"]) == pytest.approx([60.0])  # q1 q3 q5 right, q7 q9 not


def test_the_tsv_has_five_option_columns_from_the_declared_fields(board: Leaderboard) -> None:
    questions = [json.loads(x) for x in board.public_questions("cvqa").decode().splitlines()]
    rows = list(csv.DictReader(io.StringIO(vlmevalkit_tsv("cvqa", questions).decode()), delimiter="\t"))
    assert list(rows[0]) == ["index", "question", *LETTERS, "image_path", "category", "l2-category"]
    assert [rows[3][c] for c in ("index", "question", "E", "image_path", "category", "l2-category")] == [
        "3",
        "What is shown in q3?",
        "opt3e",
        "cvqa/images/q3.jpg",
        "Peru",
        "es",
    ]
    assert len(rows) == 10 and "answer" not in rows[0]


def test_the_lmms_eval_task_asks_and_reads_by_the_declaration(cvqa) -> None:
    task = ChoiceTask.of("cvqa")
    doc = {**gold_rows()[2], "answer": 2}
    assert task.doc_to_text(doc).splitlines() == [
        "What is shown in q2?",
        "    A. opt2a",
        "    B. opt2b",
        "    C. opt2c",
        "    D. opt2d",
        "    E. opt2e",
        "    Answer with the option's letter from the given choices directly.",
    ]
    assert task.doc_to_target(doc) == "C" and task.doc_to_target({**doc, "answer": "E"}) == "E"
    results = [task.process_results(doc, [g])["cvqa_acc"] for g in ("C", " C\n", "E", "c")]
    assert results[0] == {"pred": "C", "answer": "C", "category": "Spain"}
    assert aggregate_accuracy(results) == 50.0  # the exact-letter rule: "C" and " C\n" count, "E" and "c" do not


def test_vlmevalkit_runs_it_as_a_multiple_choice_benchmark(cvqa) -> None:
    from scoring.harness.vlmevalkit import prompts, run

    assert run.families()["cvqa"] == "multiple_choice" and run.families()["scb"] == "two_stage"
    assert run.parse(["cvqa", "--tsv", "cvqa.tsv", "--model", "m"]).two_stage is False
    message = prompts.multiple_choice("cvqa", "What is shown in q1?", [f"o{c}" for c in "abcde"], "q1.jpg")
    assert message[0] == {"type": "image", "value": "q1.jpg"}
    assert message[1]["value"].splitlines()[5:] == [
        "    E. oe",
        "    Answer with the option's letter from the given choices directly.",
    ]


def test_its_lmms_eval_samples_are_its_own_not_another_benchmarks(board: Leaderboard, tmp_path: Path) -> None:
    """The samples its lmms-eval task writes (the prompt ends with the multiple-choice instruction, as
    K-Viscuit's does) are read as its own: before, any such prompt counted as K-Viscuit's, and the file
    was refused as "of the kviscuit task"."""
    task = ChoiceTask.of("cvqa")
    rows = [json.loads(x) for x in board.public_questions("cvqa").decode().splitlines()]
    samples = [
        {"doc_id": i, "doc_hash": "74234e98", "input": task.doc_to_text(row), "filtered_resps": [LETTERS[i % 5]]}
        for i, row in enumerate(rows)
    ]
    path = tmp_path / "2026_samples_cvqa.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in samples))
    form = SubmissionForm(model="Harness", team="lab", model_type="open")
    outcome = board.submissions.submit(
        SubmitRequest("cvqa", path, form, Identity("maintainer", is_maintainer=True, source="cli"), path.name)
    )
    assert outcome.status is Status.SCORED, outcome
    assert list(board.table("cvqa")["overall.acc"]) == pytest.approx([100.0])


def test_the_family_demo_recipe_fills_its_board(tmp_path: Path) -> None:
    """Demo data is its gold and teams: the submissions are the multiple-choice family's recipe
    (the files the app seeds an empty store with, ``scoring.benchmarks.demo.write_files``)."""
    team = demo.DemoTeam("cvqa", "Demo-CVQA (synthetic)", "cvqa-a", 0.7, 3, "open")
    recipe = demo.DemoData(gold=lambda seed: gold_rows(), submission=demo.choice_submission, teams=(team,))
    register(replace(CVQA, demo=recipe))
    try:
        files = demo.write_files("cvqa", tmp_path / "demo")
        _check_demo_board(team, files, tmp_path)
    finally:
        unregister("cvqa")


def _check_demo_board(team, files, tmp_path: Path) -> None:
    lines = [json.loads(x) for x in files.submissions[team].read_text().splitlines()]
    assert [set(x) for x in lines] == [{"qid", "answer"}] * 10
    assert sum(x["answer"] == g["answer"] for x, g in zip(lines, gold_rows(), strict=True)) == 7
    lb = Leaderboard(Settings(data_dir=tmp_path / "data", demo=False))
    lb.corrections.add_gold("cvqa", files.gold, "maintainer")
    form = SubmissionForm(model=team.name, team="demo", model_type="open")
    path = files.submissions[team]
    maintainer = Identity("maintainer", is_maintainer=True, source="cli")
    assert lb.submissions.submit(SubmitRequest("cvqa", path, form, maintainer, path.name)).status is Status.SCORED
    assert list(lb.table("cvqa")["overall.acc"]) == pytest.approx([70.0])
