"""The app in a real browser: browse, sort, filter, switch tab, submit (valid and broken),
unlock the maintainer tab and hide a submission. Screenshots go to artifacts/screenshots/."""

from __future__ import annotations

import json

import pytest

from leaderboard import demo
from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from tests.ui.conftest import ADMIN_TOKEN, shot, start_app

UI_MODEL = "UITest-Model-9000"
TIMEOUT = 30_000


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    app = start_app(tmp_path_factory, "browser-app", LEADERBOARD_REFRESH_SECONDS="3")
    yield app
    app.stop()


@pytest.fixture(scope="module")
def page(browser, server):
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(server.url)
    page.wait_for_selector("#scb-table [role=row] >> text=reported in paper")
    yield page
    context.close()


def rows(page, table: str) -> list[str]:
    """The texts of the data rows of a table (the header row skipped)."""
    return [t for t in page.locator(f"#{table} div.virtual-row").all_inner_texts() if t.strip()]


def first_models(page, table: str, n: int = 3) -> list[str]:
    return [r.split("\n")[1].strip() for r in rows(page, table)[:n]]


def open_tab(page, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()


def sort_by(page, table: str, header: str, direction: str) -> None:
    th = page.locator(f"#{table} th[role=columnheader]", has_text=header).first
    th.hover()
    th.locator("button.cell-menu-button").click()
    page.get_by_text(f"Sort {direction}", exact=True).click()


def test_board_loads_with_demo_and_paper_rows(page):
    texts = rows(page, "scb-table")
    assert len(texts) >= 10
    assert any("reported in paper" in t for t in texts)
    assert any("scored here" in t for t in texts)
    assert first_models(page, "scb-table", 1) == ["GPT-o3"]  # server order: overall accuracy descending
    assert "±" in page.locator("#scb-table").inner_text()  # 95% intervals beside the figures
    assert page.locator("#scb-legend").inner_text().startswith("Column groups")
    shot(page, "01-board")


def test_sorting_by_a_column_changes_the_order(page):
    before = first_models(page, "scb-table")
    sort_by(page, "scb-table", "Acc T1", "ascending")
    page.wait_for_function(
        "before => document.querySelector('#scb-table div.virtual-row').innerText.split('\\n')[1].trim() !== before",
        arg=before[0],
    )
    after = first_models(page, "scb-table")
    assert after != before
    # T1 accuracy ascending: the lowest T1 of the demo and paper rows comes first
    assert after[0] == "InstructBLIP"
    shot(page, "02-sorted-by-acc-t1")
    th = page.locator("#scb-table th[role=columnheader]", has_text="Acc T1").first
    th.hover()
    th.locator("button.cell-menu-button").click()
    page.get_by_text("Clear sort", exact=True).click()
    page.wait_for_function(
        "() => document.querySelector('#scb-table div.virtual-row').innerText.split('\\n')[1].trim() === 'GPT-o3'"
    )


def test_filters_narrow_the_rows(page):
    total = len(rows(page, "scb-table"))
    page.locator("#scb-sources label", has_text="reported in paper").click()
    page.wait_for_function("() => !document.querySelector('#scb-table').innerText.includes('reported in paper')")
    scored = rows(page, "scb-table")
    assert 0 < len(scored) < total
    assert all("scored here" in t for t in scored)
    shot(page, "03-filter-scored-here")
    page.fill("#scb-query textarea, #scb-query input", "qwen")
    page.locator("#scb-search").click()
    page.wait_for_function("() => document.querySelectorAll('#scb-table div.virtual-row').length === 1")
    assert "Qwen2.5-VL-7B" in rows(page, "scb-table")[0]
    assert "Showing 1 of" in page.locator("#scb-summary").inner_text()
    # reset for the next tests
    page.fill("#scb-query textarea, #scb-query input", "")
    page.locator("#scb-search").click()
    page.locator("#scb-sources label", has_text="reported in paper").click()
    page.wait_for_function(f"() => document.querySelectorAll('#scb-table div.virtual-row').length >= {total}")


def test_tab_switch_shows_kviscuit(page):
    open_tab(page, "K-Viscuit")
    page.wait_for_selector("#kviscuit-table >> text=Demo-GPT-4o (synthetic)")
    texts = rows(page, "kviscuit-table")
    assert len(texts) >= 10
    header = page.locator("#kviscuit-table thead").inner_text()
    for category in ("Food", "Architecture", "Agriculture"):
        assert category in header
    shot(page, "04-kviscuit")


def submit_file(page, path, model: str, team: str, public: bool = True) -> None:
    open_tab(page, "Submit")
    clear = page.locator("#sub-file button[aria-label='Clear']")
    if clear.count():
        clear.first.click()
    page.locator("#sub-file input[type=file]").set_input_files(str(path))
    page.wait_for_selector(f"#sub-file >> text={path.name}")
    page.fill("#sub-model textarea, #sub-model input", model)
    page.fill("#sub-team textarea, #sub-team input", team)
    if public:  # new submissions are private unless the team chooses otherwise (docs/teams.md)
        page.locator("#sub-visibility label", has_text="public").click()
    page.locator("#sub-btn").click()


def test_valid_submission_shows_result_and_rank(page, tmp_path):
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
    open_tab(page, "Seeing Culture Benchmark (SCB)")
    page.wait_for_selector(f"#scb-table >> text={UI_MODEL}")
    assert first_models(page, "scb-table", 1) == [UI_MODEL]
    shot(page, "06-ranked-in-table")


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


def test_maintainer_unlock_and_hide(page):
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
    shot(page, "08-maintainers")
    page.locator("#hide-btn").click()
    page.wait_for_selector("#hide-msg >> text=Hidden")
    open_tab(page, "Seeing Culture Benchmark (SCB)")
    page.wait_for_function(f"() => !document.querySelector('#scb-table').innerText.includes('{UI_MODEL}')")
    assert first_models(page, "scb-table", 1) == ["GPT-o3"]
    shot(page, "09-hidden")


def test_downloads_and_about(page):
    open_tab(page, "About")
    about = page.locator("#about").inner_text()
    assert "1,000 resamples" in about and "pycocotools" in about and "xyxy_1000" in about
    with page.expect_download() as info:
        page.get_by_role("button", name="scb: example submission").click()
    first = info.value.path().read_text().splitlines()[0]
    assert json.loads(first)["answer"] == "A"
    shot(page, "10-about")
    open_tab(page, "Seeing Culture Benchmark (SCB)")
    with page.expect_download() as info:
        page.locator("#scb-csv").click()
    csv = info.value.path().read_text()
    assert csv.startswith("rank,rank_worst,model,team")  # the rank range (leaderboard.ranks) beside the rank
    assert "GPT-o3" in csv


def test_a_change_made_elsewhere_shows_up_without_a_restart(page, server):
    """Like the maintainer CLI or a second replica: another process hides a row in the store;
    the scheduler refreshes the catalog and the timer redraws the open page."""
    open_tab(page, "Seeing Culture Benchmark (SCB)")
    target = "Demo-InternVL3-8B (synthetic)"
    page.wait_for_selector(f"#scb-table >> text={target}")
    other = Leaderboard(Settings(data_dir=server.data_dir))
    state = next(s for s in other.catalog.all("scb") if s.meta.model == target)
    assert other.set_hidden(state.meta.id, True, "cli-test")
    page.wait_for_function(
        f"() => !document.querySelector('#scb-table').innerText.includes('{target}')", timeout=30_000
    )
