"""Charts that follow the filters and work by touch (issue 33, item 5), in Chromium at 1440 and
390 px, on a board baked in this process (tests/support/baked_board.py): the scatter's points and
the heatmaps' rows are exactly the rows the table keeps after a search or a filter, the note says
how many are plotted, and a point tapped (a phone), clicked or reached with Tab and Enter shows its
model, team, figures and a link to its model page in a visible panel, no hover needed."""

from __future__ import annotations

import re

import pytest

from leaderboard.baselines import PAPER_SOURCE
from submissions.records import Identity, SubmissionForm
from submissions.request import SubmitRequest
from tests.support.axe import grave_findings
from tests.support.baked_board import ROWS, baked_client, baked_pages, open_board
from tests.support.submissions import board, write_gold, write_submission
from tests.ui.conftest import shot

TEAMS = {"Alpha-1": "Team Red", "Beta-2": "Team Blue", "Gamma-3": "Team Red"}
UNGROUNDED = "Alpha-1"  # submitted without boxes: no mIoU, so not on the scatter
SCATTER = "#scb-scatter"
DETAILS = "#scb-scatter-details"
HEATMAP = "#scb-heat-country"

# The names of the chart marks drawn (in the page and not display:none): a point's model is its
# hover text's first words, a heatmap row's its header's (a paper row's header adds "paper").
VISIBLE_POINTS = """sel => [...document.querySelectorAll(sel + ' g.point')]
    .filter((g) => g.getClientRects().length > 0)
    .map((g) => g.querySelector('title').textContent.split(' (')[0])"""
VISIBLE_HEAT_ROWS = """sel => [...document.querySelectorAll(sel + ' tbody tr')]
    .filter((tr) => tr.getClientRects().length > 0)
    .map((tr) => tr.querySelector('th').firstChild.textContent.trim())"""


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("charts")
    lb = board(root / "data", write_gold(root / "gold.jsonl"))
    for i, (model, team) in enumerate(TEAMS.items()):
        form = SubmissionForm.of(model=model, team=team, visibility="public")
        grounding = "none" if model == UNGROUNDED else "bbox_good"
        path = write_submission(root / f"{i}.jsonl", accuracy=0.5 + 0.1 * i, grounding=grounding, seed=i)
        who = Identity(team.lower().replace(" ", "-"))
        assert lb.submissions.submit(SubmitRequest("scb", path, form, who)).result is not None
    return lb


@pytest.fixture(scope="module")
def client(store):
    with baked_client(store) as served:
        yield served


@pytest.fixture(scope="module")
def pages(browser, client):
    with baked_pages(browser, client) as kept:
        yield kept


@pytest.fixture
def page(pages, width):
    with pages.open(width, has_touch=width == 390) as page:
        yield page


def table_models(page) -> list[str]:
    return sorted(page.locator(f"{ROWS} .model-name .name").all_inner_texts())


def plotted(store, models: list[str]) -> list[str]:
    """Of these models, those with both of the scatter's figures (accuracy and mIoU)."""
    table = store.table("scb", "all")
    both = table[table["overall.acc"].notna() & table["overall.miou"].notna()]
    return sorted(m for m in models if m in set(both["model"]))


def assert_charts_follow(page, store) -> None:
    rows = table_models(page)
    points = sorted(page.evaluate(VISIBLE_POINTS, SCATTER))
    assert points == plotted(store, rows) and len(points) == len(plotted(store, rows))
    assert sorted(page.evaluate(VISIBLE_HEAT_ROWS, HEATMAP)) == rows
    note = page.locator("#scb-scatter-note").inner_text()
    assert f"{len(points)} of {len(rows)} rows plotted" in note, note
    left_out = sorted(set(rows) - set(points))
    for model in left_out:
        assert model in note  # a kept row that is not plotted is named


def wait_rows(page, count: int) -> None:
    page.wait_for_function(
        "n => document.getElementById('summary').textContent.startsWith(`Showing ${n} of`)", arg=count
    )


def test_the_charts_follow_the_search_box(page, store, width):
    open_board(page, "?bench=scb")
    assert len(page.evaluate(VISIBLE_POINTS, SCATTER)) == len(plotted(store, table_models(page)))
    page.locator("#query").fill("Team Red")
    wait_rows(page, 2)
    assert table_models(page) == ["Alpha-1", "Gamma-3"]
    assert_charts_follow(page, store)
    assert page.evaluate(VISIBLE_POINTS, SCATTER) == ["Gamma-3"]  # Alpha-1 has no mIoU: named in the note
    page.locator(HEATMAP).scroll_into_view_if_needed()
    shot(page, f"charts-search-{width}")
    page.locator("#query").fill("")
    wait_rows(page, len(store.table("scb", "all")))
    assert_charts_follow(page, store)


def test_the_charts_follow_a_filter_and_its_deep_link(page, store, width):
    open_board(page, "?bench=scb")
    if not page.locator("#filters-box").evaluate("d => d.open"):
        page.locator("#filters-box summary").click()
    page.locator(f"#source-choice input[value='{PAPER_SOURCE}']").click()  # untick the papers' rows
    wait_rows(page, len(TEAMS))
    assert table_models(page) == sorted(TEAMS)
    assert_charts_follow(page, store)
    open_board(page, "?bench=scb&q=beta")  # a deep link draws the charts filtered too
    wait_rows(page, 1)
    assert_charts_follow(page, store)


