"""The board's context and onboarding in Chromium, each at 1440 px and at 390 px (a phone), on one
app: the BibTeX copy buttons, the heatmaps of every metric with their group sizes, the labelled
scatter, multi-term search, "last updated" and the gold version (on the board page), the Submit
tab's guidance, tab switches in the Gradio page's address, and the confirmation before "Rescore all".
(The column chooser and the board's own Back/Forward: tests/ui/test_browser_board.py.)
Screenshots go to artifacts/screenshots/ (``context-<what>-<width>.png``)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from scoring.benchmarks import BENCHMARKS, get_benchmark
from scoring.benchmarks.base import Heatmap
from tests.ui.conftest import ADMIN_TOKEN, app_fixture, shot
from ui import display

TIMEOUT = 60_000
SCB = get_benchmark("scb")
LAYOUTS = {
    "1440": {"viewport": {"width": 1440, "height": 1000}},
    "390": {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True},
}
BOARD_READY = "#board-table .tabulator-row >> text=reported in paper"
TAB_IDS = {"Submit": "submit", "My submissions": "mine", "About": "about", "Maintainers": "admin"}


server = app_fixture("context-app")  # its own: a test rescores its store


@pytest.fixture(scope="module")
def store(server):
    """The app's own store, read as another process would (the figures the page must show)."""
    return Leaderboard(Settings(data_dir=server.data_dir))


@pytest.fixture(scope="module", params=list(LAYOUTS))
def context(request, browser):
    context = browser.new_context(**LAYOUTS[request.param], permissions=["clipboard-read", "clipboard-write"])
    context.width = request.param
    yield context
    context.close()


@pytest.fixture(scope="module")
def page(context, server):
    """One page per width, shared by the tests (each leaves the board as it found it)."""
    page = open_page(context, server.url)
    yield page
    page.close()


def root(page) -> str:
    parts = urlparse(page.url)
    return f"{parts.scheme}://{parts.netloc}"


def board(page) -> None:
    """Back to the SCB board page with its defaults (a test before may have left a Gradio tab open)."""
    if urlparse(page.url).path != "/" or search(page) != {"bench": "scb"}:
        page.goto(root(page) + "/?bench=scb")
        page.wait_for_selector(BOARD_READY)


def open_page(context, url: str, ready: str = BOARD_READY):
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(url)
    page.wait_for_selector(ready)
    return page


def look(page, context, what: str, target: str | None = None) -> None:
    if target:
        page.locator(target).first.scroll_into_view_if_needed()
        page.wait_for_timeout(200)
    shot(page, f"context-{what}-{context.width}")


def open_tab(page, name: str) -> None:
    """A Gradio tab: from the board, its link (``app?tab=<id>``); on the Gradio page a click on the
    tab (on a phone most tabs sit in the "More tabs" menu)."""
    if urlparse(page.url).path != "/app":
        page.goto(f"{root(page)}/app?tab={TAB_IDS[name]}")
        page.get_by_role("tab", name=name, selected=True).wait_for()
        return
    tab = page.get_by_role("tab", name=name, exact=True)
    if tab.count() and tab.first.is_visible():
        tab.first.click()
        return
    page.get_by_role("button", name="More tabs").click()
    page.locator("#main-tabs .overflow-dropdown button", has_text=name).first.click()


