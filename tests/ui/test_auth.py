"""ui.auth: who acts (local identity, OAuth profile, bearer token) and the bounded token cache."""

from __future__ import annotations

from leaderboard.config import UiSettings
from tests.ui.fakes import Profile, Request, bearer
from ui.auth import Auth, BoundedTtlCache

ON_SPACE = UiSettings(oauth=True, maintainers=("boss",), admin_token="t0ken")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Hub:
    """Counts whoami calls; knows one token."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, token: str) -> str | None:
        self.calls.append(token)
        return "scripter" if token == "good" else None


def test_offline_everyone_is_the_local_user():
    auth = Auth(UiSettings(local_user="me"))
    identity = auth.identity(None, Request())
    assert (identity.username, identity.source, identity.is_maintainer) == ("me", "local", False)
    assert "LEADERBOARD_LOCAL_USER" in auth.greeting()


def test_on_a_space_the_profile_or_the_token_says_who():
    hub = Hub()
    auth = Auth(ON_SPACE, username_of_token=hub)
    assert auth.identity(None, Request()) is None
    assert auth.identity(Profile("boss"), Request()).is_maintainer
    scripted = auth.identity(None, bearer("good"))
    assert (scripted.username, scripted.source, scripted.is_maintainer) == ("scripter", "huggingface", False)
    assert auth.identity(None, bearer("forged")) is None
    assert "sign in" in auth.greeting(None) and "boss" in auth.greeting(Profile("boss"))


def test_token_answers_are_cached_and_expire():
    hub, clock = Hub(), Clock()
    auth = Auth(ON_SPACE, username_of_token=hub, tokens=BoundedTtlCache(8, max_age=600, clock=clock))
    for _ in range(3):
        auth.bearer_user(bearer("good"))
        auth.bearer_user(bearer("forged"))  # an invalid token is cached too
    assert hub.calls == ["good", "forged"]
    clock.now = 600
    auth.bearer_user(bearer("good"))
    assert hub.calls == ["good", "forged", "good"]


def test_the_token_cache_is_bounded_in_size():
    cache = BoundedTtlCache(3, max_age=600, clock=Clock())
    for i in range(10):
        cache.store(f"k{i}", None)
    assert len(cache) == 3
    assert cache.lookup("k0") == (False, None) and cache.lookup("k9") == (True, None)


def test_maintainers_by_account_or_admin_token():
    auth = Auth(ON_SPACE)
    assert auth.is_maintainer(Profile("boss")) and not auth.is_maintainer(Profile("eve"))
    assert not auth.is_maintainer(None)
    assert auth.admin_token_matches("t0ken")
    assert not auth.admin_token_matches("t0ke") and not auth.admin_token_matches("")
    assert not Auth(UiSettings()).admin_token_matches("")  # no token configured: nothing opens
    assert not Auth(UiSettings(maintainers=("boss",))).is_maintainer(Profile("boss"))  # offline: the token only
