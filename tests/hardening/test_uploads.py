"""attacks.md #7: anyone could fill the disk through ``/gradio_api/upload`` (20 x 5 MB in 0.5 s,
no token, no session), and nothing deleted the files.

A "Space" app with a 6 MB upload limit (so a caller's budget is 4 x 6 = 24 MB per 10 minutes):
anonymous uploads are refused before anything is written; a token-carrying caller and a
signed-in session upload until their own budget is spent; gradio_client with ``token=`` still
submits. The sweep that deletes old uploads is Gradio's ``delete_cache``, checked in-process.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from gradio import route_utils

from leaderboard.config import Settings, UiSettings
from tests.hardening.test_identity_app import OAUTH_CLIENT_ID, USERS, predictions, session_cookie, submit
from tests.support.app_server import AppServer
from tests.support.hub_server import HubServer, User
from tests.support.submissions import board, write_gold
from ui.app import build_app
from ui.auth import INVALID_TOKEN, NO_TOKEN
from ui.uploads import (
    DELETE_CACHE,
    FILES_PER_UPLOAD,
    UPLOAD_MAX_AGE,
    UPLOAD_REFUSED,
    FileCounter,
    UploadBudget,
    upload_budget,
)

gradio_client = pytest.importorskip("gradio_client")

SESSION_SECRET = secrets.token_hex(32)
FIVE_MB = b"x" * (5 * 2**20)


@pytest.fixture(scope="module")
def hub():
    server = HubServer(users=dict(USERS) | {"tok-many": User("many", ()), "tok-crowd": User("crowd", ())}).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def space(tmp_path_factory, hub):
    folder = tmp_path_factory.mktemp("uploads")
    env = {
        "SYSTEM": "spaces",
        "SPACE_ID": "org/leaderboard",
        "OAUTH_CLIENT_ID": OAUTH_CLIENT_ID,
        "OAUTH_CLIENT_SECRET": secrets.token_hex(16),
        "OAUTH_SCOPES": "openid profile",
        "OPENID_PROVIDER_URL": hub.url,
        "HF_ENDPOINT": hub.url,
        "HF_HUB_OFFLINE": "0",
        "LEADERBOARD_SESSION_SECRET": SESSION_SECRET,
        "LEADERBOARD_MAX_UPLOAD_MB": "6",
        "GRADIO_TEMP_DIR": str(folder / "gradio-tmp"),
    }
    app = AppServer(folder / "data", **env).start()
    yield app
    app.stop()


def temp_bytes(app: AppServer) -> int:
    return sum(p.stat().st_size for p in Path(app.env["GRADIO_TEMP_DIR"]).rglob("*") if p.is_file())


def upload(http: httpx.Client, name: str, **headers: str) -> httpx.Response:
    return http.post("/gradio_api/upload", files={"files": (name, FIVE_MB, "application/jsonl")}, headers=headers)


def test_anonymous_uploads_are_refused_before_anything_is_stored(space, monkeypatch):
    before = temp_bytes(space)
    started = time.monotonic()
    with httpx.Client(base_url=space.url, timeout=60) as http:
        answers = [upload(http, f"fill-{i}.jsonl") for i in range(20)]  # the red team's attack
    assert [a.status_code for a in answers] == [401] * 20, [a.text[:80] for a in answers]
    assert answers[0].json()["error"] == UPLOAD_REFUSED + NO_TOKEN
    assert temp_bytes(space) - before < 1_000_000, time.monotonic() - started  # was +100 MB
    assert not [p for p in Path(space.env["GRADIO_TEMP_DIR"]).rglob("fill-*")]


def test_each_identified_caller_uploads_within_its_own_budget(space):
    ann = {"X-HF-Authorization": "Bearer tok-ann"}  # what gradio_client's token= sends
    with httpx.Client(base_url=space.url, timeout=60) as http:
        answers = [upload(http, f"ann-{i}.jsonl", **ann) for i in range(6)]
        assert [a.status_code for a in answers] == [200] * 4 + [429] * 2  # 4 x 5 MB of 24 MB
        assert "Too many uploads from your account: 24 MB in 10 minutes" in answers[4].json()["error"]
        forged = upload(http, "forged.jsonl", **{"Authorization": "Bearer tok-forged"})
        assert forged.status_code == 401 and forged.json()["error"] == UPLOAD_REFUSED + INVALID_TOKEN
        boss = session_cookie(hashlib.sha256(SESSION_SECRET.encode()).hexdigest(), "boss")  # signed in
        assert upload(http, "boss.jsonl", Cookie=f"session={boss}").status_code == 200  # another budget


def test_gradio_client_with_a_token_still_submits(space, tmp_path):
    client = gradio_client.Client(space.url, token="tok-boss", verbose=False)
    answer = submit(client, predictions(tmp_path, 11), "Upload gate control")
    assert answer["submission_id"], answer


def test_the_budget_counts_files_and_bytes_per_caller_and_window(monkeypatch):
    import limits.storage.memory

    clock = [1_000.0]  # the limits library's memory storage reads time.time(): a fake clock for it alone
    monkeypatch.setattr(limits.storage.memory, "time", SimpleNamespace(time=lambda: clock[0]))
    budget = UploadBudget(max_bytes=100, uploads=3, window=60, clock=lambda: clock[0])
    assert [budget.charge("ann", 10) for _ in range(3)] == ["", "", ""]
    assert budget.charge("ann", 10) == "Too many uploads from your account: 3 files in 1 minutes. Try again in 60 s."
    assert budget.charge("bob", 100) == "" and "MB in 1 minutes" in budget.charge("bob", 1)
    assert budget.charge("cat", 101).startswith("Too many uploads")  # larger than the whole window
    assert budget.charge("cat", 60) == "" and budget.charge("cat", 41).startswith("Too many uploads")
    assert budget.charge("cat", 40) == ""  # a refused upload counted nothing: neither its file nor its bytes
    clock[0] += 30.0
    assert budget.charge("ann", 10).endswith("Try again in 30 s.")
    clock[0] += 30.0
    assert budget.charge("ann", 10) == "" and budget.charge("bob", 100) == ""  # a new window


def test_old_uploads_are_swept_by_gradios_delete_cache_and_baked_files_kept(tmp_path):
    """The page asks Gradio to sweep (delete_cache); its sweep deletes an upload older than
    UPLOAD_MAX_AGE and keeps any file a component pins (``keep_in_cache``; since the board is a
    page of its own, the Gradio page bakes no board downloads, so there may be none)."""
    page = build_app(board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl")), UiSettings())
    assert page.delete_cache == DELETE_CACHE and DELETE_CACHE[1] == UPLOAD_MAX_AGE <= 900
    uploaded = tmp_path / "uploaded.jsonl"
    uploaded.write_bytes(b"{}\n")
    page.upload_file_set.add(str(uploaded))
    kept = {path for block in page.blocks.values() for path in getattr(block, "keep_in_cache", ())}
    route_utils.delete_files_created_by_app(page, UPLOAD_MAX_AGE)
    assert uploaded.exists()  # young: kept
    route_utils.delete_files_created_by_app(page, 0)  # as if UPLOAD_MAX_AGE had passed
    assert not uploaded.exists() and all(Path(p).exists() for p in kept)


def test_a_larger_attempts_quota_brings_its_uploads_along():
    default = upload_budget(Settings())
    assert (default.uploads, default.max_bytes) == (20, 4 * 50 * 2**20)
    load_test = upload_budget(Settings(max_attempts_per_day=100_000))  # perf/load_test.py's setting
    assert load_test.uploads == 100_000 and load_test.max_bytes == 5_000 * default.max_bytes


def _multipart(n: int) -> tuple[bytes, bytes]:
    """(boundary, body) of ``n`` small files as httpx sends them."""
    request = httpx.Request("POST", "http://x/", files=[("files", (f"f{k}.jsonl", b"{}\n" * k)) for k in range(n)])
    boundary = request.headers["content-type"].split("boundary=")[1].encode()
    return boundary, request.read()


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 16])
def test_files_are_counted_as_their_parts_begin_whatever_the_chunks(chunk):
    """red.md N5: one request may carry 1,000 files; "20 uploads per 10 minutes" was 20,000 files."""
    charged: list[int] = []
    boundary, body = _multipart(5)
    counter = FileCounter(boundary, lambda: charged.append(1) or "")
    for at in range(0, len(body), chunk):
        assert counter.count(body[at : at + chunk]) == ""
    assert counter.parts == 5 and len(charged) == 4  # the first file was charged with the request
    boundary, body = _multipart(FILES_PER_UPLOAD + 1)
    counter = FileCounter(boundary, lambda: "")
    refusals = [counter.count(body[at : at + chunk]) for at in range(0, len(body), chunk)]
    assert refusals[-1] == f"Too many files in one upload: at most {FILES_PER_UPLOAD}."


def test_each_file_of_a_request_counts_against_the_budget(space):
    many, crowd = ({"X-HF-Authorization": f"Bearer tok-{who}"} for who in ("many", "crowd"))

    def files(n: int, tag: str) -> list:
        return [("files", (f"{tag}-{k}.jsonl", b"{}\n", "application/jsonl")) for k in range(n)]

    with httpx.Client(base_url=space.url, timeout=60) as http:
        answers = [http.post("/gradio_api/upload", files=files(8, f"r{i}"), headers=many) for i in range(3)]
        crowded = http.post("/gradio_api/upload", files=files(FILES_PER_UPLOAD + 1, "crowd"), headers=crowd)
    assert [a.status_code for a in answers] == [200, 200, 429], [a.text[:100] for a in answers]
    assert "Too many uploads from your account: 20 files in 10 minutes" in answers[2].json()["error"]
    assert crowded.status_code == 429 and "at most 16" in crowded.json()["error"]
