"""From a model to a scored row on one machine, as docs/harnesses.md "The runner" shows: the
app on the embedded default, the toy endpoint, the runner on both benchmarks reading the app's
own question lists and images, then both files submitted through the site's ``/submit``."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from gradio_client import Client, handle_file

from scoring.harness.runner.fake_endpoint import FakeOpenAI
from tests.support.app_server import AppServer

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    server = AppServer(tmp_path_factory.mktemp("e2e") / "data").start()
    yield server
    server.stop()


def run_runner(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scoring.harness.runner", *args, "--no-progress"],
        capture_output=True, text=True, cwd=REPO, timeout=900,
    )  # fmt: skip


def test_the_inputs_are_one_link_away(app):
    with urllib.request.urlopen(app.url + "/") as r:  # the board page links them (and Submit's guide does)
        board = r.read().decode()
    assert 'href="questions/scb.jsonl"' in board and 'href="questions/kviscuit.tsv"' in board
    with urllib.request.urlopen(app.url + "/questions/scb.jsonl") as r:
        first = json.loads(r.readline())
    assert {"question_id", "question", "grounding_prompt", "options"} <= first.keys()
    assert not {"answer", "segmentation", "image_id", "width", "height"} & first.keys()
    with urllib.request.urlopen(app.url + "/questions/scb/" + first["options"][0]["url"]) as r:
        assert r.headers["content-type"] == "image/png" and r.read(8) == b"\x89PNG\r\n\x1a\n"
    with urllib.request.urlopen(app.url + "/questions/scb.tsv") as r:
        assert r.readline().decode().startswith("index\tquestion\tA\tB\tC\tD\timage_path")


@pytest.mark.parametrize("benchmark", ["scb", "kviscuit"])
def test_the_runner_writes_a_file_the_site_scores(app, tmp_path, benchmark):
    out = tmp_path / f"{benchmark}.jsonl"
    images = f"{app.url}/questions/{benchmark}/images"  # one meaning for every benchmark and harness
    with FakeOpenAI() as model:
        done = run_runner(
            benchmark, "--questions", f"{app.url}/questions/{benchmark}.jsonl",
            "--images", images,
            "--inline-images", "--base-url", model.base_url, "--model", "toy", "--out", str(out),
            "--grounding-format", "gemini", "--concurrency", "16",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines and all("response" in x for x in lines)
    client = Client(app.url, verbose=False)
    answer = client.predict(
        benchmark=benchmark, file=handle_file(str(out)), model="Toy-VLM", team="Runner Lab", model_type="open",
        bbox_format="xyxy", paper_url="", code_url="", description="", visibility="public",
        grounding_format="gemini" if benchmark == "scb" else "", api_name="/submit",
    )  # fmt: skip
    assert answer["status"] == "scored", answer
    if benchmark == "scb":
        assert answer["result"]["counts"].get("grounding_unparsed", 0) == 0
        assert answer["result"]["overall"]["miou"] is not None