def expected_figures(store, model: str, spoken: bool = False) -> list[str]:
    """A row's accuracy and mIoU as the panel shows them (``60.00``), or as the point's name says
    them, like its hover text (``Accuracy 60``)."""
    table = store.table("scb", "all")
    row = table[table["model"] == model].iloc[0]
    acc, miou = round(row["overall.acc"], 2), round(row["overall.miou"], 2)
    return [f"Accuracy {acc:g}", f"mIoU {miou:g}"] if spoken else [f"{acc:.2f}", f"{miou:.2f}"]


def assert_details(page, store, model: str) -> None:
    panel = page.locator(DETAILS)
    assert panel.get_attribute("aria-live") == "polite" and panel.is_visible()
    page.wait_for_function("([sel, m]) => document.querySelector(sel).textContent.includes(m)", arg=[DETAILS, model])
    text = panel.inner_text()
    assert TEAMS.get(model, "(paper)") in text
    for figure in expected_figures(store, model):
        assert figure in text, text
    link = panel.locator("a", has_text=re.compile("model page"))
    assert link.count() == 1 and "model=" in (link.get_attribute("href") or "")


def test_a_tapped_point_shows_its_details_and_opens_its_model_page(page, store, width):
    open_board(page, "?bench=scb&q=gamma")
    wait_rows(page, 1)
    point = page.locator(f"{SCATTER} g.point", has=page.locator("title", has_text="Gamma-3")).filter(visible=True)
    point.scroll_into_view_if_needed()
    if width == 390:
        point.locator(".hit").tap()
    else:
        point.locator(".hit").click()
    assert_details(page, store, "Gamma-3")
    rank = page.locator(ROWS).first.locator(".tabulator-cell[tabulator-field='rank']").inner_text().strip()
    assert f"rank {rank} of 1" in page.locator(DETAILS).inner_text()  # the rank the table shows, among the rows kept
    shot(page, f"charts-details-{width}")
    assert grave_findings(page) == []
    page.locator(DETAILS).locator("a", has_text=re.compile("model page")).click()
    page.wait_for_selector("#model-page:not([hidden]) h2")
    assert "Gamma-3" in page.locator("#model-page h2").inner_text()


def test_tab_reaches_a_point_and_enter_shows_its_details(page, store, width):
    open_board(page, "?bench=scb&q=beta")
    wait_rows(page, 1)
    page.locator("#query").focus()
    for _ in range(80):  # the keyboard alone: through the controls and the table to the chart
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.matches('g.point')"):
            break
    focused = page.evaluate("() => document.activeElement.getAttribute('aria-label') || ''")
    assert focused.startswith("Beta-2"), focused  # the one point left, named for a screen reader
    assert "Team Blue" in focused and all(f in focused for f in expected_figures(store, "Beta-2", spoken=True))
    page.keyboard.press("Enter")
    assert_details(page, store, "Beta-2")
    page.keyboard.press("Tab")  # on to the panel's link: Enter opens the model page
    page.keyboard.press("Enter")
    page.wait_for_selector("#model-page:not([hidden]) h2")
    assert "Beta-2" in page.locator("#model-page h2").inner_text()


def test_the_model_pages_group_bars_are_legible_and_in_sight(page, store, width):
    """The model page's per-group bars (issue 33: "tiny bars"): each at least 12 px tall on a
    track at least 110 px wide that starts in sight (a phone draws it under the group's name),
    labelled with the group's figure, with its 95% interval drawn across it."""
    open_board(page, "?bench=scb&q=gamma")
    wait_rows(page, 1)
    page.locator(ROWS).first.locator(".tabulator-cell[tabulator-field='rank']").click()
    page.wait_for_selector("#model-page:not([hidden]) h2")
    first = page.locator("#model-page .scroll-x table").first
    rows = first.locator("tbody tr")
    assert rows.count() >= 3
    viewport = page.viewport_size["width"]
    for i in range(rows.count()):
        row = rows.nth(i)
        track = row.locator(".bar-track").filter(visible=True)
        assert track.count() == 1  # one bar per group, whichever place the width gives it
        box = track.bounding_box()
        assert box["height"] >= 12 and box["width"] >= 110 and box["x"] + box["width"] <= viewport, box
        accuracy = row.locator("td").nth(1).inner_text().split(" ± ")[0]
        assert row.locator(".bar-value").filter(visible=True).inner_text() == accuracy
        assert row.locator(".bar-ci").filter(visible=True).count() == 1
    first.scroll_into_view_if_needed()
    shot(page, f"charts-model-bars-{width}")


def test_a_chart_is_one_tab_stop_and_the_arrow_keys_move_among_its_points(page, store, width):
    """A thousand points are not a thousand Tabs: Tab reaches the chart's first point shown, the
    arrow keys step through the points shown in rank order (Enter explains each), Tab leaves."""
    open_board(page, "?bench=scb")
    page.locator("#query").focus()
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.matches('g.point')"):
            break
    name = "() => document.activeElement.getAttribute('aria-label') || ''"
    first = page.evaluate(name)
    shown = page.evaluate(
        """sel => [...document.querySelectorAll(sel + ' g.point')].filter((g) => g.getClientRects().length > 0)
            .map((g) => g.getAttribute('aria-label'))""",
        SCATTER,
    )
    assert first == shown[0] and len(shown) >= 3
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(name) == shown[2]
    page.keyboard.press("Enter")
    model = shown[2].split(" (")[0]
    page.wait_for_function("([sel, m]) => document.querySelector(sel).textContent.includes(m)", arg=[DETAILS, model])
    page.keyboard.press("End")
    assert page.evaluate(name) == shown[-1]
    page.keyboard.press("Shift+Tab")  # out of the chart in one step, whichever point had the focus
    assert not page.evaluate("() => document.activeElement.matches('g.point')")
    page.keyboard.press("Tab")
    assert page.evaluate(name) == shown[-1]  # back on the point it left (the one explained last)
