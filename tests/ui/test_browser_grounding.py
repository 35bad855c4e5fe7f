"""The grounding format in Chromium, as a team would use it: a file of raw Gemini texts sent with
the form's *Grounding format* set to gemini is read (validate only: its one unparsed grounding is
listed by line and text), the same file without it is refused with one whole-file error, and the
field hides for K-Viscuit. At 1440 px and at 390 px; screenshots go to ``BROWSER_SHOTS`` or a tmp
folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from tests.support import demo
from tests.support.app_server import AppServer
from tests.support.scoring import with_options
from tests.support.submissions import small_gold
from tests.ui.test_browser_teams import DESKTOP, PHONE, choose, fill_form, open_page, send

pytest.importorskip("playwright")


@pytest.fixture(scope="module")
def scb_gold() -> list[dict]:
    return with_options(small_gold(), seed=4)


@pytest.fixture(scope="module")
def app(tmp_path_factory, scb_gold) -> Iterator[AppServer]:
    data = tmp_path_factory.mktemp("grounding-browser") / "data"
    golds = Leaderboard(Settings(data_dir=data, demo=False))
    golds.corrections.add_gold("scb", demo.write_jsonl(data.parent / "scb-gold.jsonl", scb_gold), "maintainer")
    golds.corrections.add_gold(
        "kviscuit", demo.write_jsonl(data.parent / "kv-gold.jsonl", demo.kviscuit_gold(0)), "maintainer"
    )
    server = AppServer(data, log=data.parent / "app.log", LEADERBOARD_LOCAL_USER="carol", LEADERBOARD_DEMO="0")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def raw_file(scb_gold, tmp_path_factory) -> Path:
    lines = [
        {
            "question_id": r["question_id"],
            "answer": r["answer"],
            "grounding_response": '[{"box_2d": [80, 120, 860, 900]}]',
        }
        for r in scb_gold
    ]
    lines[2]["grounding_response"] = "The artifact is not visible."
    return demo.write_jsonl(tmp_path_factory.mktemp("raw") / "gemini-raw.jsonl", lines)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1440", "390"])
def test_the_form_reads_raw_texts_in_the_chosen_grounding_format(browser, app, raw_file, shots, viewport):
    page = open_page(browser, app, viewport)
    try:
        fill_form(page, raw_file, "Gemini-raw", "Carol Lab")
        page.locator("#sub-validate input[type=checkbox]").check()
        refused = send(page, "error")
        assert "error" in refused.lower()
        errors = page.locator("#sub-errors")
        errors.wait_for(state="visible")
        assert "no grounding_format is declared" in errors.inner_text()
        choose(page, "sub-grounding-fmt", "gemini:")
        answer = send(page, "Unparsed groundings")
        assert "line 3" in answer and "The artifact is not visible." in answer and "1 unparsed groundings" in answer
        page.screenshot(path=str(shots / f"grounding-format-{viewport['width']}.png"), full_page=True)
        choose(page, "sub-bench", "K-Viscuit")
        page.locator("#sub-grounding-fmt").wait_for(state="hidden")
    finally:
        page.context.close()
