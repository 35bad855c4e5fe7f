"""Who a client is (ui.throttle.client_of): the socket's peer, and a forwarded address only from
a proxy the deployment names (LEADERBOARD_TRUSTED_PROXIES; on a Space, the private ranges its own
proxy talks from). attacks.md turn 4 #7: with SYSTEM=spaces and no proxy in front, a caller that
rotated the last X-Forwarded-For entry got a whoami call for every made-up token (30 of 30) and
escaped the admin-token backoff."""

from __future__ import annotations

import secrets

import pytest
from starlette.datastructures import Headers

from leaderboard.config import PRIVATE_NETWORKS, ConfigError, UiSettings
from tests.ui.fakes import Request
from ui.auth import TOO_MANY_UNKNOWN_TOKENS, UNKNOWN_TOKENS_PER_CLIENT, Auth, TokenCheck
from ui.throttle import Backoff, Proxies, client_of

SPACE_ENV = {
    "SYSTEM": "spaces", "SPACE_ID": "lab/board", "OAUTH_CLIENT_ID": "id", "OAUTH_CLIENT_SECRET": "secret",
    "OAUTH_SCOPES": "openid profile", "OPENID_PROVIDER_URL": "http://127.0.0.1:9",
}  # fmt: skip


def forwarded(peer: str, *lines: str, token: str = "") -> Request:
    raw = [(b"x-forwarded-for", line.encode()) for line in lines]
    raw += [(b"authorization", f"Bearer {token}".encode())] if token else []
    return Request(headers=Headers(raw=raw), client=peer)  # every copy, as Starlette keeps them


class Hub:
    """Counts whoami calls; knows no token."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, token: str) -> TokenCheck:
        self.calls += 1
        return TokenCheck.invalid()


def test_a_space_with_no_proxy_in_front_believes_no_forwarded_address():
    settings = UiSettings.from_env(SPACE_ENV)
    assert settings.on_space and settings.trusted_proxies == PRIVATE_NETWORKS
    hub = Hub()
    auth = Auth(settings, whoami=hub)
    for _ in range(30):  # the red team's t_bearer.py: a new token and a new last entry each time
        spoofed = f"198.51.100.{secrets.randbelow(250)}, 203.0.113.{secrets.randbelow(250)}"
        request = forwarded("127.0.0.1", spoofed, token=f"hf_{secrets.token_hex(17)}")
        assert auth.identity(None, request) is None
    assert hub.calls == UNKNOWN_TOKENS_PER_CLIENT  # then refused without asking the Hub
    last = forwarded("127.0.0.1", "203.0.113.250", token="hf_another")
    assert auth.caller(None, last).refusal == TOO_MANY_UNKNOWN_TOKENS


def test_rotated_forwarded_addresses_share_one_admin_backoff():
    backoff = Backoff(free=3)
    for n in range(6):
        backoff.failed(client_of(forwarded("127.0.0.1", f"203.0.113.{n}"), Proxies(PRIVATE_NETWORKS)))
    assert backoff.wait_seconds(client_of(forwarded("127.0.0.1", "203.0.113.77"), Proxies(PRIVATE_NETWORKS))) > 0


def test_behind_a_named_proxy_the_address_it_appended_counts_not_the_callers():
    proxy = Proxies(("10.0.0.0/8",))
    assert client_of(forwarded("10.0.0.5", "203.0.113.7"), proxy) == "203.0.113.7"
    # the caller writes its own entries first (and a copy of the header): the proxy's append is the last
    assert client_of(forwarded("10.0.0.5", "6.6.6.6, 10.9.9.9", "203.0.113.7"), proxy) == "203.0.113.7"
    # a chain of trusted proxies: the first untrusted entry from the right
    assert client_of(forwarded("10.0.0.5", "1.1.1.1, 203.0.113.7, 10.2.2.2"), proxy) == "203.0.113.7"
    assert client_of(forwarded("10.0.0.5"), proxy) == "10.0.0.5"  # no header: the peer
    # a peer outside the named proxies is the client whatever it writes
    assert client_of(forwarded("198.51.100.4", "203.0.113.7"), proxy) == "198.51.100.4"
    assert client_of(forwarded("10.0.0.5", "203.0.113.7")) == "10.0.0.5"  # no proxy named: the peer


def test_the_setting_names_addresses_or_ranges_and_refuses_anything_else():
    local = UiSettings.from_env({})
    assert local.trusted_proxies == ()
    named = UiSettings.from_env({"LEADERBOARD_TRUSTED_PROXIES": "10.1.2.3, 172.16.0.0/12, ::1"})
    assert named.trusted_proxies == ("10.1.2.3/32", "172.16.0.0/12", "::1/128")
    assert UiSettings.from_env({**SPACE_ENV, "LEADERBOARD_TRUSTED_PROXIES": "none"}).trusted_proxies == ()
    assert UiSettings.from_env({"LEADERBOARD_TRUSTED_PROXIES": "private"}).trusted_proxies == PRIVATE_NETWORKS
    with pytest.raises(ConfigError, match="LEADERBOARD_TRUSTED_PROXIES"):
        UiSettings.from_env({"LEADERBOARD_TRUSTED_PROXIES": "proxy.example"})


def _uvicorn_client(settings: UiSettings, peer: str, forwarded_for: str) -> str:
    """The client address the app sees behind uvicorn as ui.app.launch configures it: uvicorn's own
    proxy-headers layer (ProxyHeadersMiddleware) on a request from ``peer`` with that X-Forwarded-For."""
    import uvicorn

    from ui.app import uvicorn_options

    seen = {}

    async def app(scope, receive, send):
        seen["client"] = scope["client"][0]

    config = uvicorn.Config(app, **uvicorn_options(settings))
    config.load()
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": "/", "raw_path": b"/", "query_string": b"", "root_path": "", "server": ("127.0.0.1", 7860),
             "client": (peer, 50000), "headers": [(b"x-forwarded-for", forwarded_for.encode())]}  # fmt: skip
    call = config.loaded_app(scope, None, None)  # awaits nothing real: one step runs it (no event loop of its own,
    with pytest.raises(StopIteration):  # which another test's running loop in this thread would refuse)
        call.send(None)
    return seen["client"]


def test_uvicorn_believes_a_forwarded_address_only_from_a_named_proxy():
    """Red team N7: client_of read X-Forwarded-For only from LEADERBOARD_TRUSTED_PROXIES, but uvicorn,
    left at its default forwarded_allow_ips ("127.0.0.1"), had already replaced the peer of any loopback
    connection by the header's last entry: behind a same-host proxy a rotated header made every request a
    new client (30 whoami calls for 30 made-up tokens; no admin backoff). uvicorn is now told the same
    proxies as the app, and none when none are named."""
    local = UiSettings.from_env({})
    assert local.trusted_proxies == ()
    assert [_uvicorn_client(local, "127.0.0.1", f"10.7.0.{i}") for i in range(3)] == ["127.0.0.1"] * 3
    named = UiSettings.from_env({"LEADERBOARD_TRUSTED_PROXIES": "127.0.0.1"})
    assert _uvicorn_client(named, "127.0.0.1", "10.7.0.1") == "10.7.0.1"  # the proxy the deployment names
    assert _uvicorn_client(named, "192.0.2.9", "10.7.0.1") == "192.0.2.9"  # anyone else: their own address
    space = UiSettings.from_env(SPACE_ENV)  # the private ranges a Space's proxy talks from
    assert _uvicorn_client(space, "10.1.2.3", "203.0.113.5") == "203.0.113.5"
    assert _uvicorn_client(space, "127.0.0.1", "203.0.113.5") == "127.0.0.1"
