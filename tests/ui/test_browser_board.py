"""The board page in Chromium at 1440 px and 390 px, as a visitor uses it, on one app started with
the toy plugin (a third benchmark on the page with no production edit): the first screen, one tap to
every benchmark and to Submit, no sideways scrolling on a phone, header sort with its direction,
names readable in full, the column chooser showing what is ticked, ranks recomputed in the browser
exactly as the server ranks, Back and Forward through views, old deep links, the model page, and the
Gradio tabs linked both ways. Screenshots go to artifacts/screenshots/ (docs/board.png and
docs/mobile.png are two of them)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from scoring.benchmarks import BENCHMARKS
from tests.support import toy
from tests.support.board_page import row_filter
from tests.support.browser_pages import ROWS, TIMEOUT, open_board
from tests.support.toy import PLUGIN
from tests.ui.conftest import WIDTHS, app_fixture, shot

server = app_fixture("board-app", LEADERBOARD_PLUGINS=PLUGIN)  # the toy benchmark on the board


@pytest.fixture(scope="module")
def store(server):
    """The app's own store, read here (what the server would show); the plugin registered too."""
    with toy.registered():
        yield Leaderboard(Settings(data_dir=server.data_dir, plugins=(PLUGIN,)))


def drawn(page) -> int:
    return int(page.evaluate("() => Number(document.getElementById('board').dataset.drawn)"))


def wait_redrawn(page, before: int) -> None:
    page.wait_for_function(f"() => Number(document.getElementById('board').dataset.drawn) > {before}")


def models(page) -> list[str]:
    return page.locator(f"{ROWS} .model-name .name").all_inner_texts()


