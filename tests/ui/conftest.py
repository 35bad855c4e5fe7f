"""The browser tests' shared fixtures: the real app (``python app.py``) on 127.0.0.1 at a free port,
the widths the pages are tested at, and a fresh page per test at each width.

``server`` is the app on the demo data, one per test process for every module that only reads it
(its pages, its files, its questions); a module that writes to its store, changes its settings or
needs data of its own defines its own ``server`` (``app_fixture``, or a fixture of its own)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.app_server import ADMIN_TOKEN, AppServer
from tests.support.baked_board import WIDTHS
from tests.support.browser_pages import Pages

__all__ = [
    "ADMIN_TOKEN", "SCREENSHOTS", "WIDTHS", "app_fixture", "page", "pages", "server", "shot", "shots", "start_app",
    "width",
]  # fmt: skip

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


def start_app(tmp_path_factory, name: str, **env: str) -> AppServer:
    """A fresh app on its own data folder (demo data unless ``LEADERBOARD_DEMO=0``)."""
    return AppServer(tmp_path_factory.mktemp(name) / "data", **env).start()


def app_fixture(name: str, **env: str):
    """A module's own ``server``: a fresh app with these settings, started once for the module."""

    @pytest.fixture(scope="module")
    def server(tmp_path_factory):
        app = start_app(tmp_path_factory, name, **env)
        yield app
        app.stop()

    return server


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The app on the demo data, shared by the modules of a test process that only read it."""
    app = start_app(tmp_path_factory, "demo-app")
    yield app
    app.stop()


@pytest.fixture(params=list(WIDTHS), scope="module")
def width(request) -> int:
    """1440 and 390 px: each test of a module that asks runs at both."""
    return request.param


@pytest.fixture(scope="module")
def pages(browser):
    """A fresh page per test in a context kept for the module (tests/support/browser_pages.py)."""
    kept = Pages(browser)
    yield kept
    kept.close()


@pytest.fixture
def page(pages, width):
    """A fresh page at ``width`` (its timeout: browser_pages.TIMEOUT)."""
    w, h = WIDTHS[width]
    with pages.open(viewport={"width": w, "height": h}) as page:
        yield page


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    """Where a module's screenshots go: ``BROWSER_SHOTS`` if set (to look at them), else a temporary folder."""
    folder = Path(os.environ.get("BROWSER_SHOTS") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


@pytest.fixture
def lb(tmp_path: Path):
    """A local board on the small SCB test gold (140 questions), no browser."""
    from tests.support.submissions import board, write_gold

    return board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))
