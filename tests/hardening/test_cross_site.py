"""attacks.md #4: a page on another site cannot act as the signed-in visitor.

A "Space" app (``SPACE_HOST=org-leaderboard.hf.space``, so its public origin is
``https://org-leaderboard.hf.space``) and a valid session cookie for ann, signed with the
deployment's own key as the red team did: requests with ``Origin: https://evil.example`` get no
credentialed CORS answer and every state-changing one is refused (403), while the same request
from the leaderboard's own origin, and gradio_client (which sends no ``Origin``), still work.
The session cookie the app sets is ``SameSite=Lax``.
"""

from __future__ import annotations

import hashlib
import json
import secrets

import httpx
import pytest

from tests.hardening.test_identity_app import OAUTH_CLIENT_ID, USERS, predictions, session_cookie, submit
from tests.support.app_server import AppServer
from tests.support.hub_server import HubServer

gradio_client = pytest.importorskip("gradio_client")

HOST = "org-leaderboard.hf.space"
OWN = f"https://{HOST}"
EVIL = "https://evil.example"
SESSION_SECRET = secrets.token_hex(32)


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
        "SPACE_HOST": HOST,
        "OAUTH_CLIENT_ID": OAUTH_CLIENT_ID,
        "OAUTH_CLIENT_SECRET": secrets.token_hex(16),
        "OAUTH_SCOPES": "openid profile",
        "OPENID_PROVIDER_URL": hub.url,
        "HF_ENDPOINT": hub.url,
        "HF_HUB_OFFLINE": "0",
        "LEADERBOARD_SESSION_SECRET": SESSION_SECRET,
    }
    app = AppServer(tmp_path_factory.mktemp("cross-site") / "data", **env).start()
    yield app
    app.stop()


def anns_cookie() -> str:
    """ann's session, signed with the deployment's key (ui.oauth.session_key), as after her sign-in."""
    return session_cookie(hashlib.sha256(SESSION_SECRET.encode()).hexdigest(), "ann")


def listing_fn(config: dict) -> int:
    """The event that lists My submissions (``MySubmissions.show``: no inputs, the table out)."""
    table = next(c["id"] for c in config["components"] if c.get("props", {}).get("elem_id") == "mine-table")
    return next(d["id"] for d in config["dependencies"] if table in d["outputs"] and not d["inputs"])


def join_and_read(http: httpx.Client, fn: int, origin: str) -> tuple[httpx.Response, str]:
    """queue/join and its stream, as a page at ``origin`` would send them with ann's cookie."""
    session = secrets.token_hex(6)
    headers = {"Origin": origin, "Host": HOST}
    body = {"data": [], "event_data": None, "fn_index": fn, "trigger_id": None, "session_hash": session}
    joined = http.post("/gradio_api/queue/join", json=body, headers=headers)
    if joined.status_code != 200:
        return joined, ""
    stream = http.get("/gradio_api/queue/data", params={"session_hash": session}, headers=headers)
    return joined, stream.text


def test_a_foreign_origin_gets_no_credentialed_cors_and_cannot_act(space):
    with httpx.Client(base_url=space.url, timeout=60, cookies={"session": anns_cookie()}) as http:
        config = http.get("/config").json()
        fn = listing_fn(config)
        preflight = http.options(
            "/gradio_api/queue/join",
            headers={"Origin": EVIL, "Host": HOST, "Access-Control-Request-Method": "POST"},
        )
        assert preflight.headers.get("access-control-allow-origin") != EVIL
        simple = http.get("/config", headers={"Origin": EVIL, "Host": HOST})
        assert simple.status_code == 200 and simple.headers.get("access-control-allow-origin") != EVIL
        joined, _ = join_and_read(http, fn, EVIL)
        assert joined.status_code == 403 and "Cross-site request refused" in joined.text
        assert joined.headers.get("access-control-allow-origin") != EVIL
        for path in ("/gradio_api/upload", "/gradio_api/run/predict", "/gradio_api/call/submit"):
            refused = http.post(path, headers={"Origin": EVIL, "Host": HOST}, content=b"{}")
            assert refused.status_code == 403, path
        # the control: the same cookie from the leaderboard's own page acts as ann
        joined, stream = join_and_read(http, fn, OWN)
        assert joined.status_code == 200 and "submission(s) by **ann**" in stream
        own_preflight = http.options(
            "/gradio_api/queue/join",
            headers={"Origin": OWN, "Host": HOST, "Access-Control-Request-Method": "POST"},
        )
        assert own_preflight.headers.get("access-control-allow-origin") == OWN
    assert "refused a POST /gradio_api/queue/join from foreign origin 'https://evil.example'" in space.log_text()


def test_the_session_cookie_is_same_site_lax(space):
    with httpx.Client(base_url=space.url, timeout=60, follow_redirects=False) as http:
        answer = http.get("/logout", headers={"Host": HOST}, cookies={"session": anns_cookie()})  # rewrites it
    cookies = [v for k, v in answer.headers.multi_items() if k == "set-cookie" and v.startswith("session=")]
    assert cookies, answer.headers
    assert all("samesite=lax" in c.lower() and "secure" in c.lower() for c in cookies), cookies


def test_gradio_client_sends_no_origin_and_still_submits(space, tmp_path):
    client = gradio_client.Client(space.url, token="tok-ann", verbose=False)
    answer = submit(client, predictions(tmp_path, 3), "Cross-site control")
    assert answer["submission_id"] and answer["status"] in ("scored", "rejected"), json.dumps(answer)