def query(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_the_first_screen_shows_the_leading_rows_with_their_figures(page, server, width):
    open_board(page, server.url)
    height = WIDTHS[width][1]
    first = page.locator(ROWS).first
    box = first.bounding_box()
    assert box["y"] + box["height"] < height * 0.6, "the first row sits in the top of the first screen"
    cells = first.locator(
        ".tabulator-cell[tabulator-field='overall.acc'], .tabulator-cell[tabulator-field='overall.miou']"
    )
    assert cells.count() == 2 and all(c.is_visible() for c in cells.all())
    for cell in cells.all():  # the headline figures are on screen, not off to the right
        b = cell.bounding_box()
        assert b["x"] + b["width"] <= WIDTHS[width][0] + 1
    visible_rows = sum(1 for r in page.locator(ROWS).all()[:12] if (r.bounding_box() or {"y": 1e9})["y"] < height)
    assert visible_rows >= 5
    assert page.locator(ROWS).first.locator(".model-name .name").inner_text() == "GPT-o3"
    if width == 390:  # the default view reads without sideways scrolling
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        holder = page.evaluate("() => { const h = document.querySelector('#board-table .tabulator-tableholder');"
                               " return [h.scrollWidth, h.clientWidth]; }")  # fmt: skip
        assert holder[0] <= holder[1] + 1
    shot(page, f"boardpage-first-screen-{width}")


def test_every_benchmark_and_submit_are_one_tap_away(page, server, width, store):
    open_board(page, server.url)
    tabs = page.locator("#bench-tabs a")
    assert tabs.all_inner_texts() == [b.name for b in BENCHMARKS.values()]  # the plugin's too
    for link in (*tabs.all(), page.get_by_role("link", name="Submit", exact=True)):
        b = link.bounding_box()
        assert b["y"] + b["height"] <= WIDTHS[width][1] and b["x"] + b["width"] <= WIDTHS[width][0]
    before = drawn(page)
    page.locator("#bench-tabs a", has_text="K-Viscuit").click()
    wait_redrawn(page, before)
    assert query(page)["bench"] == "kviscuit" and "(paper)" in page.locator("#board-table").inner_text()
    page.locator("#bench-tabs a", has_text="Toy").click()
    page.wait_for_function("() => location.search.includes('bench=toy')")
    page.get_by_role("link", name="Submit", exact=True).click()
    page.wait_for_url("**/app?tab=submit")
    page.get_by_role("tab", name="Submit", selected=True).wait_for()
    back = page.get_by_role("link", name="← The board")  # and back
    assert page.evaluate("a => a.href", back.element_handle()) == server.url + "/"
    open_board(page, server.url)


def test_a_header_click_sorts_with_a_visible_direction(page, server, width, store):
    open_board(page, server.url)
    header = page.locator(".tabulator-col[tabulator-field='overall.miou']")
    header.click()
    page.wait_for_function("() => location.search.includes('sort=')")
    assert header.get_attribute("aria-sort") == "descending"
    figures = [r.get("overall.miou") for r in store.table("scb").to_dict(orient="records")]
    best = max(f for f in figures if f == f)
    assert (
        page.locator(ROWS)
        .first.locator(".tabulator-cell[tabulator-field='overall.miou']")
        .inner_text()
        .startswith(f"{best:.2f}")
    )
    header.click()
    page.wait_for_function("() => location.search.includes('sort=overall.miou%3Aasc')")
    assert header.get_attribute("aria-sort") == "ascending"
    shot(page, f"boardpage-sorted-{width}")
    page.go_back()  # Back undoes the sort
    page.wait_for_function("() => location.search.includes('sort=overall.miou%3Adesc')")
    open_board(page, server.url, "?bench=scb&sort=overall.miou%3Aasc")  # and its address reopens it
    assert header.get_attribute("aria-sort") == "ascending"


def test_long_names_are_readable_and_two_rows_of_one_model_are_told_apart(page, server, width):
    open_board(page, server.url)
    cell = page.locator(f"{ROWS} .tabulator-cell[tabulator-field='model']", has_text="Demo-InHouse-Segmenter").first
    assert cell.evaluate("c => c.scrollWidth <= c.clientWidth + 1")  # wrapped, not cut
    assert "Demo-InHouse-Segmenter (synthetic)" in cell.inner_text().replace("\n", " ")
    assert "(demo)" in cell.locator(".model-cell").get_attribute("title")  # the team, on hover too
    if width == 390:  # the team under the name: two rows of one model are told apart
        assert cell.locator(".team-line").inner_text() == "demo"
    else:  # Rank, Model and Team stay when the table scrolls sideways
        page.locator("#bench-tabs a", has_text="K-Viscuit").click()
        page.locator("#view-choice label", has_text="By category").click()
        page.wait_for_function("() => location.search.includes('view=category')")
        page.evaluate("() => { document.querySelector('#board-table .tabulator-tableholder').scrollLeft = 5000; }")
        for field in ("rank", "model", "team"):
            c = page.locator(f"{ROWS} .tabulator-cell[tabulator-field='{field}']").first
            assert 0 <= c.bounding_box()["x"] < 600
        shot(page, "boardpage-scrolled-right-desktop")


def test_the_column_chooser_shows_what_is_ticked(page, server, width):
    open_board(page, server.url)
    page.locator("#columns-box summary").click()
    boxes = page.locator("#columns-choice input")
    assert boxes.count() >= 2 and all(b.is_checked() for b in boxes.all())  # ticked = shown
    group = page.locator("#columns-choice label").nth(1).inner_text().strip()  # the primary metric's group
    page.locator("#columns-choice label", has_text=group).click()
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('hide') === {group!r}")
    assert not page.locator("#columns-choice label", has_text=group).locator("input").is_checked()
    assert "of" in page.locator("#columns-count").inner_text()
    if width == 390:  # still no sideways scrolling: what does not fit folds into the row
        assert page.evaluate("() => { const h = document.querySelector('#board-table .tabulator-tableholder');"
                             " return h.scrollWidth <= h.clientWidth + 1; }")  # fmt: skip
    shot(page, f"boardpage-columns-{width}")
    page.go_back()
    page.wait_for_function("() => !location.search.includes('hide=')")
    assert page.locator("#columns-choice label", has_text=group).locator("input").is_checked()


def test_ranks_are_recomputed_in_the_browser_exactly_as_the_server_ranks(page, server, width, store):
    open_board(page, server.url, "?bench=scb&sources=scored%20here&types=open")
    keep = row_filter(["open"], ["scored here"], "")
    want = store.table("scb", "overall", keep)
    ranks = page.locator(f"{ROWS} .tabulator-cell[tabulator-field='rank']").all_inner_texts()
    assert models(page) == list(want["model"])
    assert ranks == [
        f"{b}" if b == w else f"{b}\u2013{w}" for b, w in zip(want["rank"], want["rank_worst"], strict=True)
    ]
    assert f"Showing {len(want)} of {len(store.board('scb').rows)} rows" in page.locator("#summary").inner_text()


def test_back_and_forward_move_through_views(page, server, width):
    open_board(page, server.url)
    page.locator("#view-choice label", has_text="By country").click()
    page.wait_for_function("() => location.search.includes('view=country')")
    page.fill("#query", "qwen; gpt")
    page.wait_for_function("() => location.search.includes('q=qwen')")
    assert all("qwen" in m.lower() or "gpt" in m.lower() for m in models(page))
    page.go_back()
    page.wait_for_function("() => !location.search.includes('q=')")
    assert query(page).get("view") == "country" and page.locator("#view-choice input[value=country]").is_checked()
    page.go_back()
    page.wait_for_function("() => !location.search.includes('view=')")
    assert page.locator("#view-choice input[value=overall]").is_checked()
    assert urlparse(page.url).netloc == urlparse(server.url).netloc  # still on the site
    page.go_forward()
    page.wait_for_function("() => location.search.includes('view=country')")
    assert page.locator("#view-choice input[value=country]").is_checked()


def test_a_kept_view_shows_the_filters_and_sort_of_its_address(page, server, width, store):
    """A view's table is kept once built (a view change shows it, not a rebuild of its cells): shown
    again, it has the rows of the filters and the sort of the address, not those it was built with."""
    open_board(page, server.url)
    for view in ("By country", "By category", "Overview"):  # each view's table built with every row
        before = drawn(page)
        page.locator("#view-choice label", has_text=view).click()
        wait_redrawn(page, before)
    page.fill("#query", "gpt")
    page.wait_for_function("() => location.search.includes('q=gpt')")
    header = page.locator(".tabulator-col[tabulator-field='overall.miou']")
    header.click()
    page.wait_for_function("() => location.search.includes('sort=overall.miou')")
    keep = row_filter(None, None, "gpt")
    for label, view in (("By country", "country"), ("Overview", "overall")):
        before = drawn(page)
        page.locator("#view-choice label", has_text=label).click()
        wait_redrawn(page, before)
        want = store.table("scb", view, keep)
        assert 0 < len(want) < len(store.board("scb").rows)
        assert models(page) == list(want["model"])  # filtered, in rank order: a view change resets the sort
        assert page.locator("#board-table .tabulator").count() == 1  # one table in the page
    assert header.get_attribute("aria-sort") != "descending"
    page.set_viewport_size({"width": WIDTHS[width][0] - 40, "height": WIDTHS[width][1]})  # a resize redraws
    page.wait_for_function(
        "() => { const t = document.querySelector('#board-table .tabulator');"
        " return t.querySelector('.tabulator-tableholder').clientWidth <= t.clientWidth; }"
    )
    assert models(page) == list(store.table("scb", "overall", keep)["model"])


def test_the_old_boards_deep_links_open_the_same_view(page, server, width):
    open_board(page, server.url, "?bench=kviscuit&view=category&sources=scored%20here&q=gpt;gemini&hide=Food")
    assert page.locator("#bench-tabs a.on").inner_text() == "K-Viscuit"
    assert page.locator("#view-choice input[value=category]").is_checked()
    assert page.locator("#query").input_value() == "gpt;gemini"
    assert not page.locator("#source-choice input[value='reported in paper']").is_checked()
    assert "Food" not in page.locator(".tabulator-col").all_inner_texts()
    assert all("gpt" in m.lower() or "gemini" in m.lower() for m in models(page))
    open_board(page, server.url, "?bench=scb&view=%3Cscript%3E&types=open,evil")  # unknown values are dropped
    assert page.locator("#view-choice input[value=overall]").is_checked()
    assert query(page).get("types") == "open"
    page.goto(server.url + "/?tab=about")  # a Gradio tab's old link opens that tab
    page.get_by_role("tab", name="About", selected=True).wait_for()
    assert urlparse(page.url).path == "/app"


def test_a_row_opens_the_model_page_and_back_returns_to_the_board(page, server, width, store):
    open_board(page, server.url)
    page.locator(f"{ROWS} .tabulator-cell[tabulator-field='model']", has_text="Demo-Gemini-2.5-Pro").first.click()
    page.wait_for_selector("#model-page:not([hidden]) h2")
    row = next(r for r in store.board("scb").rows if r.model == "Demo-Gemini-2.5-Pro (synthetic)")
    assert query(page)["model"] == row.row_id
    body = page.locator("#model-body").inner_text()
    for text in ("Demo-Gemini-2.5-Pro (synthetic)", "Accuracy", "By country", "Questions", "±"):
        assert text in body
    shot(page, f"boardpage-model-{width}")
    page.go_back()
    page.wait_for_selector(ROWS)
    assert "model" not in query(page)
    page.goto(f"{server.url}/?bench=scb&model={row.row_id}")  # its address reopens it
    page.wait_for_selector("#model-page:not([hidden]) >> text=Demo-Gemini-2.5-Pro (synthetic)")


def test_docs_screenshots(browser, server):
    """The two screenshots docs/ shows: the desktop board sorted by mIoU, the phone's first screen."""
    for name, (w, h), q in (("board", (1440, 900), "?bench=scb&sort=overall.miou%3Adesc"), ("mobile", (390, 844), "")):
        context = browser.new_context(viewport={"width": w, "height": h})
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        open_board(page, server.url, q)
        shot(page, f"docs-{name}")
        context.close()


def test_the_question_browser_shows_a_plugins_own_fields(page, server, width, store):
    """The toy declares its own field names (``qid``, ``prompt``, ``choices``, ``img``): the browser shows
    its image and options from the page's data (its family's fields), and offers its groups, not its
    key, text or image, as filters."""
    page.goto(server.url + "/questions?bench=toy")
    card = page.locator("article.question").first
    card.wait_for()
    assert card.locator("h2").inner_text() == "q00"
    assert card.locator(".q-text").inner_text() == "What does picture q00 show?"
    assert card.locator(".q-options li").all_inner_texts() == [f"thing {c} of q00" for c in "ABCD"]
    image = card.locator(".q-image img")
    assert image.get_attribute("src") == "questions/toy/images/q00.png"
    page.wait_for_function("() => document.querySelector('article.question .q-image img').naturalWidth === 320")
    names = page.locator("#q-fields select").evaluate_all("els => els.map((e) => e.name)")
    assert names == ["country", "language"]
    page.select_option("#q-f-language", "Quechua")
    page.wait_for_function("() => document.querySelector('article.question h2').textContent === 'q06'")
    shot(page, f"questions-toy-{width}")


def test_a_model_page_links_an_eval_results_file_only_where_the_benchmark_has_a_hub_dataset(page, server, store):
    """K-Viscuit declares its Hub dataset: its scored rows link their ``.eval_results`` file, which
    answers. The toy declares none: no link (before, every row linked a file that answered 404)."""
    for bench, linked in (("kviscuit", True), ("toy", False)):
        row = next(r for r in store.board(bench).rows if r.source != "reported in paper")
        page.goto(f"{server.url}/?bench={bench}&model={row.row_id}")
        page.wait_for_selector("#model-page:not([hidden]) h2")
        links = page.locator("#model-hub-file a")
        assert links.count() == (1 if linked else 0), bench
        if linked:
            href = page.evaluate("a => a.href", links.element_handle())
            assert page.request.get(href).status == 200
