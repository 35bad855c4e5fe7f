"""The app in a real browser: submit (valid and broken) on the Gradio page, see the row on the board
page, unlock the maintainer tab and hide it, About's downloads and the board's CSV, and a change made
by another process reaching an open board page. Screenshots go to artifacts/screenshots/. (The board
page's own views: tests/ui/test_browser_board.py.)"""

from __future__ import annotations

import json

import pytest

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from tests.support import demo
from tests.support.file_field import choose_file
from tests.ui.conftest import ADMIN_TOKEN, app_fixture, shot

UI_MODEL = "UITest-Model-9000"
TIMEOUT = 30_000


server = app_fixture("browser-app", LEADERBOARD_REFRESH_SECONDS="3")


@pytest.fixture(scope="module")
def page(browser, server):
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(server.url + "/app?tab=submit")
    page.get_by_role("tab", name="Submit", selected=True).wait_for()
    yield page
    context.close()


@pytest.fixture(scope="module")
def board(browser, server):
    """A second tab with the board page open all along (it learns of new results by itself)."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(server.url + "/")
    page.wait_for_selector("#board-table .tabulator-row")
    yield page
    context.close()


def open_tab(page, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()


def board_models(board) -> list[str]:
    return board.locator("#board-table .tabulator-row .model-name .name").all_inner_texts()


def submit_file(page, path, model: str, team: str, public: bool = True) -> None:
    open_tab(page, "Submit")
    choose_file(page, "#sub-file", path)
    page.fill("#sub-model textarea, #sub-model input", model)
    page.fill("#sub-team textarea, #sub-team input", team)
    if public:  # new submissions are private unless the team chooses otherwise (docs/teams.md)
        page.locator("#sub-visibility label", has_text="public").click()
    page.locator("#sub-btn").click()


def test_valid_submission_shows_result_and_rank(page, board, tmp_path):
    gold = demo.scb_gold(0)  # what seed_demo loaded
    lines = demo.scb_submission(gold, 0.9, "bbox_good", seed=7, box_format="xyxy")
    path = demo.write_jsonl(tmp_path / "ui-valid.jsonl", lines)
    submit_file(page, path, UI_MODEL, "UI team")
    result = page.locator("#sub-result")
    page.wait_for_selector("#sub-result >> text=Submission id", timeout=120_000)
    text = result.inner_text()
    assert "Scored" in text and "Rank 1" in text
    assert "Accuracy" in text and "mIoU" in text
    assert "Quota" in page.locator("#quota").inner_text()
    shot(page, "05-submit-result")
    board.wait_for_selector(f"#board-table .tabulator-row >> text={UI_MODEL}")  # the open board page too
    assert board_models(board)[0] == UI_MODEL
    shot(board, "06-ranked-in-table")


def test_broken_submission_lists_errors_with_line_numbers(page, tmp_path):
    path = tmp_path / "ui-broken.jsonl"
    path.write_text(
        "\n".join(
            [
                '{"question_id": "scb-00000", "answer": "A"}',
                "this is not json",
                '{"question_id": "scb-00001", "answer": "E"}',
                json.dumps({"question_id": "no-such-question", "answer": "B"}),
            ]
        )
        + "\n"
    )
    submit_file(page, path, "UITest-Broken", "UI team")
    errors = page.locator("#sub-errors")
    errors.wait_for(state="visible", timeout=60_000)
    page.wait_for_selector("#sub-errors >> text=no-such-question")
    table = errors.inner_text()
    for line in ("2", "3", "4"):
        assert line in table
    assert "error" in page.locator("#sub-result").inner_text().lower()
    shot(page, "07-broken-errors")


def test_maintainer_unlock_and_hide(page, board):
    open_tab(page, "Maintainers")
    assert not page.locator("#admin-panel").is_visible()
    page.fill("#admin-token input, #admin-token textarea", "wrong")
    page.locator("#admin-unlock").click()
    page.wait_for_selector("#admin-msg >> text=Wrong token")
    assert not page.locator("#admin-panel").is_visible()
    page.fill("#admin-token input, #admin-token textarea", ADMIN_TOKEN)
    page.locator("#admin-unlock").click()
    page.wait_for_selector("#gold-info >> text=Current gold")
    assert "UITest-Broken" in page.locator("#rejected").inner_text()  # rejected uploads with their errors
    page.locator("#hide-pick input").click()
    page.locator("#hide-pick input").fill(UI_MODEL)
    page.locator("#hide-pick [role=option]", has_text=UI_MODEL).first.click()
    page.locator("#hide-pick [role=listbox]").wait_for(state="hidden")
    page.wait_for_selector(f"#hide-msg >> text={UI_MODEL}")  # what is picked, quoted by the confirmation
    shot(page, "08-maintainers")
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.locator("#hide-btn").click()
    page.wait_for_selector("#hide-msg >> text=Nothing was hidden (cancelled).")
    assert "Hide this submission" in asked[0] and UI_MODEL in asked[0] and "scb" in asked[0]
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#hide-btn").click()
    page.wait_for_selector("#hide-msg >> text=Hidden")
    board.wait_for_function(f"() => !document.querySelector('#board-table').innerText.includes('{UI_MODEL}')")
    assert board_models(board)[0] == "GPT-o3"
    shot(board, "09-hidden")


def test_downloads_and_about(page, board):
    open_tab(page, "About")
    page.wait_for_selector("#about >> text=1,000 resamples")  # the tab's text arrives after the click
    about = page.locator("#about").inner_text()
    assert "1,000 resamples" in about and "pycocotools" in about and "xyxy_1000" in about
    with page.expect_download() as info:
        page.get_by_role("button", name="scb: example submission").click()
    first = info.value.path().read_text().splitlines()[0]
    assert json.loads(first)["answer"] == "A"
    shot(page, "10-about")
    with board.expect_download() as info:  # the rows and columns shown, as the table holds them
        board.locator("#download-csv").click()
    csv = info.value.path().read_text()
    assert csv.startswith('"Rank","Model","Team","Model type","Source","Acc"') and "GPT-o3" in csv


def test_a_change_made_elsewhere_shows_up_without_a_restart(board, server):
    """Like the maintainer CLI or a second replica: another process hides a row in the store;
    the scheduler refreshes the catalog, the board page re-bakes and the open page redraws."""
    target = "Demo-InternVL3-8B (synthetic)"
    board.wait_for_selector(f"#board-table >> text={target}")
    other = Leaderboard(Settings(data_dir=server.data_dir))
    state = next(s for s in other.catalog.all("scb") if s.meta.model == target)
    assert other.moderation.set_hidden(state.meta.id, True, "cli-test")
    board.wait_for_function(
        f"() => !document.querySelector('#board-table').innerText.includes('{target}')", timeout=30_000
    )