def search(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def bibtex_blocks() -> list[str]:
    """Each benchmark's one citation (its folder's citation.bib), which About shows a block each."""
    return [b.citation + "\n" for b in BENCHMARKS.values() if b.citation]


def test_each_bibtex_copy_button_copies_its_paper(context, page):
    open_tab(page, "About")
    page.wait_for_selector("#about >> text=Citation")
    blocks = bibtex_blocks()
    assert len(blocks) == 2  # both papers
    for block in blocks:
        key = block.split(",")[0]  # "@inproceedings{satar-etal-2025-seeing"
        wrap = page.locator("#about .code_wrap", has_text=key)
        wrap.scroll_into_view_if_needed()
        wrap.locator("button.copy_code_button").click()
        page.wait_for_function("k => navigator.clipboard.readText().then(t => t.startsWith(k))", arg=key)
        assert page.evaluate("() => navigator.clipboard.readText()").strip() == block.strip()
    look(page, context, "bibtex", None)


def test_heatmaps_show_every_metric_with_group_sizes(context, page, store):
    board(page)
    sizes = store.group_sizes("scb")
    heatmaps = [p for p in display.drawn_plots(SCB) if isinstance(p, Heatmap)]
    assert {p.metric for p in heatmaps} == set(SCB.view_metrics)  # accuracy and mIoU for each grouping
    for plot in heatmaps:
        suffix = "" if plot.metric == SCB.primary_metric else f"-{plot.metric}"
        heat = page.locator(f"#scb-heat-{plot.grouping}{suffix}")  # drawn over every row of the board
        heat.scroll_into_view_if_needed()
        assert heat.locator("caption").inner_text() == display.plot_title(SCB, plot)
        heads = heat.locator("thead th").all_inner_texts()[1:]
        assert len(heads) == len(SCB.grouping(plot.grouping).order)
        for head, label in zip(heads, SCB.grouping(plot.grouping).order, strict=True):
            assert head.endswith(f"{sizes[plot.grouping][label]:,} questions"), head  # a link to them (issue 44)
        cell = heat.locator("tbody td:not(.missing)").first.inner_text()
        assert re.fullmatch(rf"\d+\.\d{{{SCB.metric(plot.metric).decimals}}}", cell)  # the table's decimals
    look(page, context, "heatmap", "#scb-heat-country-miou")


def test_the_scatter_labels_its_points(context, page, store):
    board(page)
    plot = page.locator("#scb-scatter svg.scatter-svg:visible")
    plot.scroll_into_view_if_needed()
    assert plot.count() == 1  # one layout shown: the wide one on a desktop, the narrow one on a phone
    assert plot.bounding_box()["width"] > 300
    points = plot.locator("g.point")
    plotted = list(display.scatter_frame(store.table("scb", "all"), SCB, SCB.plots[0])["Model"])  # rank order
    assert points.count() == len(plotted) > 5
    hovers = [t.text_content() for t in points.locator("title").all()]
    assert all(any(h.startswith(f"{m} (") for h in hovers) for m in plotted)  # every point's model on hover
    labels = plot.locator("text.label")
    assert labels.count() >= len(plotted) - 2  # crowded points may keep only their hover text
    first = labels.first.bounding_box()
    assert first["height"] >= 9  # legible at the width shown
    assert plotted[0].startswith(labels.first.text_content().rstrip("…"))  # the best-ranked point is labelled
    look(page, context, "scatter", "#scb-scatter")


def test_multi_term_search_keeps_rows_matching_any_term(context, page, store):
    board(page)
    terms = ("qwen", "gpt")
    expected = [r.model for r in store.board("scb").rows if any(t in f"{r.model} {r.team}".lower() for t in terms)]
    assert any("qwen" in m.lower() for m in expected) and any("gpt" in m.lower() for m in expected)
    page.fill("#query", "qwen; gpt")
    page.wait_for_function(f"() => document.querySelectorAll('#board-table .tabulator-row').length === {len(expected)}")
    names = page.locator("#board-table .tabulator-row .model-name .name").all_inner_texts()
    assert sorted(names) == sorted(expected)
    assert f"Showing {len(expected)} of {len(store.board('scb').rows)} rows" in page.locator("#summary").inner_text()
    page.wait_for_function("() => new URLSearchParams(location.search).get('q') === 'qwen; gpt'")
    look(page, context, "search", "#query")
    page.fill("#query", "")
    page.wait_for_function("() => !window.location.search.includes('q=')")


def test_last_updated_and_the_gold_version_are_on_the_board(context, page, store):
    board(page)
    gold = store.gold_info("scb")
    summary = page.locator("#context")
    summary.scroll_into_view_if_needed()
    text = summary.inner_text()
    assert f"Last updated {store.last_updated('scb')[:16].replace('T', ' ')} UTC" in text
    assert f"gold {gold.version[:12]} of {gold.added_at[:10]}" in text
    look(page, context, "context-line", "#context")


def test_the_submit_tab_guides_and_shows_the_box_format_only_for_grounding(context, page):
    open_tab(page, "Submit")
    page.wait_for_selector("#sub-guide >> text=What becomes public")
    guide = page.locator("#sub-guide")
    text = guide.inner_text()
    assert all(f in text for f in SCB.prediction_fields)  # the format
    assert SCB.example_lines[0].split(",")[0] in text  # an example line
    assert "your file and its per-question results never do" in text  # what becomes public
    assert guide.locator('a[href="?tab=about"]').count() == 1  # the format's tables on About
    assert page.locator("#sub-fmt").is_visible()
    look(page, context, "submit-scb", "#sub-guide")
    page.locator("#sub-bench input").click()
    page.get_by_role("option", name="K-Viscuit").click()
    page.wait_for_selector("#sub-guide >> text=Format (K-Viscuit)")
    page.locator("#sub-fmt").wait_for(state="hidden")
    assert not page.locator("#sub-confirm-fmt").is_visible()
    look(page, context, "submit-kviscuit", "#sub-guide")


def test_a_tab_switch_shows_in_the_address_and_the_link_reopens_it(context, page):
    open_tab(page, "Submit")
    open_tab(page, "About")
    page.wait_for_function("() => window.location.search === '?tab=about'")
    open_tab(page, "Submit")
    page.wait_for_function("() => window.location.search === '?tab=submit'")
    again = open_page(context, page.url, "#sub-guide >> text=What becomes public")
    assert again.locator("#sub-btn").is_visible() and urlparse(again.url).path == "/app"
    look(again, context, "tab-link")
    again.close()
    page.go_back()  # Back moves through the tabs, and stays on the site
    page.wait_for_function("() => window.location.search === '?tab=about'")
    page.get_by_role("tab", name="About", selected=True).wait_for()


def test_rescore_all_asks_first_and_cancel_does_nothing(context, page):
    open_tab(page, "Maintainers")
    page.fill("#admin-token input, #admin-token textarea", ADMIN_TOKEN)
    page.locator("#admin-unlock").click()
    page.wait_for_selector("#gold-info >> text=Current gold")
    asked: list[str] = []

    def answer(accept: bool):
        def handle(dialog):
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()

        return handle

    page.once("dialog", answer(False))
    page.locator("#rescore-btn").click()
    page.wait_for_selector("#rescore-report >> text=Rescore cancelled.")
    assert "Rescore every submission" in asked[0] and "scb: on its current gold " in asked[0]
    assert "Rescore report" not in page.locator("#rescore-report").inner_text()
    look(page, context, "rescore-cancelled", "#rescore-btn")
    tabs = [t.strip() for t in page.get_by_role("tab").all_inner_texts()]
    assert "Maintainers" in tabs and len(tabs) == len(set(tabs))  # no tab drawn twice (ui/mine.py, expose_api)
    if context.width != "1440":  # the rescore itself runs once, on the desktop page
        return
    page.once("dialog", answer(True))
    page.locator("#rescore-btn").click()
    page.wait_for_selector("#rescore-report >> text=Rescore report", timeout=180_000)
    assert len(asked) == 2
    look(page, context, "rescore-done", "#rescore-report")
