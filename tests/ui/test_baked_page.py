"""The real app serves its boards inside the page (:mod:`ui.baked`, :mod:`ui.page_cache`): a
plain visit is one ``GET /`` and no event, a submission shows on the next ``GET /`` within the
re-bake bound, and the page comes gzipped from the cache. This pins the Gradio internals that
:mod:`ui.initial_values` leans on."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest

from leaderboard import demo
from tests.ui.conftest import start_app

gradio_client = pytest.importorskip("gradio_client")

MODEL = "Baked-Row-Model-42"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    app = start_app(tmp_path_factory, "baked-app")
    yield app
    app.stop()


def fetch(url: str, gzip: bool = False) -> tuple[dict, bytes]:
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"} if gzip else {})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return {k.lower(): v for k, v in answer.headers.items()}, answer.read()


def test_the_page_carries_both_boards_and_asks_the_server_nothing_on_load(server):
    _, page = fetch(server.url + "/")
    assert b"reported in paper" in page and b"Demo-InternVL3-8B" in page  # board rows in the HTML
    config = json.loads(fetch(server.url + "/config")[1])
    loads = [d for d in config["dependencies"] if any(t[1] == "load" for t in d["targets"])]
    assert loads and all(not d["backend_fn"] for d in loads)  # the deep-link reader runs in the browser only
    headers, zipped = fetch(server.url + "/", gzip=True)
    assert headers["content-encoding"] == "gzip" and "accept-encoding" in headers["vary"].lower()
    assert len(zipped) < len(page) / 4


def test_a_submission_shows_on_the_next_page_load(server, tmp_path):
    assert MODEL.encode() not in fetch(server.url + "/")[1]
    path = demo.write_jsonl(tmp_path / "kv.jsonl", demo.kviscuit_submission(demo.kviscuit_gold(0), 0.9, seed=5))
    client = gradio_client.Client(server.url, verbose=False)
    answer = client.predict(
        "kviscuit", gradio_client.handle_file(str(path)), MODEL, "Baked team", "open", "xyxy", "", "", "",
        visibility="public", api_name="/submit",
    )  # fmt: skip
    assert answer["status"] == "scored", answer
    deadline = time.monotonic() + 10  # re-baked at most every 2 s, polled every 0.25 s
    while MODEL.encode() not in fetch(server.url + "/")[1]:
        assert time.monotonic() < deadline, "the new row never reached the page"
        time.sleep(0.25)
    assert MODEL.encode() in fetch(server.url + "/config")[1]  # gradio_client's view of the page too


def test_chromium_shows_the_board_with_no_request_to_the_server(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    calls: list[str] = []
    page.on("request", lambda r: calls.append(r.url) if "/gradio_api/" in r.url and r.method == "POST" else None)
    page.goto(server.url)
    page.wait_for_selector("#scb-table [role=row] >> text=reported in paper", timeout=60_000)
    page.wait_for_timeout(2000)  # any load event would have fired by now
    assert calls == []
    page.goto(server.url + "/?bench=scb&q=Demo-InternVL3-8B")  # a deep link still restores (and only it asks)
    page.wait_for_function(
        "() => { const t = document.querySelector('#scb-table');"  # null while the new page mounts
        " return t !== null && !t.innerText.includes('reported in paper'); }",
        timeout=60_000,
    )
    assert any("/gradio_api/" in c for c in calls)
    context.close()
