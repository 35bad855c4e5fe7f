"""ui.auth: who acts (local identity, OAuth profile, a token in any of three places), the
bounded token cache, and how Hub failures are told apart."""

from __future__ import annotations

import secrets

import gradio as gr
import pytest

from leaderboard.config import UiSettings
from tests.support.hub_server import HubServer, User
from tests.ui.fakes import Profile, Request, bearer
from ui.auth import (
    HUB_UNAVAILABLE,
    INVALID_TOKEN,
    NO_TOKEN,
    TOKEN_CACHE_SIZE,
    TOO_MANY_UNKNOWN_TOKENS,
    UNKNOWN_TOKENS_PER_CLIENT,
    Auth,
    BoundedTtlCache,
    TokenCheck,
    hub_whoami,
)

ON_SPACE = UiSettings(oauth=True, maintainers=("boss",), admin_token="t0ken")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Hub:
    """Counts whoami calls; knows one token; ``down`` makes it answer like a rate-limited Hub."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.down = False

    def __call__(self, token: str) -> TokenCheck:
        self.calls.append(token)
        if self.down:
            return TokenCheck.unavailable("429")
        return TokenCheck("scripter", ("lab",)) if token == "good" else TokenCheck.invalid()


def test_offline_everyone_is_the_local_user_and_the_page_says_so():
    auth = Auth(UiSettings(local_user="me"))
    identity = auth.identity(None, Request())
    assert (identity.username, identity.source, identity.is_maintainer) == ("me", "local", False)
    assert "every visitor shares one identity" in auth.greeting() and "LEADERBOARD_LOCAL_USER" in auth.greeting()


def test_on_a_space_the_profile_or_the_token_says_who():
    auth = Auth(ON_SPACE, whoami=Hub())
    assert auth.caller(None, Request()) == auth.caller(None, None) and auth.caller(None, None).refusal == NO_TOKEN
    assert 'Client("<space>", token="hf_...")' in NO_TOKEN and "Authorization: Bearer" in NO_TOKEN
    assert auth.identity(Profile("boss"), Request()).is_maintainer
    scripted = auth.identity(None, bearer("good"))
    assert (scripted.username, scripted.source, scripted.is_maintainer, scripted.orgs) == (
        "scripter",
        "huggingface",
        False,
        ("lab",),
    )
    assert auth.caller(None, bearer("forged")) == auth.caller(None, bearer("forged"))
    assert auth.caller(None, bearer("forged")).refusal == INVALID_TOKEN
    assert "sign in" in auth.greeting(None) and "boss" in auth.greeting(Profile("boss"))


def test_the_three_ways_to_send_a_token_name_the_same_account():
    auth = Auth(ON_SPACE, whoami=Hub())
    gradio_client_header = Request({"x-hf-authorization": "Bearer good"})  # Client(space, token=...)
    oauth_token = gr.OAuthToken(token="good", scope="", expires_at=0)  # Client(space, oauth_token=...)
    expected = auth.identity(None, bearer("good"))
    assert auth.identity(None, gradio_client_header) == expected
    assert auth.identity(None, Request(), oauth_token) == expected
    assert auth.identity(None, Request({"authorization": "Basic Z29vZA=="})) is None  # only bearer tokens
    both = Request({"authorization": "Bearer good", "x-hf-authorization": "Bearer saved-login"})
    assert auth.identity(None, both) == expected  # an explicit Authorization beats gradio_client's saved login


def test_the_browser_profile_brings_its_orgs():
    userinfo = {"name": "A", "preferred_username": "ann", "profile": "", "picture": ""}
    profile = gr.OAuthProfile({**userinfo, "orgs": [{"preferred_username": "lab"}]})
    assert Auth(ON_SPACE).identity(profile, Request()).orgs == ("lab",)


def test_valid_answers_last_invalid_ones_a_minute_and_hub_failures_seconds():
    hub, clock = Hub(), Clock()
    auth = Auth(ON_SPACE, whoami=hub, tokens=BoundedTtlCache(8, max_age=600, clock=clock))
    for _ in range(3):
        auth.check_token("good")
        auth.check_token("forged")
    assert hub.calls == ["good", "forged"]
    clock.now = 60  # the refusal is forgotten, the account is not
    auth.check_token("good")
    auth.check_token("forged")
    assert hub.calls == ["good", "forged", "forged"]
    clock.now = 600
    auth.check_token("good")
    assert hub.calls[-1] == "good" and len(hub.calls) == 4


def test_a_hub_outage_asks_to_try_again_and_does_not_lock_the_user_out():
    hub, clock = Hub(), Clock()
    auth = Auth(ON_SPACE, whoami=hub, tokens=BoundedTtlCache(8, max_age=600, clock=clock))
    hub.down = True
    refusal = auth.caller(None, bearer("good")).refusal
    assert refusal == HUB_UNAVAILABLE.format(status="429") and "try again" in refusal
    hub.down = False
    clock.now = 5
    assert auth.identity(None, bearer("good")).username == "scripter"


def test_the_token_cache_is_bounded_in_size():
    cache = BoundedTtlCache(3, max_age=600, clock=Clock())
    for i in range(10):
        cache.store(f"k{i}", None)
    assert len(cache) == 3
    assert cache.lookup("k0") == (False, None) and cache.lookup("k9") == (True, None)


@pytest.fixture(scope="module")
def hub():
    server = HubServer(users={"tok-ann": User("ann", ("lab",))}).start()
    yield server
    server.stop()


def test_whoami_against_a_hub(hub, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "ENDPOINT", hub.url)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    assert hub_whoami("tok-ann") == TokenCheck("ann", ("lab",))
    assert hub_whoami("tok-nobody") == TokenCheck.invalid()
    hub.inject("GET /api/whoami-v2", "ratelimit")
    assert hub_whoami("tok-ann").refusal == HUB_UNAVAILABLE.format(status="429")
    hub.inject("GET /api/whoami-v2", "error", status=503)
    assert hub_whoami("tok-ann").refusal == HUB_UNAVAILABLE.format(status="503")


def test_maintainers_by_account_or_admin_token():
    auth = Auth(ON_SPACE, whoami=Hub())
    assert auth.is_maintainer(Profile("boss")) and not auth.is_maintainer(Profile("eve"))
    assert not auth.is_maintainer(None) and not auth.is_maintainer(None, bearer("good"))
    assert auth.admin_token_matches("t0ken")
    assert not auth.admin_token_matches("t0ke") and not auth.admin_token_matches("")
    assert not Auth(UiSettings()).admin_token_matches("")  # no token configured: nothing opens
    assert not Auth(UiSettings(maintainers=("boss",))).is_maintainer(Profile("boss"))  # offline: the token only


def whoami_calls(hub) -> int:
    return sum(line == "GET /api/whoami-v2" for line in hub.log)


def test_unknown_tokens_do_not_each_cost_an_outbound_whoami(hub, monkeypatch):
    """attacks.md #12: 100 requests with random bearer tokens made 100 whoami calls at the Hub.
    A client's unknown tokens are remembered for a minute (bounded): after UNKNOWN_TOKENS_PER_CLIENT
    of them it is refused without asking the Hub; other clients and known tokens are unaffected."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "ENDPOINT", hub.url)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    auth = Auth(ON_SPACE)
    attacker, user = Request(headers={}, client="10.6.6.6"), "10.1.2.3"
    before = whoami_calls(hub)
    for _ in range(100):
        bearer = Request(headers={"authorization": f"Bearer hf_{secrets.token_hex(17)}"}, client=attacker.client)
        assert auth.identity(None, bearer) is None
    assert whoami_calls(hub) - before <= UNKNOWN_TOKENS_PER_CLIENT
    refused = auth.caller(None, Request(headers={"authorization": "Bearer hf_other"}, client=attacker.client))
    assert refused.refusal == TOO_MANY_UNKNOWN_TOKENS
    for _ in range(20):  # one unknown token again and again: asked once
        assert auth.identity(None, Request(headers={"authorization": "Bearer tok-typo"}, client=user)) is None
    assert auth.identity(None, Request(headers={"authorization": "Bearer tok-ann"}, client=user)).username == "ann"
    assert whoami_calls(hub) - before <= UNKNOWN_TOKENS_PER_CLIENT + 2
    assert len(auth.unknown) <= TOKEN_CACHE_SIZE
