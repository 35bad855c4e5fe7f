"""Start the real app (``python app.py``) on 127.0.0.1 at a free port, one server per module."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.app_server import ADMIN_TOKEN, AppServer
from tests.support.browser_pages import Pages

__all__ = ["ADMIN_TOKEN", "SCREENSHOTS", "pages", "shot", "start_app"]

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


def start_app(tmp_path_factory, name: str, **env: str) -> AppServer:
    """A fresh app on its own data folder (demo data unless ``LEADERBOARD_DEMO=0``)."""
    return AppServer(tmp_path_factory.mktemp(name) / "data", **env).start()


@pytest.fixture(scope="module")
def pages(browser):
    """A fresh page per test in a context kept for the module (tests/support/browser_pages.py)."""
    kept = Pages(browser)
    yield kept
    kept.close()


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
