"""Identities that cannot be forged, against a served app (``python app.py``).

A "Space" app (SYSTEM=spaces, SPACE_ID, the OAuth app variables) with the fake Hub's
``whoami`` behind HF_ENDPOINT: gradio_client's ``token=``, an ``Authorization: Bearer`` header
and ``oauth_token=`` all name the token's owner; no token gets a refusal that says how to send
one; session cookies signed with a guessed or public key sign no one in, while one signed
with the real key does (so the test can tell). A local app: a reused session hash and guessed
admin tokens open nothing, and Gradio refuses an upload over the limit before it is stored.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from pathlib import Path

import httpx
import pytest

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from tests.support import demo
from tests.support.app_server import ADMIN_TOKEN, AppServer
from tests.support.gradio_queue import fn_index, queue_call
from tests.support.hub_server import HubServer, User
from ui.auth import INVALID_TOKEN, NO_TOKEN
from ui.uploads import UPLOAD_REFUSED

gradio_client = pytest.importorskip("gradio_client")
itsdangerous = pytest.importorskip("itsdangerous")

OAUTH_CLIENT_ID = "leaderboard-client-id"
OAUTH_CLIENT_SECRET = secrets.token_hex(16)  # what a Space keeps secret
USERS = {"tok-ann": User("ann", ("ann-lab",)), "tok-boss": User("boss", ())}


# ---------------------------------------------------------------- helpers


def submitters(data_dir: Path) -> list[str]:
    """Who the stored submissions say submitted them, oldest first."""
    states = Leaderboard(Settings(data_dir=data_dir, demo=False)).catalog.all()
    return [s.meta.submitter for s in sorted(states, key=lambda s: s.meta.submitted_at)]


def submit(client, path: Path, model: str) -> dict:
    return client.predict(
        "kviscuit", gradio_client.handle_file(str(path)), model, "Team", "open", "xyxy", "", "", "", api_name="/submit"
    )


def session_cookie(secret_key: str, username: str) -> str:
    """A Starlette session cookie, as ``SessionMiddleware(secret_key=...)`` signs it."""
    userinfo = {"preferred_username": username, "name": username, "profile": "", "picture": ""}
    oauth_info = {"access_token": "x", "scope": "openid profile", "expires_at": int(time.time()) + 3600}
    data = base64.b64encode(json.dumps({"oauth_info": {**oauth_info, "userinfo": userinfo}}).encode())
    return itsdangerous.TimestampSigner(secret_key).sign(data).decode()


def session_of(cookie: str) -> dict:
    """What a session cookie holds (its signed payload, read without checking the signature)."""
    payload = cookie.split(".")[0]
    return json.loads(base64.b64decode(payload + "=" * (-len(payload) % 4))) if payload else {}


def gradio_key(client_secret: str) -> str:
    """Gradio's session key: sha256(OAUTH_CLIENT_SECRET + "-v4")."""
    return hashlib.sha256((client_secret + "-v4").encode()).hexdigest()


# ---------------------------------------------------------------- on a Space


@pytest.fixture(scope="module")
def hub():
    server = HubServer(users=dict(USERS)).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def space(tmp_path_factory, hub):
    env = {
        "SYSTEM": "spaces",
        "SPACE_ID": "org/leaderboard",
        "OAUTH_CLIENT_ID": OAUTH_CLIENT_ID,
        "OAUTH_CLIENT_SECRET": OAUTH_CLIENT_SECRET,
        "OAUTH_SCOPES": "openid profile",
        "OPENID_PROVIDER_URL": hub.url,
        "HF_ENDPOINT": hub.url,
        "HF_HUB_OFFLINE": "0",
        "LEADERBOARD_MAINTAINERS": "boss",
    }
    app = AppServer(tmp_path_factory.mktemp("space") / "data", **env).start()
    yield app
    app.stop()


def predictions(folder: Path, seed: int) -> Path:
    """A different file for every seed (an identical upload is answered as a duplicate, not stored)."""
    return demo.write_jsonl(folder / f"p{seed}.jsonl", demo.kviscuit_submission(demo.kviscuit_gold(0), 0.5, seed=seed))


@pytest.fixture(scope="module")
def upload(tmp_path_factory) -> Path:
    return predictions(tmp_path_factory.mktemp("upload"), 0)


def test_each_way_to_send_a_token_names_its_owner(space, tmp_path):
    ways = {
        "token=": gradio_client.Client(space.url, token="tok-ann", verbose=False),
        "Bearer": gradio_client.Client(space.url, headers={"Authorization": "Bearer tok-ann"}, verbose=False),
        # the file upload before /submit needs a token in a header (ui/uploads.py): here boss's, so
        # the submission's owner (ann) can only come from oauth_token=, which goes first
        "oauth_token=": gradio_client.Client(space.url, oauth_token="tok-ann", token="tok-boss", verbose=False),
    }
    before = len(submitters(space.data_dir))
    for seed, (way, client) in enumerate(ways.items(), start=1):
        answer = submit(client, predictions(tmp_path, seed), f"Model via {way}")
        assert answer["status"] in ("scored", "rejected") and answer["submission_id"], (way, answer)
    assert submitters(space.data_dir)[before:] == ["ann", "ann", "ann"]


