"""The public inputs (``/questions/...``: list, TSV, demo images) are built once per list version,
in a worker thread, and then served as bytes: a flood of anonymous requests costs the event loop
nothing but sending (attacks.md, turn 4 #2; perf/load_test.py --tsv-flood measures it live)."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from ui import public_files


def scb_list(tag: str) -> bytes:
    def question(n: int) -> dict:
        options = [{"url": f"images/img-{n}{k}.jpg", "width": 400, "height": 300} for k in "abcd"]
        return {"question_id": f"scb-{n}", "question": f"Which one? {tag}", "options": options, "country": "Korea"}

    return "".join(json.dumps(question(n)) + "\n" for n in range(3)).encode()


class Published:
    """The two read methods the routes use, with a list version that a test can change."""

    def __init__(self) -> None:
        self.version, self.body = "v1", scb_list("first")
        self.checks = 0

    def gold_info(self, benchmark: str):
        self.checks += 1
        return SimpleNamespace(version=self.version) if benchmark == "scb" else None

    def public_questions(self, benchmark: str) -> bytes:
        return self.body if benchmark == "scb" else b""


def in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@pytest.fixture
def built(monkeypatch):
    """Every TSV and image build, with whether it ran inside an event loop."""
    calls: list[tuple[str, bool]] = []
    tsv, image = public_files.vlmevalkit_tsv, public_files.demo_image

    def counted_tsv(*args):
        calls.append(("tsv", in_event_loop()))
        return tsv(*args)

    def counted_image(*args):
        calls.append(("image", in_event_loop()))
        return image(*args)

    monkeypatch.setattr(public_files, "vlmevalkit_tsv", counted_tsv)
    monkeypatch.setattr(public_files, "demo_image", counted_image)
    return calls


@pytest.fixture
def published():
    return Published()


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def client(published, clock):
    files = public_files.PublicFiles(published, recheck=1.0, clock=clock)
    with TestClient(Starlette(routes=public_files.routes(published, demo=True, files=files))) as c:
        yield c


def test_the_tsv_is_built_once_per_list_version_off_the_event_loop(client, published, built, clock):
    bodies = {client.get("/questions/scb.tsv").content for _ in range(6)}
    assert len(bodies) == 1 and "first" in bodies.pop().decode()
    assert built == [("tsv", False)]  # once, in a worker thread
    assert client.get("/questions/scb.jsonl").content == published.body
    again = client.get(
        "/questions/scb.tsv", headers={"if-none-match": client.get("/questions/scb.tsv").headers["etag"]}
    )
    assert again.status_code == 304 and again.content == b""
    assert published.checks == 1  # within a second the version is not even asked again
    published.version, published.body = "v2", scb_list("second")  # a new gold publishes a new list
    clock.now += 1.0
    assert (
        "second" in client.get("/questions/scb.tsv").text
        and client.get("/questions/scb.jsonl").content == published.body
    )
    client.get("/questions/scb.tsv")
    assert built == [("tsv", False), ("tsv", False)]


def test_a_demo_image_is_drawn_once_off_the_event_loop(client, built):
    first = client.get("/questions/scb/images/img-1b.jpg")
    assert first.status_code == 200 and first.headers["content-type"] == "image/png"
    assert all(client.get("/questions/scb/images/img-1b.jpg").content == first.content for _ in range(4))
    assert [c for c in built if c[0] == "image"] == [("image", False)]


def test_names_outside_the_list_are_not_found(client, built):
    assert client.get("/questions/scb/images/img-9a.jpg").status_code == 404
    assert client.get("/questions/kviscuit.tsv").status_code == 404  # no list published
    assert client.get("/questions/nope.jsonl").status_code == 404
    assert [c for c in built if c[0] == "image"] == []
