"""On any Gradio version but the pinned one, what leans on Gradio internals is switched off (with a
log line) and the app still works: the board page, a submission through gradio_client, the Gradio
page's tabs and their deep links. The other version is simulated by setting ``gradio.__version__``
before the app imports anything (a ``sitecustomize`` on the app's path)."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import urllib.request

import gradio as gr
import pytest

from tests.support import demo
from tests.support.app_server import ROOT
from tests.ui.conftest import start_app
from ui import gradio_pin, links

gradio_client = pytest.importorskip("gradio_client")
OTHER = "6.99.0"


def test_internals_are_allowed_only_on_the_pinned_version(monkeypatch, caplog):
    assert gr.__version__ == gradio_pin.PINNED_GRADIO  # the venv runs the pinned version
    assert gradio_pin.internals_allowed("x")
    monkeypatch.setattr(gr, "__version__", OTHER)
    monkeypatch.setattr(gradio_pin, "_warned", set())
    with caplog.at_level(logging.WARNING, logger="ui.gradio_pin"):
        assert not gradio_pin.internals_allowed("the thing") and not gradio_pin.internals_allowed("the thing")
    said = [r.getMessage() for r in caplog.records]
    assert said == [f"gradio {OTHER} is not the pinned 6.31.0: the thing is switched off"]  # once


@pytest.fixture(scope="module")
def other_gradio(tmp_path_factory):
    site = tmp_path_factory.mktemp("other-gradio")
    (site / "sitecustomize.py").write_text(f"import gradio\ngradio.__version__ = {OTHER!r}\n")
    path = os.pathsep.join([str(site), str(ROOT), os.environ.get("PYTHONPATH", "")])
    app = start_app(tmp_path_factory, "other-gradio-app", PYTHONPATH=path, LEADERBOARD_FEEDBACK="full")
    yield app
    app.stop()


def test_the_app_works_on_another_gradio_with_the_internals_off(other_gradio, browser, tmp_path):
    log = other_gradio.log_text()
    assert f"gradio {OTHER} is not the pinned 6.31.0: {links.TAB_SWITCH} is switched off" in log
    with urllib.request.urlopen(other_gradio.url + "/", timeout=30) as answer:  # the board page
        assert answer.status == 200 and b"Demo-Gemini-2.5-Pro (synthetic)" in answer.read()
    gold = demo.kviscuit_gold(0)
    path = demo.write_jsonl(tmp_path / "kv.jsonl", demo.kviscuit_submission(gold, 0.9, seed=5))
    answer = gradio_client.Client(other_gradio.url, verbose=False).predict(
        "kviscuit", gradio_client.handle_file(str(path)), "Pinless-VLM", "Pin team", "open", "xyxy", "", "", "",
        visibility="public", api_name="/submit",
    )  # fmt: skip
    assert answer["status"] == "scored" and answer["rank"] >= 1
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    try:
        page.set_default_timeout(60_000)
        page.goto(other_gradio.url + "/?tab=mine")  # an old link, redirected to the Gradio page
        page.get_by_role("tab", name="My submissions", selected=True).wait_for()
        page.get_by_role("tab", name="About").click()  # tabs work; the address does not follow (off)
        page.get_by_role("tab", name="About", selected=True).wait_for()
        assert re.search(r"/app\?tab=mine$", page.url)
        page.goto(other_gradio.url + "/?bench=kviscuit&q=pinless")
        page.wait_for_selector("#board-table .tabulator-row >> text=Pinless-VLM")  # re-baked with the new row
    finally:
        page.close()


def test_the_upload_gate_stands_where_gradio_serves_uploads():
    from fastapi import FastAPI

    from ui.uploads import UPLOAD_PATH

    with gr.Blocks() as page:
        gr.File()
    server = FastAPI()
    gr.mount_gradio_app(server, page, path="/")
    assert gradio_pin.serves(server, UPLOAD_PATH)  # else build_server logs that the gate guards nothing
    assert not gradio_pin.serves(server, "/gradio_api/uploads-moved")


def test_on_another_gradio_the_oauth_and_cors_patches_are_off_and_say_so(monkeypatch, caplog):
    import gradio.routes

    from leaderboard.config import UiSettings
    from ui import oauth, origin

    monkeypatch.setattr(gr, "__version__", OTHER)
    monkeypatch.setattr(gradio_pin, "_warned", set())
    before = gradio.routes.attach_oauth
    with caplog.at_level(logging.WARNING, logger="ui.gradio_pin"):
        oauth.use_real_oauth(UiSettings(oauth=True, on_space=True, session_secret="s" * 40))
        assert gradio.routes.attach_oauth is before  # on a Space: Gradio's own real routes
        with pytest.raises(RuntimeError, match="sign-in off a Space"):  # Gradio's own would be mocked
            oauth.use_real_oauth(UiSettings(oauth=True, session_secret="s" * 40))
        assert not origin.restrict_gradio_cors(origin.PublicOrigin.of(UiSettings(), 7860))
    said = " ".join(r.getMessage() for r in caplog.records)
    assert oauth.REAL_OAUTH in said and origin.CORS_PATCH in said


STUB_PARSES = """
import ast, json, sys
from importlib import metadata
parsed = []
real_parse = ast.parse
def counting_parse(source, *args, **kwargs):  # Gradio's stub writer parses each component's source file
    if isinstance(source, str) and "class " in source and "EVENTS" in source:
        parsed.append(1)
    return real_parse(source, *args, **kwargs)
ast.parse = counting_parse
version = sys.argv[2]
if version:  # the installed Gradio's metadata says another version
    real_version = metadata.version
    metadata.version = lambda name: version if name == "gradio" else real_version(name)
took = None
if sys.argv[1] == "skip":
    from ui.gradio_pin import skip_type_stubs
    took = skip_type_stubs()
    assert "gradio" not in sys.modules  # asking took no Gradio import
import gradio as gr
gr.Textbox(label="still a component")
print(json.dumps({"took": took, "parsed": len(parsed)}))
"""


def stub_parses(mode: str, version: str = "") -> dict:
    """Gradio imported in a fresh process: whether the skip took, and how many component sources were parsed."""
    done = subprocess.run(
        [sys.executable, "-c", STUB_PARSES, mode, version], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return {**json.loads(done.stdout.splitlines()[-1]), "log": done.stderr}


def test_gradio_loads_without_writing_type_stubs_once_they_are_skipped():
    """Gradio 6 parses each component class's source again as it loads, to write a .pyi beside it:
    about 1 s of CPU at each start of the app (perf/app_start.py). app.py skips that first."""
    skipped = stub_parses("skip")
    assert skipped["took"] is True and skipped["parsed"] == 0


def test_on_another_gradio_the_type_stubs_are_left_to_it_and_that_is_said():
    """Left to Gradio, it parses its ~80 component classes (the skip's counterpart: not vacuous)."""
    other = stub_parses("skip", OTHER)
    assert other["took"] is False and other["parsed"] >= 30
    assert f"gradio {OTHER} is not the pinned 6.31.0: {gradio_pin.STUB_WRITER} is switched off" in other["log"]


def test_the_app_skips_the_type_stubs_before_it_loads_gradio():
    source = (ROOT / "app.py").read_text()
    main = source[source.index("def main()") :]
    assert main.index("skip_type_stubs()") < main.index("from ui.app import")  # ui.app loads Gradio
