"""Answers per culture (issue 44), in Chromium at 1440 and 390 px on the demo data, one app for the module:
a group focus ranks one country's rows by the board's own rule (leaderboard/ranks.py, computed here on the
page's figures), its state lives in the address (Back and Forward), and a heatmap's header leads to it."""

from __future__ import annotations

import math

import pytest

from leaderboard.ranks import rank_ranges
from tests.support.axe import every_finding, grave_findings
from tests.support.browser_pages import ROWS, open_board
from tests.ui.conftest import WIDTHS, shot

Z95 = 1.959963984540054


@pytest.fixture
def desktop(pages, server):
    """A 1440 px page, for what does not depend on the width (ranks, the address, the data)."""
    with pages.open(viewport=dict(zip(("width", "height"), WIDTHS[1440], strict=True))) as page:
        yield page


def bench_data(page, bench: str) -> dict:
    return page.evaluate(
        "(id) => JSON.parse(document.getElementById('board-data').textContent).benchmarks.find((b) => b.id === id)",
        bench,
    )


def wilson(value: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a share, in percent (the textbook formula)."""
    p, z2 = value / 100, Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return 100 * (centre - half), 100 * (centre + half)


def expected_ranks(bench: dict, grouping: str, label: str, metric: str) -> dict[str, str]:
    """Row id -> rank text within the group, by leaderboard/ranks.py on the page's group figures and
    intervals: the bootstrap "±" of ``_group_ci`` where the metric has one, else (a share of the
    questions) its Wilson interval; a row with no interval (a paper's) stands as its point figure."""
    declared = next(m for m in bench["metrics"] if m["name"] == metric)
    n = bench["sizes"][grouping][label]
    rows = [r for r in bench["rows"] if r.get(f"{grouping}.{label}.{metric}") is not None]
    intervals = []
    for r in rows:
        v = r[f"{grouping}.{label}.{metric}"]
        half = (r.get("_group_ci") or {}).get(grouping, {}).get(label, {}).get(metric)
        if declared["interval"] == "bootstrap":
            intervals.append((v, v) if half is None else (v - half, v + half))
        else:
            intervals.append(wilson(v, n))
    ranks = rank_ranges(intervals, declared["higher"])
    return {r["row_id"]: rank.text() for r, rank in zip(rows, ranks, strict=True)}


def shown_ranks(page) -> dict[str, str]:
    return dict(
        page.locator("#focus-table tbody tr").evaluate_all(
            "rows => rows.map((r) => [r.dataset.row, r.querySelector('.focus-rank').textContent])"
        )
    )


@pytest.mark.parametrize("metric", ["acc", "miou", "gacc50"])
def test_the_thailand_focus_ranks_as_leaderboard_ranks_does(desktop, server, metric):
    page = desktop
    open_board(page, server.url, f"?bench=scb&focus=country:Thailand&metric={metric}", rows=False)
    page.wait_for_selector("#focus-table tbody tr")
    want = expected_ranks(bench_data(page, "scb"), "country", "Thailand", metric)
    got = shown_ranks(page)
    assert got == want
    assert len(got) >= 5 and len(set(got.values())) > 1  # a real ranking, not one shared rank
    order = [int(t.split("\u2013")[0]) for t in got.values()]
    assert order == sorted(order)  # best first
    assert page.locator("#board-table").is_hidden()
    caption = page.locator("#focus-table caption").inner_text()
    assert caption.startswith("Country: Thailand") and "454 questions" in caption


def test_a_focus_shows_interval_n_overall_rank_and_change(page, server, width):
    open_board(page, server.url, "?bench=scb&focus=country:Thailand&metric=acc", rows=False)
    first = page.locator("#focus-table tbody tr").first
    cells = first.locator("td, th").all_inner_texts()
    rank, model, figure, n, overall, delta = (" ".join(c.split()) for c in cells)
    assert "±" in figure and n == "454"
    best_group, best_overall = int(rank.split("\u2013")[0]), int(overall.split("\u2013")[0])
    assert delta.replace("\u2212", "-") == ("0" if best_overall == best_group else f"{best_overall - best_group:+d}")
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")  # no sideways page
    shot(page, f"culture-focus-thailand-{width}")


def test_the_focus_lives_in_the_address_and_back_returns_to_it(desktop, server):
    page = desktop
    open_board(page, server.url, "?bench=scb", rows=False)
    page.select_option("#focus-grouping", "country")
    page.wait_for_function("() => location.search.includes('focus=country%3ACambodia')")
    page.select_option("#focus-group", "Thailand")
    page.wait_for_function("() => location.search.includes('focus=country%3AThailand')")
    page.select_option("#focus-metric", "gacc50")
    page.wait_for_function("() => location.search.includes('metric=gacc50')")
    assert "GAcc@0.5" in page.locator("#focus-table caption").inner_text()
    page.go_back()
    page.wait_for_function("() => location.search.includes('metric=acc')")
    assert "Accuracy" in page.locator("#focus-table caption").inner_text()
    page.go_back()
    page.wait_for_function("() => location.search.includes('Cambodia')")
    assert page.locator("#focus-table caption").inner_text().startswith("Country: Cambodia")
    page.go_back()
    page.wait_for_function("() => !location.search.includes('focus=')")
    assert page.locator("#board-table").is_visible() and page.locator("#focus-table").is_hidden()
    page.go_forward()
    page.wait_for_function("() => location.search.includes('Cambodia')")
    assert page.locator("#focus-table").is_visible()


def test_a_heatmap_header_opens_the_focus_and_the_question_browser(desktop, server):
    page = desktop
    open_board(page, server.url, "?bench=kviscuit", rows=False)
    heat = page.locator("#plots table.heatmap").nth(1)  # by category
    heat.scroll_into_view_if_needed()
    head = heat.locator("thead a[data-focus]").first
    target = head.get_attribute("data-focus")
    head.click()
    page.wait_for_function("(f) => new URLSearchParams(location.search).get('focus') === f", arg=target)
    assert page.locator("#focus-table tbody tr").count() > 3
    page.go_back()
    page.wait_for_function("() => !location.search.includes('focus=')")
    link = page.locator("#plots table.heatmap").first.locator("thead a.group-n").first  # by type
    assert link.get_attribute("href").startswith("questions?bench=kviscuit&f.question_type=")
    link.click()
    page.wait_for_url("**/questions?**")
    page.locator("article.question").first.wait_for()
    facts = page.locator("article.question .q-facts").all_inner_texts()
    assert facts and all("question type: 1" in f for f in facts), facts


# ---------------------------------------------------------------- keyboard and reading (issue 44, 3)


def test_a_keyboard_walk_reaches_the_first_row_and_comes_back_to_its_row(page, server, width):
    """The skip link is the first stop: the first row in at most 5 Tab presses (50 before it); a row's
    model page takes the focus to its heading, and Back returns it to the row it was opened from."""
    open_board(page, server.url, "?bench=scb", rows=False)
    tabs = 0
    while not page.evaluate("() => document.activeElement.matches('.tabulator-row')"):
        assert tabs < 5, page.evaluate("() => document.activeElement.outerHTML.slice(0, 120)")
        page.keyboard.press("Tab")
        tabs += 1
        if page.evaluate("() => document.activeElement.id === 'skip-link'"):
            assert page.locator("#skip-link").is_visible()  # seen when focused
            page.keyboard.press("Enter")
    assert tabs <= 5
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # each row is one stop (its links are not)
    row = page.evaluate("() => document.activeElement.closest('.tabulator-row')?.getAttribute('aria-label')")
    assert row and row.startswith("Rank ")
    opened = page.evaluate("() => document.activeElement.querySelector('.model-name .name').textContent")
    page.keyboard.press("Enter")
    page.wait_for_selector("#model-page:not([hidden]) h2")
    page.wait_for_function("() => document.activeElement.matches('#model-page h2')")
    assert page.evaluate("() => document.activeElement.textContent").endswith(opened)
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("() => document.activeElement.id") == "model-back"
    page.keyboard.press("Enter")
    page.wait_for_function("() => !location.search.includes('model=')")
    page.wait_for_function("(r) => document.activeElement.getAttribute('aria-label') === r", arg=row)


def test_a_row_reads_its_rank_model_and_headline_figures_and_headers_spell_out(desktop, server):
    page = desktop
    open_board(page, server.url, "?bench=scb&sources=scored%20here", rows=False)
    label = page.locator(ROWS).first.get_attribute("aria-label")
    rank = page.locator(ROWS).first.locator(".tabulator-cell[tabulator-field='rank']").inner_text().strip()
    model = page.locator(ROWS).first.locator(".model-name .name").inner_text().strip()
    assert label.startswith(f"Rank {rank}, {model}, ")
    assert "Accuracy " in label and "±" in label and label.endswith("Enter opens its model page.")
    assert "mIoU " in page.locator(ROWS).nth(4).get_attribute("aria-label")  # a row without one says "no mIoU"
    header = page.locator("#board-table .tabulator-col[tabulator-field='type.1.acc']")
    assert header.locator("abbr").get_attribute("title").startswith("Accuracy (share of questions")
    assert header.locator(".sr-only").text_content() == ", " + header.locator("abbr").get_attribute("title")
    assert header.locator(".sr-only").text_content().endswith("T1 within culture")


def test_at_200_percent_zoom_the_headline_figures_are_in_sight(browser, server):
    """1440x900 at 200 %: 720x450 CSS px. The rank, the model and every headline figure of the first
    rows lie inside the table's box and the window, no sideways scroll needed."""
    context = browser.new_context(viewport={"width": 720, "height": 450}, device_scale_factor=2)
    page = context.new_page()
    try:
        open_board(page, server.url, "?bench=scb", rows=False)
        headline = bench_data(page, "scb")["headline"]
        page.locator("#board-table").scroll_into_view_if_needed()
        seen = page.locator(ROWS).first.evaluate(
            """(row) => { const box = row.closest('.tabulator-tableholder').getBoundingClientRect();
              return [...row.querySelectorAll('.tabulator-cell')].filter((c) => { const b = c.getBoundingClientRect();
                return b.width > 0 && b.left >= box.left - 1 && b.right <= Math.min(box.right, innerWidth) + 1; })
              .map((c) => c.getAttribute('tabulator-field')); }"""
        )
        assert {"rank", "model", *headline} <= set(seen), (headline, seen)
        shot(page, "culture-zoom-200")
    finally:
        context.close()


def test_axe_4_14_finds_nothing_grave_on_a_focus_and_its_model_page(page, server, width):
    open_board(page, server.url, "?bench=scb&focus=country:Thailand&metric=gacc50", rows=False)
    assert every_finding(page) == []
    page.locator("#focus-table a[data-model]").first.click()
    page.wait_for_selector("#model-page:not([hidden]) h2")
    assert grave_findings(page) == []


# ---------------------------------------------------------------- the first screen at once (issue 44, 4)

FIRST_ROWS_SEEN = """() => [...document.querySelectorAll('#first-screen tbody tr')].filter((r) => {
  const b = r.getBoundingClientRect();
  return r.checkVisibility({ visibilityProperty: true }) && b.top < innerHeight && /\\d+\\.\\d\\d/.test(r.textContent);
}).length"""


def test_the_first_screen_is_html_that_needs_no_script(browser, server, width):
    """With the board's script never arriving, the default view's first rows with their figures are on
    screen, ranked as the data ranks them; another view's address does not show them."""
    w, h = WIDTHS[width]
    context = browser.new_context(viewport={"width": w, "height": h})
    page = context.new_page()
    try:
        page.route("**/board-assets/board.js*", lambda route: route.abort())
        page.goto(server.url + "/")
        page.wait_for_selector("#first-screen tbody tr")
        assert page.evaluate(FIRST_ROWS_SEEN) >= 5
        rows = bench_data(page, "scb")["rows"][:20]
        ranks = page.locator("#first-screen tbody td.k-rank").all_inner_texts()
        want = [str(r["rank"]) if r["rank"] == r["rank_worst"] else f"{r['rank']}\u2013{r['rank_worst']}" for r in rows]
        assert ranks == want
        assert page.locator("#view-choice input:checked").get_attribute("value") == "overall"  # controls baked too
        shot(page, f"culture-first-screen-no-script-{width}")
        page.goto(server.url + "/?bench=kviscuit")
        page.wait_for_timeout(300)
        assert page.evaluate(FIRST_ROWS_SEEN) == 0  # not the default view: the script draws it, as before
    finally:
        context.close()


def test_the_table_takes_over_the_first_screen_without_a_shift(browser, server, width):
    """A first visit with the CPU slowed 4x: the baked rows are on screen before the table library has
    drawn, the controls and the table's top do not move when it takes over, and no layout shifts."""
    w, h = WIDTHS[width]
    context = browser.new_context(viewport={"width": w, "height": h})
    page = context.new_page()
    try:
        page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 4})
        page.add_init_script(
            """window.__shifts = []; window.__first = null;
            new PerformanceObserver((l) => {
              for (const e of l.getEntries()) if (!e.hadRecentInput) window.__shifts.push(e.value);
            }).observe({ type: "layout-shift", buffered: true });
            const look = () => { const f = document.getElementById('first-screen');
              if (f && !document.getElementById('board').dataset.drawn) window.__first = [
                document.getElementById('board-table').getBoundingClientRect().top,
                document.getElementById('view-choice').getBoundingClientRect().top];
              else if (!document.getElementById('board')?.dataset.drawn) requestAnimationFrame(look); };
            requestAnimationFrame(look);"""
        )
        page.goto(server.url + "/")
        page.wait_for_function("() => Number(document.getElementById('board').dataset.drawn) >= 1")
        page.wait_for_timeout(1500)  # a window for late shifts, not an assertion on time
        before = page.evaluate("() => window.__first")
        after = page.evaluate(
            "() => [document.getElementById('board-table').getBoundingClientRect().top,"
            " document.getElementById('view-choice').getBoundingClientRect().top]"
        )
        assert before is not None  # the baked rows were drawn before the script's table
        assert before == after
        assert page.locator("#first-screen").count() == 0 and page.locator(ROWS).count() > 0
        assert sum(page.evaluate("() => window.__shifts")) == 0
    finally:
        context.close()
