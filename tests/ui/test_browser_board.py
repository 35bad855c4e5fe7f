"""The board in Chromium at 1440 px and 390 px, on one app started with the toy plugin: a third
benchmark's tab with no production edit, pinned Rank/Model, deep links (restored on load and
kept in the address bar), the model page from a row click and from its URL, the compare view,
and the mobile layout. Screenshots go to artifacts/screenshots/ (docs/ keeps two of them)."""

from __future__ import annotations

import importlib

import pytest

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from scoring.benchmarks import BENCHMARKS, register, unregister
from tests.ui.conftest import shot, start_app

TIMEOUT = 60_000
PLUGIN = "tests.toy_benchmark"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    app = start_app(tmp_path_factory, "board-app", LEADERBOARD_PLUGINS=PLUGIN)
    yield app
    app.stop()


@pytest.fixture(scope="module")
def ids(server):
    """Row id by model name, read from the app's own store (as a visitor's link would carry it).
    The plugin registers on its first import, which another test module may have done (and undone
    with unregister): register its declaration here, and take it out again after."""
    module = importlib.import_module(PLUGIN)
    added = "toy" not in BENCHMARKS
    register(module.TOY)
    try:
        lb = Leaderboard(Settings(data_dir=server.data_dir, plugins=(PLUGIN,)))
        yield {r.model: r.row_id for b in ("scb", "kviscuit", "toy") for r in lb.board(b).rows}
    finally:
        if added:
            unregister("toy")


@pytest.fixture(scope="module")
def desktop(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    yield context
    context.close()


def open_page(context, url: str, ready: str):
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(url)
    page.wait_for_selector(ready)
    return page


def test_the_toy_plugin_is_a_board_tab_with_its_rows(desktop, server):
    page = open_page(desktop, server.url, "#scb-table [role=row] >> text=reported in paper")
    page.get_by_role("tab", name="Toy benchmark", exact=True).click()
    page.wait_for_selector("#toy-table div.virtual-row >> text=Toy-Alpha (synthetic)")
    assert "Toy-Beta (synthetic)" in page.locator("#toy-table").inner_text()
    assert "12 three-way questions" in page.locator("body").inner_text()  # the header lists registered benchmarks
    shot(page, "board-toy")
    page.close()


def test_rank_and_model_stay_pinned_when_scrolling_right(desktop, server):
    page = open_page(desktop, server.url, "#scb-table [role=row] >> text=reported in paper")
    rank, model = (
        page.locator('#scb-table [role=gridcell][data-col="0"]').first,
        page.locator('#scb-table [role=gridcell][data-col="1"]').first,
    )
    before = (rank.bounding_box()["x"], model.bounding_box()["x"])
    page.evaluate("() => { document.querySelector('#scb-table .virtual-table-viewport').scrollLeft = 3000; }")
    page.wait_for_timeout(300)
    assert (rank.bounding_box()["x"], model.bounding_box()["x"]) == before
    assert page.locator("#scb-table").get_by_text("Links").is_visible()  # the far right is in view
    page.locator("#scb-table").scroll_into_view_if_needed()
    shot(page, "board-pinned")
    page.close()


def test_a_deep_link_restores_the_view_and_the_address_follows_changes(desktop, server):
    url = f"{server.url}/?bench=kviscuit&view=category&sources=scored%20here&q=gpt%3B%20gemini"
    page = open_page(desktop, url, "#kviscuit-table div.virtual-row >> text=Demo-GPT-4o (synthetic)")
    page.wait_for_function("() => !document.querySelector('#kviscuit-table').innerText.includes('reported in paper')")
    assert page.locator("#kviscuit-view input[value=category]").is_checked()
    assert page.locator("#kviscuit-query textarea, #kviscuit-query input").input_value() == "gpt; gemini"
    rows = [t for t in page.locator("#kviscuit-table div.virtual-row").all_inner_texts() if t.strip()]
    assert rows and all("gpt" in t.lower() or "gemini" in t.lower() for t in rows)
    assert rows[0].split("\n")[0].strip().startswith("1")  # ranks within the shown rows
    page.locator("#kviscuit-view label", has_text="By type").click()
    page.wait_for_function("() => window.location.search.includes('view=type')")
    assert "q=gpt" in page.evaluate("() => window.location.search")
    shot(page, "board-deep-link")
    page.close()


def test_a_row_click_opens_the_model_page_and_its_url_reopens_it(desktop, server, ids):
    page = open_page(desktop, server.url, "#scb-table [role=row] >> text=reported in paper")
    page.locator("#scb-table [role=gridcell]", has_text="Demo-Gemini-2.5-Pro (synthetic)").first.click()
    page.wait_for_selector("#model-page >> text=Submission history")
    text = page.locator("#model-page").inner_text()
    assert "By country" in text and "Scored on gold" in text and "[" in text  # intervals beside figures
    assert f"model={ids['Demo-Gemini-2.5-Pro (synthetic)']}" in page.evaluate("() => window.location.search")
    shot(page, "model-page")
    again = open_page(desktop, page.url, "#model-page >> text=Submission history")
    assert "Demo-Gemini-2.5-Pro (synthetic)" in again.locator("#model-page").inner_text()
    again.close()
    page.close()


def test_the_compare_view_from_its_url(desktop, server, ids):
    pair = f"{ids['Demo-Gemini-2.5-Pro (synthetic)']},{ids['Demo-InternVL3-8B (synthetic)']}"
    done = "#cmp-result >> text=from the published intervals"
    page = open_page(desktop, f"{server.url}/?bench=scb&compare={pair}", done)
    assert "95% interval" in page.locator("#cmp-result").inner_text()
    shot(page, "compare")
    page.close()


def test_mobile_layout_keeps_the_board_and_the_scatter_usable(browser, server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    page = open_page(context, server.url, "#scb-table [role=row] >> text=reported in paper")
    table = page.locator("#scb-table").bounding_box()
    assert table["width"] <= 390
    page.locator("#scb-scatter").scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    plot = page.locator("#scb-scatter svg, #scb-scatter canvas").first  # the drawn plot, not its box
    assert plot.bounding_box()["width"] > 250  # not the 35 px the review saw
    assert "Not plotted" in page.locator("#scb-scatter-note").inner_text()
    shot(page, "mobile-scatter")
    page.locator("#scb-table").scroll_into_view_if_needed()
    shot(page, "mobile-board")
    context.close()


def test_kviscuit_board_shows_the_strict_figure_and_marks_rows_read_leniently(desktop, server):
    """issue 19: a demo row whose file has responses ("The answer is (B).") is read leniently; the
    board shows Acc strict and Read leniently beside Acc, and marks the row after its name."""
    page = open_page(desktop, f"{server.url}/?bench=kviscuit", "#kviscuit-table [role=row] >> text=reported in paper")
    table = page.locator("#kviscuit-table")
    assert table.get_by_text("Acc strict", exact=True).count() >= 1
    assert table.get_by_text("Read leniently", exact=True).count() >= 1
    marks = table.locator(".lenient-mark")
    assert marks.count() >= 1
    assert "responses read by rules looser" in marks.first.get_attribute("title")
    shot(page, "board-kviscuit-strict")
    page.close()


def test_the_lenient_mark_shows_on_a_phone(browser, server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = open_page(context, f"{server.url}/?bench=kviscuit", "#kviscuit-table [role=row] >> text=reported in paper")
    mark = page.locator("#kviscuit-table .lenient-mark").first
    mark.scroll_into_view_if_needed()
    assert mark.is_visible()
    shot(page, "board-kviscuit-strict-390")
    context.close()