def test_no_token_or_a_wrong_one_is_refused_with_a_clear_message(space, upload, monkeypatch):
    """The file upload that comes first now refuses them (ui/uploads.py, attacks.md #7), with the
    same message /submit gives (gradio_client shows only the status line; the body says why)."""
    monkeypatch.delenv("HF_TOKEN", raising=False)  # else gradio_client sends the machine's saved token
    before = submitters(space.data_dir)
    for token, message in ((None, NO_TOKEN), ("tok-forged", INVALID_TOKEN)):
        with pytest.raises(httpx.HTTPStatusError) as refused:
            submit(gradio_client.Client(space.url, token=token, verbose=False), upload, "No token")
        assert refused.value.response.status_code == 401
        assert refused.value.response.json()["error"] == UPLOAD_REFUSED + message
    no_file = gradio_client.Client(space.url, verbose=False).predict(  # /submit itself, without a file
        "kviscuit", None, "No token", "Team", "open", "xyxy", "", "", "", api_name="/submit"
    )
    assert (no_file["status"], no_file["message"], no_file["submission_id"]) == ("rejected", NO_TOKEN, None)
    assert submitters(space.data_dir) == before


def test_forged_session_cookies_sign_no_one_in(space, upload, monkeypatch, tmp_path):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    guessed_keys = [gradio_key(""), gradio_key(OAUTH_CLIENT_ID), "secret", ""]  # "-v4" alone is public
    before = submitters(space.data_dir)
    for key in guessed_keys:
        forged = session_cookie(key, "boss")
        client = gradio_client.Client(space.url, httpx_kwargs={"cookies": {"session": forged}}, verbose=False)
        with pytest.raises(httpx.HTTPStatusError) as refused:  # the upload already (ui/uploads.py)
            submit(client, upload, "Forged")
        assert refused.value.response.json()["error"] == UPLOAD_REFUSED + NO_TOKEN, key
        no_file = client.predict("kviscuit", None, "Forged", "Team", "open", "xyxy", "", "", "", api_name="/submit")
        assert no_file["message"] == NO_TOKEN, key
    assert submitters(space.data_dir) == before
    genuine = session_cookie(gradio_key(OAUTH_CLIENT_SECRET), "boss")  # the control: the real key works
    client = gradio_client.Client(space.url, httpx_kwargs={"cookies": {"session": genuine}}, verbose=False)
    assert submit(client, predictions(tmp_path, 9), "Genuine")["submission_id"]
    assert submitters(space.data_dir) == [*before, "boss"]


def test_the_browser_shows_a_forged_cookie_as_signed_out(space, browser):
    shown = {}
    for label, key in (("forged", gradio_key("")), ("genuine", gradio_key(OAUTH_CLIENT_SECRET))):
        context = browser.new_context()
        cookie = {"name": "session", "value": session_cookie(key, "boss"), "url": space.url}
        context.add_cookies([cookie])
        page = context.new_page()
        page.goto(space.url + "/app", wait_until="domcontentloaded")  # the Gradio page says who is signed in
        page.wait_for_selector("#identity >> text=/Signed in|Not signed in/", timeout=60_000)  # after "Checking"
        shown[label] = page.inner_text("#identity")
        context.close()
    assert "Not signed in" in shown["forged"]
    assert "Signed in with Hugging Face as boss" in shown["genuine"]


# ---------------------------------------------------------------- off a Space


def test_sign_in_off_a_space_refuses_to_start_without_an_oauth_app_and_secret(tmp_path):
    app = AppServer(tmp_path / "data", LEADERBOARD_OAUTH="1")
    with pytest.raises(RuntimeError, match="OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET, OAUTH_SCOPES, OPENID_PROVIDER_URL"):
        app.start()  # it exits at once: the bound is for a slow host
    oauth_app = {"OAUTH_CLIENT_ID": "i", "OAUTH_CLIENT_SECRET": "s", "OAUTH_SCOPES": "o", "OPENID_PROVIDER_URL": "x"}
    app = AppServer(tmp_path / "data2", LEADERBOARD_OAUTH="1", **oauth_app)
    with pytest.raises(RuntimeError, match="LEADERBOARD_SESSION_SECRET"):
        app.start()  # it exits at once: the bound is for a slow host


def test_off_a_space_the_login_is_real_not_mocked(tmp_path, hub):
    env = {
        "LEADERBOARD_OAUTH": "1",
        "LEADERBOARD_SESSION_SECRET": secrets.token_hex(32),
        "OAUTH_CLIENT_ID": OAUTH_CLIENT_ID,
        "OAUTH_CLIENT_SECRET": OAUTH_CLIENT_SECRET,
        "OAUTH_SCOPES": "openid profile",
        "OPENID_PROVIDER_URL": hub.url,
        "HF_ENDPOINT": hub.url,
        "HF_TOKEN": "tok-boss",  # the mocked login would sign every visitor in as this account
    }
    app = AppServer(tmp_path / "data", **env).start()
    try:
        with httpx.Client(base_url=app.url, timeout=30) as http:
            answer = http.get("/login/callback", follow_redirects=False)
            assert "oauth_info" not in session_of(answer.cookies.get("session", ""))
            assert "Gradio does not support OAuth features outside of a Space" not in app.log_text()
    finally:
        app.stop()


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    folder = tmp_path_factory.mktemp("local")
    app = AppServer(folder / "data", LEADERBOARD_MAX_UPLOAD_MB="1", GRADIO_TEMP_DIR=str(folder / "uploads")).start()
    yield app
    app.stop()


