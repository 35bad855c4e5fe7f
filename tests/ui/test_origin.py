"""ui.origin without a server: the root from configuration, the origins that may act, the guard
and the one Gradio internal it replaces (pinned to Gradio 6.31.0)."""

from __future__ import annotations

import logging

import gradio
import pytest
from gradio import route_utils
from starlette.datastructures import Headers

from leaderboard.config import ConfigError, Settings, UiSettings
from tests.support import own_loop
from ui.app import mount_options
from ui.origin import PINNED_GRADIO, OriginGuard, PublicOrigin, origin_of, restrict_gradio_cors


def test_the_public_url_comes_from_the_setting_else_the_space_host_else_none():
    assert Settings.from_env({}).ui.public_url is None
    assert Settings.from_env({"SPACE_HOST": "org-leaderboard.hf.space"}).ui.public_url == (
        "https://org-leaderboard.hf.space"
    )
    custom = {"SPACE_HOST": "org-leaderboard.hf.space,board.example.org"}  # a custom domain comes second
    assert Settings.from_env(custom).ui.public_url == "https://org-leaderboard.hf.space"
    chosen = {"SPACE_HOST": "org-leaderboard.hf.space", "LEADERBOARD_PUBLIC_URL": "https://board.example.org/"}
    assert Settings.from_env(chosen).ui.public_url == "https://board.example.org"
    for bad in ("javascript:alert(1)", "https://board.example.org/?x=1", "https://u@evil.example", "https://"):
        with pytest.raises(ConfigError, match="LEADERBOARD_PUBLIC_URL"):
            Settings.from_env({"LEADERBOARD_PUBLIC_URL": bad})


def test_the_root_is_the_configured_url_or_the_apps_own_address():
    public = PublicOrigin.of(UiSettings(public_url="https://org-leaderboard.hf.space"), 7860)
    assert public.root == "https://org-leaderboard.hf.space"
    assert public.allows("https://org-leaderboard.hf.space") and public.allows(None)
    for foreign in ("https://evil.example", "null", "", "http://org-leaderboard.hf.space", "http://localhost:7860"):
        assert not public.allows(foreign), foreign
    assert not public.allows("https://org-leaderboard.hf.space, https://evil.example")
    local = PublicOrigin.of(UiSettings(server_name="0.0.0.0"), 7861)
    assert local.root == "http://127.0.0.1:7861"
    assert local.allows("http://localhost:7861") and local.allows("http://127.0.0.1:7861")
    assert not local.allows("http://localhost:7862") and not local.allows("https://evil.example")
    assert origin_of("HTTPS://Board.Example.org:443/path") == "https://board.example.org"


def test_launch_pins_the_root_and_puts_the_guard_first(monkeypatch):
    monkeypatch.setattr(
        route_utils.CustomCORSMiddleware, "is_valid_origin", route_utils.CustomCORSMiddleware.is_valid_origin
    )
    options = mount_options(UiSettings(public_url="https://org-leaderboard.hf.space", server_port=7999), 1024)
    assert options["root_path"] == "https://org-leaderboard.hf.space" and options["server_port"] == 7999
    assert options["app_kwargs"]["middleware"][0].cls is OriginGuard


def call(guard: OriginGuard, method: str, path: str, origin: str | None, kind: str = "http") -> list[dict]:
    headers = [(b"host", b"org-leaderboard.hf.space")] + ([(b"origin", origin.encode())] if origin is not None else [])
    scope = {"type": kind, "method": method, "path": path, "headers": headers}
    sent: list[dict] = []
    reached: list[str] = []

    async def app(scope, receive, send):
        reached.append(scope["path"])

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request"}

    guard.app = app
    own_loop.run(guard(scope, receive, send))
    return reached or sent


def test_the_guard_refuses_foreign_writes_and_lets_reads_and_scripts_through():
    guard = OriginGuard(None, PublicOrigin.of(UiSettings(public_url="https://org-leaderboard.hf.space"), 7860))
    for path in ("/gradio_api/queue/join", "/gradio_api/run/predict", "/gradio_api/upload", "/gradio_api/call/submit"):
        refused = call(guard, "POST", path, "https://evil.example")
        assert refused[0]["status"] == 403 and b"Cross-site request refused" in refused[1]["body"]
        assert call(guard, "POST", path, None) == [path]  # gradio_client sends no Origin
        assert call(guard, "POST", path, "https://org-leaderboard.hf.space") == [path]
    assert call(guard, "GET", "/config", "https://evil.example") == ["/config"]  # public reads stay readable
    assert call(guard, "DELETE", "/x", "null")[0]["status"] == 403
    assert call(guard, "GET", "/ws", "https://evil.example", kind="websocket") == [
        {"type": "websocket.close", "code": 1008}
    ]


def test_gradio_cors_reflects_foreign_origins_until_replaced_and_only_on_the_pinned_version(monkeypatch, caplog):
    """The internal we replace: on 6.31.0, ``is_valid_origin(headers)`` says whether Gradio
    echoes the Origin with credentials, and it says yes to any Origin when Host is not local."""
    cors = route_utils.CustomCORSMiddleware
    monkeypatch.setattr(cors, "is_valid_origin", cors.is_valid_origin)  # undone after the test
    middleware = cors(None)
    evil = Headers({"origin": "https://evil.example", "host": "org-leaderboard.hf.space"})
    own = Headers({"origin": "https://org-leaderboard.hf.space", "host": "org-leaderboard.hf.space"})
    assert gradio.__version__ == PINNED_GRADIO and middleware.is_valid_origin(evil)  # what attacks.md #4 saw
    origin = PublicOrigin.of(UiSettings(public_url="https://org-leaderboard.hf.space"), 7860)
    with caplog.at_level(logging.WARNING, logger="ui.origin"):
        assert not restrict_gradio_cors(origin, version="6.32.0")
    assert "is not 6.31.0" in caplog.text and middleware.is_valid_origin(evil)
    assert restrict_gradio_cors(origin)
    assert not middleware.is_valid_origin(evil) and middleware.is_valid_origin(own)
