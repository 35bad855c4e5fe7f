"""The example third benchmark (``scoring/benchmarks/toy/``, loaded with
``LEADERBOARD_PLUGINS=scoring.benchmarks.toy``) through every surface a team or a maintainer meets,
against one app started with the plugin: the board page and every link it offers, Submit's form and
``/submit`` (gradio_client), the question list, the TSV and the images, the runner and the command it
prints next, ``python -m scoring validate|score`` with the public list or the gold, the lmms-eval task on
the public list (no answer in a document), the VLMEvalKit prompts, and Eval Results (no link for a
benchmark without a Hub dataset). The question browser and the model page are drawn by Chromium in
tests/ui/test_browser_board.py; Inspect AI, lmms-eval and VLMEvalKit themselves run it in
``make harness-fixtures``.

Hand-counted: the demo gold (seed 0) has 12 questions ``q00``-``q11``, Spain at even positions, Spanish
for the first six. The stand-in model answers ``q00``-``q08`` right and the rest wrong: 9 of 12 = 75.0,
Spain 5 of 6, Peru 4 of 6, Spanish 6 of 6, Quechua 3 of 6.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

import pytest
from gradio_client import Client, handle_file

from scoring.benchmarks.toy import demo as toy_demo
from scoring.benchmarks.toy.declaration import INSTRUCTION
from scoring.harness.lmms_eval.tasks import write_tasks
from scoring.harness.runner.cli import main as runner
from scoring.harness.runner.fake_endpoint import FakeOpenAI
from tests.support import toy as toy_plugin
from tests.support.app_server import ROOT
from tests.ui.conftest import start_app
from ui import display
from ui.about import about_markdown
from ui.submit import guide_markdown

HREF = re.compile(r'(?:href|src)="([^"]+)"')
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")
GOLD = toy_demo.toy_gold(0)  # what the app seeds
RIGHT = 9  # the stand-in model answers q00-q08 right


@pytest.fixture(scope="module")
def toy():
    """The plugin in this process too (Submit's guide, About, the lmms-eval hooks), removed afterwards."""
    with toy_plugin.registered() as bench:
        yield bench


@pytest.fixture(scope="module")
def app(tmp_path_factory, toy):
    server = start_app(tmp_path_factory, "toy-surfaces", LEADERBOARD_PLUGINS=toy_plugin.PLUGIN)
    yield server
    server.stop()


def fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def local(links: list[str]) -> list[str]:
    """The links that stay on the site (no scheme, no fragment-only), each once."""
    out = []
    for link in links:
        link = link.replace("&amp;", "&")
        if link.startswith(("#", "mailto:", "http://", "https://", "//", "data:")) or link in out:
            continue
        out.append(link)
    return out


def model(messages: list[dict]) -> str:
    """Right on q00-q08, the next letter on the rest; the question is read back from its prompt."""
    text = "".join(p["text"] for m in messages for p in m["content"] if p["type"] == "text")
    i = int(re.search(r"picture q(\d\d) show", text)[1])
    right = GOLD[i]["answer"]
    return right if i < RIGHT else "ABCD"[("ABCD".index(right) + 1) % 4]


def cli(*args: str, plugins: str = toy_plugin.PLUGIN) -> subprocess.CompletedProcess:
    env = {**os.environ, "LEADERBOARD_PLUGINS": plugins}
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_every_link_the_board_submit_and_about_offer_answers(app, toy):
    """Before, ``GET /questions/toy.tsv`` answered 500 and then 404 for the README's example plugin."""
    links = HREF.findall(fetch(app.url)[1].decode())
    links += HREF.findall(fetch(urllib.parse.urljoin(app.url, "questions?bench=toy"))[1].decode())
    links += MARKDOWN_LINK.findall(guide_markdown("toy")) + MARKDOWN_LINK.findall(about_markdown())
    links = local(links)
    assert {"questions/toy.jsonl", "questions/toy.tsv"} <= set(links), links
    answers = {link: fetch(urllib.parse.urljoin(app.url, link))[0] for link in links}
    assert {link: status for link, status in answers.items() if status >= 400} == {}
    about = about_markdown()
    assert "### Toy (example benchmark)" in about and toy.about in about and toy.citation in about


def test_the_question_list_tsv_and_images_are_its_own(app, toy):
    status, body = fetch(f"{app.url}/questions/toy.jsonl")
    assert status == 200
    listed = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
    assert listed == [{k: v for k, v in row.items() if k != "answer"} for row in GOLD]  # no answer
    example = [json.loads(line) for line in display.example_submission(toy, body).decode().splitlines()]
    assert [line["qid"] for line in example] == [q["qid"] for q in listed]
    status, tsv = fetch(f"{app.url}/questions/toy.tsv")
    rows = list(csv.DictReader(io.StringIO(tsv.decode()), delimiter="\t"))
    assert status == 200 and list(rows[7]) == [
        "index",
        "question",
        "A",
        "B",
        "C",
        "D",
        "image_path",
        "category",
        "l2-category",
    ]
    assert [rows[7][c] for c in ("index", "question", "D", "image_path", "category", "l2-category")] == [
        "7",
        "What does picture q07 show?",
        "thing D of q07",
        "toy/images/q07.png",  # beside the TSV's address: /questions/toy/images/q07.png
        "Peru",
        "Quechua",
    ]
    status, png = fetch(f"{app.url}/questions/toy/images/q07.png")
    assert status == 200 and png[:8] == b"\x89PNG\r\n\x1a\n" and png[16:24] == (320).to_bytes(4) + (240).to_bytes(4)


def test_submit_offers_it_and_the_eval_results_route_says_it_has_no_hub_dataset(app, toy):
    config = json.loads(fetch(f"{app.url}/config")[1])
    (picker,) = [c["props"] for c in config["components"] if c.get("props", {}).get("elem_id") == "sub-bench"]
    assert [toy.name, "toy"] in picker["choices"]
    guide = guide_markdown("toy")
    assert "`qid`" in guide and "questions/toy.jsonl" in guide and "questions/toy.tsv" in guide
    status, why = fetch(f"{app.url}/eval_results/toy/abc123.yaml")
    assert status == 404 and b"has no Hub dataset" in why


def test_the_runner_its_next_command_the_scoring_cli_and_submit(app, toy, tmp_path, monkeypatch, capsys):
    """The runner asks the toy's own prompt (its instruction, its field names), writes lines keyed by
    ``qid``, and prints the validator's command, which loads the plugin; the file scores as counted."""
    monkeypatch.setenv("LEADERBOARD_PLUGINS", toy_plugin.PLUGIN)
    out, questions = tmp_path / "toy.jsonl", f"{app.url}/questions/toy.jsonl"
    with FakeOpenAI(model) as fake:
        code = runner(
            ["toy", "--questions", questions, "--images", f"{app.url}/questions/toy/images", "--inline-images"]
            + ["--base-url", fake.base_url, "--model", "stand-in", "--out", str(out), "--no-progress"]
        )
    assert code == 0
    first = next(r["body"]["messages"][0]["content"] for r in fake.requests if "q00 show" in json.dumps(r["body"]))
    assert [p["type"] for p in first] == ["image_url", "text"] and first[0]["image_url"]["url"].startswith(
        "data:image/png"
    )
    assert first[1]["text"].splitlines() == [
        "What does picture q00 show?",
        *[f"    {c}. thing {c} of q00" for c in "ABCD"],
        f"    {INSTRUCTION}",
    ]
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted(line["qid"] for line in lines) == [q["qid"] for q in GOLD] and set(lines[0]) == {"qid", "response"}
    (next_line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("next: ")]
    public = tmp_path / "toy-questions.jsonl"
    public.write_bytes(fetch(questions)[1])
    command = next_line.removeprefix("next: python -m ").replace(questions, str(public)).split()
    valid = cli(*command)
    assert valid.returncode == 0 and "valid" in valid.stdout, valid.stderr
    assert cli(*command, plugins="").returncode == 2  # without the plugin it is no --benchmark choice
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(r) + "\n" for r in GOLD))
    scored = cli("scoring", "score", "--benchmark", "toy", "--gold", str(gold), "--predictions", str(out), "--json")
    result = json.loads(scored.stdout)
    assert result["overall"]["acc"] == 75.0 and result["country"]["Peru"]["acc"] == pytest.approx(400 / 6)
    assert result["language"]["Quechua"]["acc"] == 50.0
    answer = Client(app.url, verbose=False).predict(
        benchmark="toy", file=handle_file(str(out)), model="Stand-in", team="Runner Lab", model_type="open",
        bbox_format="xyxy", paper_url="", code_url="", description="", visibility="public", api_name="/submit",
    )  # fmt: skip
    assert answer["status"] == "scored", answer
    assert answer["result"]["overall"]["acc"] == 75.0 and answer["rank"] is not None