def test_a_reused_session_hash_opens_nothing(local):
    config = httpx.get(local.url + "/config", timeout=30).json()
    unlock, hide = fn_index(config, "admin-unlock"), fn_index(config, "hide-btn")
    session = "mntnr0sess1"
    assert queue_call(local.url, unlock, [ADMIN_TOKEN, "scb"], session)["success"]  # unlock: (token, benchmark)
    sid = Leaderboard(Settings(data_dir=local.data_dir, demo=False)).catalog.all()[0].meta.id
    # the same hash, no token (the Hide event's inputs: pick, reason, token)
    stranger = queue_call(local.url, hide, [sid, "a reason", ""], session)
    assert not stranger["success"] and "Maintainers only" in json.dumps(stranger)
    hidden = [s.meta.id for s in Leaderboard(Settings(data_dir=local.data_dir, demo=False)).catalog.all() if s.hidden]
    assert sid not in hidden


def test_guessed_admin_tokens_are_slowed_down(local):
    """Three wrong tokens are checked; then each further wrong one makes the client wait 1 s, 2 s,
    4 s ... (ui.throttle.Backoff). Which guess meets a wait depends on how fast the host answers
    (the 4th on an idle one; at load 18 the 4th came after its 1 s), so that exact sequence is
    checked on a frozen clock (tests/ui/test_admin.py); here, that the running app slows a
    guesser down within a few guesses, and logs it without the token."""
    config = httpx.get(local.url + "/config", timeout=30).json()
    unlock = fn_index(config, "admin-unlock")

    def guess(i: int) -> str:
        return json.dumps(queue_call(local.url, unlock, [f"guess-{i}", "scb"], secrets.token_hex(6))["output"]["data"])

    texts = [guess(i) for i in range(3)]
    assert all("Wrong token" in t for t in texts)
    for i in range(3, 10):  # the wait doubles after each wrong guess: it soon outlasts a slow host's gap
        texts.append(guess(i))
        if "Too many wrong admin tokens" in texts[-1]:
            break
    assert "Too many wrong admin tokens" in texts[-1] and all("Wrong token" in t for t in texts[3:-1]), texts
    assert "guess-" not in local.log_text() and "wrong admin token from 127.0.0.1 (3 in a row)" in local.log_text()


@pytest.fixture(scope="module")
def loopback(tmp_path_factory):
    """An app with no proxy named (LEADERBOARD_TRUSTED_PROXIES unset), reached from 127.0.0.1 as a
    same-host proxy or sidecar would reach it: its own admin backoff, apart from ``local``'s."""
    app = AppServer(tmp_path_factory.mktemp("loopback") / "data").start()
    yield app
    app.stop()


def test_a_forwarded_address_rotated_from_loopback_is_one_client(loopback):
    """Red team N7 (t_backoff.py): uvicorn's default forwarded_allow_ips ("127.0.0.1") let any loopback
    connection name its own address in X-Forwarded-For, so wrong admin tokens sent with a new address
    each were never backed off. With no proxy named, the header names nothing: the guesser is
    127.0.0.1 whatever it writes, and is slowed down as one client."""
    config = httpx.get(loopback.url + "/config", timeout=30).json()
    unlock = fn_index(config, "admin-unlock")

    def guess(i: int) -> str:
        forged = {"X-Forwarded-For": f"10.7.{i}.1"}
        answer = queue_call(loopback.url, unlock, [f"guess-{i}", "scb"], secrets.token_hex(6), forged)
        return json.dumps(answer["output"]["data"])

    texts = [guess(i) for i in range(10)]
    assert any("Too many wrong admin tokens" in t for t in texts), texts
    assert "wrong admin token from 127.0.0.1 (3 in a row)" in loopback.log_text()
    assert "from 10.7." not in loopback.log_text()


def test_gradio_refuses_an_upload_over_the_limit_before_storing_it(local, tmp_path):
    big = b'{"question_id": "x", "answer": "A"}\n' * (1024 * 1024 // 36 + 1000)  # just over 1 MB
    with httpx.Client(base_url=local.url, timeout=60) as http:
        answer = http.post("/gradio_api/upload", files={"files": ("big.jsonl", big, "application/jsonl")})
        assert answer.status_code == 413 and "maximum allowed size" in answer.text
        small = http.post("/gradio_api/upload", files={"files": ("small.jsonl", big[:1000], "application/jsonl")})
        assert small.status_code == 200, small.text
    stored = [p.name for p in Path(local.env["GRADIO_TEMP_DIR"]).rglob("*") if p.is_file()]
    assert "small.jsonl" in stored and "big.jsonl" not in stored
