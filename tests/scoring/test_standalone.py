"""The scoring library installs alone (``pip install ./scoring``: numpy, pycocotools, orjson; no
Gradio, pandas or Hub client) into a fresh virtual environment and validates a file there."""

from __future__ import annotations

import json
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def standalone(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("standalone")
    source = root / "src"
    shutil.copytree(REPO / "scoring", source / "scoring", ignore=shutil.ignore_patterns("__pycache__", "build"))
    env = root / "venv"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "--quiet", str(source / "scoring")], check=True, timeout=600)
    return python


def test_it_brings_only_its_three_dependencies(standalone):
    names = subprocess.run(
        [standalone, "-m", "pip", "list", "--format", "json"], capture_output=True, text=True, check=True
    ).stdout
    installed = {p["name"].lower() for p in json.loads(names)} - {"pip", "setuptools", "wheel"}
    assert installed == {"cultural-vlm-scoring", "numpy", "pycocotools", "orjson"}


def test_it_validates_a_file_against_a_public_list(standalone, tmp_path):
    questions = tmp_path / "questions.jsonl"
    options = [{"image_id": f"img-{k}", "width": 640, "height": 480, "url": f"images/img-{k}.jpg"} for k in range(4)]
    questions.write_text(
        "".join(
            json.dumps(
                {"question_id": f"scb-{i:05d}", "type": 1, "country": "Vietnam", "category": "game", "options": options}
            )
            + "\n"
            for i in range(3)
        )
    )
    good = tmp_path / "good.jsonl"
    good.write_text(
        "".join(
            json.dumps({"question_id": f"scb-{i:05d}", "answer": "B", "bbox": [1, 2, 30, 40]}) + "\n" for i in range(3)
        )
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"question_id": "scb-00009", "answer": "B"}) + "\n")
    base = [standalone, "-m", "scoring", "validate", "--benchmark", "scb", "--questions", str(questions)]
    ok = subprocess.run([*base, "--predictions", str(good)], capture_output=True, text=True, cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    refused = subprocess.run([*base, "--predictions", str(bad)], capture_output=True, text=True, cwd=tmp_path)
    assert refused.returncode == 2 and "unknown question_id" in refused.stdout + refused.stderr
    no_app = subprocess.run([standalone, "-c", "import gradio"], capture_output=True, cwd=tmp_path)
    assert no_app.returncode != 0
