"""An evicted session still works: with ``LEADERBOARD_SESSION_CAPACITY=2`` Gradio forgets a
session once two others acted after it, including the choices its events gave the My submissions
and Maintainers pickers (Compare is the board page's own now, computed in the browser); the pick
the page still shows must be accepted and checked by the server
(ui/page.py ``SURVIVES_EVICTION``), not refused by Gradio as "not in the list of choices"."""

from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path

import httpx
import pytest

from tests.support import demo
from tests.support.gradio_queue import fn_index, queue_call
from tests.ui.conftest import start_app
from ui.page import SESSION_CAPACITY, cap_malloc_arenas, launch_extras

gradio_client = pytest.importorskip("gradio_client")

CAPACITY = 2


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    server = start_app(
        tmp_path_factory, "sessions-app", LEADERBOARD_LOCAL_USER="alice", LEADERBOARD_SESSION_CAPACITY=str(CAPACITY)
    )
    yield server
    server.stop()


@pytest.fixture(scope="module")
def config(app) -> dict:
    return httpx.get(app.url + "/config", timeout=30).json()


def component_id(config: dict, elem_id: str) -> int:
    return next(c["id"] for c in config["components"] if c.get("props", {}).get("elem_id") == elem_id)


def filling(config: dict, elem_id: str, inputs: int) -> int:
    """The event that sets the choices of the Dropdown ``elem_id`` from ``inputs`` inputs."""
    target = component_id(config, elem_id)
    for i, dep in enumerate(config["dependencies"]):
        if dep["outputs"] == [target] and len(dep["inputs"]) == inputs:
            return dep.get("id", i)
    raise LookupError(elem_id)


def call(app, fn: int, data: list, session: str) -> list:
    """One event in ``session``; its outputs (fails on Gradio's own refusal)."""
    message = queue_call(app.url, fn, data, session)
    assert message.get("success"), message
    return message["output"]["data"]


def evict(app, config: dict) -> None:
    """More new sessions than the capacity, each through an event: the oldest ones are dropped."""
    fill_pick = filling(config, "mine-pick", 0)
    for _ in range(CAPACITY + 1):
        call(app, fill_pick, [], secrets.token_hex(6))


def test_publish_from_an_evicted_session(app, config, tmp_path):
    lines = demo.kviscuit_submission(demo.kviscuit_gold(0), 0.7, seed=41)
    path = demo.write_jsonl(tmp_path / "k.jsonl", lines)
    client = gradio_client.Client(app.url, verbose=False)
    args = ("kviscuit", gradio_client.handle_file(str(path)), "Evicted-VLM", "Evicted Lab", "open", "xyxy", "", "", "")
    sid = client.predict(*args, api_name="/submit")["submission_id"]
    mine = secrets.token_hex(6)
    (pick,) = call(app, filling(config, "mine-pick", 0), [], mine)  # the tab opened: the picker lists sid
    assert sid in [value for _, value in pick["choices"]]
    evict(app, config)
    publish = fn_index(config, "mine-publish")
    (message,) = call(app, publish, [sid, False, ""], mine)
    assert message.startswith(f"Published: {sid}"), message
    assert client.predict(sid, api_name="/my_result")["on_board"]
    (refused,) = call(app, publish, ["20990101-000000-kvinope000", False, ""], mine)  # typed, not listed
    assert refused == "No submission '20990101-000000-kvinope000' of yours."


def test_every_dropdown_filled_by_events_accepts_what_it_showed(config):
    filled = [c["props"] for c in config["components"] if c.get("type") == "dropdown" and not c["props"]["choices"]]
    assert {p["elem_id"] for p in filled} >= {"mine-pick", "hide-pick"}
    assert all(p["allow_custom_value"] for p in filled), [p["elem_id"] for p in filled if not p["allow_custom_value"]]


def test_the_capacity_comes_from_the_environment_else_the_default():
    assert launch_extras(None) == {"state_session_capacity": SESSION_CAPACITY}
    assert launch_extras(CAPACITY) == {"state_session_capacity": CAPACITY}
    assert not cap_malloc_arenas({"MALLOC_ARENA_MAX": "8"})  # the deployment's own setting wins


def test_no_session_state_is_saved_to_disk(app, config):
    """Gradio's save-a-session endpoint (a file per call, never deleted) is closed: 404, and no file."""
    session = secrets.token_hex(6)
    call(app, filling(config, "mine-pick", 0), [], session)  # the session exists
    upload_dir = Path(os.environ.get("GRADIO_TEMP_DIR", Path(tempfile.gettempdir()) / "gradio")) / "deep_links"
    before = set(upload_dir.glob("*")) if upload_dir.exists() else set()
    answer = httpx.get(app.url + "/gradio_api/deep_link", params={"session_hash": session}, timeout=30)
    assert answer.status_code == 404
    assert (set(upload_dir.glob("*")) if upload_dir.exists() else set()) == before