def test_the_lmms_eval_task_runs_on_the_public_list(app, toy, tmp_path, monkeypatch):
    """The task lmms-eval runs (``python -m scoring.harness.lmms_eval tasks``) on the public list, whose
    documents have no ``answer``: every hook answers, the target is empty (before: ``KeyError: 'answer'``
    on every logged sample), the image is found where ``TOY_IMAGES`` says (the site's address)."""
    import importlib.util

    (folder,) = write_tasks(tmp_path, [toy])
    assert (folder / "toy.yaml").read_text().count("toy-questions.jsonl") == 1
    spec = importlib.util.spec_from_file_location("utils", folder / "utils.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    monkeypatch.setenv("TOY_IMAGES", f"{app.url}/questions/toy/images")
    docs = [json.loads(line) for line in fetch(f"{app.url}/questions/toy.jsonl")[1].decode().splitlines()]
    (image,) = hooks.doc_to_visual(docs[3])
    assert image.size == (320, 240)
    assert hooks.doc_to_target(docs[3]) == ""
    assert hooks.doc_to_text(docs[3]).splitlines()[-1] == f"    {INSTRUCTION}"
    results = [hooks.process_results(doc, ["B"])["toy_acc"] for doc in docs]
    assert results[3] == {"pred": "B", "answer": "", "category": "Peru"}
    assert hooks.aggregate_accuracy(results) == 0.0  # the harness's own view: no answers to compare with


def test_vlmevalkit_asks_it_as_its_declaration_says(toy):
    from scoring.harness.vlmevalkit import prompts, run

    assert run.families()["toy"] == "multiple_choice"
    assert run.parse(["toy", "--tsv", "toy.tsv", "--model", "m"]).two_stage is False
    message = prompts.multiple_choice("toy", "What does picture q01 show?", ["a", "b", "c", "d"], "q01.png")
    assert message[0] == {"type": "image", "value": "q01.png"}
    assert message[1]["value"].splitlines()[-1] == f"    {INSTRUCTION}"
