"""The README's example plugin on every surface (issue 31): the app started with
``LEADERBOARD_PLUGINS=tests.toy_benchmark`` answers every link it offers for the toy benchmark
(board, question browser, Submit's guide, About, the question list, the VLMEvalKit TSV, the
example submission) without a server error. Before, ``GET /questions/toy.tsv`` answered 500
(``KeyError: 'question'``: the TSV treated any benchmark that is not SCB as K-Viscuit)."""

from __future__ import annotations

import importlib
import json
import re
import urllib.error
import urllib.parse
import urllib.request

import pytest

from leaderboard import demo
from scoring.benchmarks import BENCHMARKS, register, unregister
from tests.ui.conftest import start_app
from ui import display
from ui.about import about_markdown
from ui.submit import guide_markdown

HREF = re.compile(r'(?:href|src)="([^"]+)"')
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.fixture(scope="module")
def toy():
    """The plugin in this process too (for the guide's and About's links), removed afterwards."""
    fresh = "toy" not in BENCHMARKS
    module = importlib.import_module("tests.toy_benchmark")
    register(module.TOY)
    demo.register(module.DEMO)
    yield module
    if fresh:
        unregister("toy")
        demo.unregister("toy")


@pytest.fixture(scope="module")
def app(tmp_path_factory, toy):
    server = start_app(tmp_path_factory, "plugin-links", LEADERBOARD_PLUGINS="tests.toy_benchmark")
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


def offered(app) -> list[str]:
    """Every site link the board, the question browser, Submit's guide and About give."""
    links = HREF.findall(fetch(app.url)[1].decode())
    links += HREF.findall(fetch(urllib.parse.urljoin(app.url, "questions?bench=toy"))[1].decode())
    links += MARKDOWN_LINK.findall(guide_markdown("toy")) + MARKDOWN_LINK.findall(about_markdown())
    return local(links)


def test_every_link_offered_for_the_plugin_answers_without_a_server_error(app, toy):
    links = offered(app)
    assert "questions/toy.jsonl" in links, links  # the board offers the toy's inputs
    answers = {link: fetch(urllib.parse.urljoin(app.url, link))[0] for link in links}
    assert {link: status for link, status in answers.items() if status >= 500} == {}
    assert all(status < 400 for status in answers.values()), answers  # a link offered is a link that works


def test_the_toys_question_list_tsv_and_example_submission(app, toy):
    status, body = fetch(urllib.parse.urljoin(app.url, "questions/toy.jsonl"))
    assert status == 200
    listed = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
    assert [q["id"] for q in listed] == [q["id"] for q in toy.toy_gold()]
    tsv_status, tsv = fetch(urllib.parse.urljoin(app.url, "questions/toy.tsv"))
    assert tsv_status < 500, tsv[:300]
    example = [json.loads(line) for line in display.example_submission(toy.TOY, body).decode().splitlines()]
    assert [line["id"] for line in example] == [q["id"] for q in listed]


def test_submit_and_about_offer_the_plugin_only_what_its_declaration_gives(toy):
    """The toy declares no family: its list, no TSV and no runner command (neither would work for it)."""
    guide = guide_markdown("toy")
    assert "questions/toy.jsonl" in guide and "toy.tsv" not in guide and "python -m runner" not in guide
    about = about_markdown()
    assert "questions/toy.jsonl" in about and "questions/toy.tsv" not in about
    assert "questions/kviscuit.tsv" in about and "`python -m runner kviscuit`" in about
    assert "(multiple choice: options A-D as text, about one image)" in about
