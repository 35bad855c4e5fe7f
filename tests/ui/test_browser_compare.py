"""Compare on the board page, in Chromium at 1440 and 390 px, on the demo data: the browser's
figures are leaderboard/compare.py's over the page's own data (``ui/static/compare.js`` is a port:
every figure equal to the last bit but the p-value, which is within 1e-12 and shows the same), the
table shows them as the Python rule formats them, README's deep links open it (the Gradio page's
old ``app?bench=..&compare=..`` included), and a keyboard user can compare. No request reaches the
server for a comparison. Screenshots: artifacts/screenshots/compare-<width>.png."""

from __future__ import annotations

import math

from leaderboard.compare import MAX_MODELS
from scoring.benchmarks import get_benchmark
from tests.support.page_compare import page_compare
from tests.ui.conftest import shot

SCORED = "scored here"


def page_data(page) -> dict:
    return page.evaluate("() => JSON.parse(document.getElementById('board-data').textContent)")


def scored_ids(bench: dict) -> list[str]:
    return [r["row_id"] for r in bench["rows"] if r["source"] == SCORED]


def shown(value: float | None, decimals: int, signed: bool = False) -> str:
    """How the old Gradio tab (ui/compare.py) printed a figure: the Python rule the page keeps."""
    return "-" if value is None else (f"{value:+.{decimals}f}" if signed else f"{value:.{decimals}f}")


def shown_p(p: float | None) -> str:
    return "-" if p is None else (f"{p:.3f}" if p >= 0.001 else "<0.001")


def test_the_browsers_figures_are_the_python_functions_on_the_demo_data(page, server):
    page.goto(server.url + "/")
    data = page_data(page)
    compared = 0
    for bench in data["benchmarks"]:
        ids = scored_ids(bench)
        assert len(ids) >= MAX_MODELS, "the demo data has rows to compare"
        for picked in (ids[:MAX_MODELS], ids[-2:], [ids[1], ids[0]]):
            want = page_compare(bench, picked)
            got = page.evaluate("([b, ids]) => window.lbCompare.compare(b, ids)", [bench["id"], picked])
            assert [(p["a"], p["b"]) for p in got] == [(p.a, p.b) for p in want]
            for pairing, expected in zip(got, want, strict=True):
                assert len(pairing["differences"]) == len(expected.differences)
                for d, e in zip(pairing["differences"], expected.differences, strict=True):
                    same = (d["metric"], d["grouping"], d["label"], d["questions"], d["test"])
                    assert same == (e.metric, e.grouping, e.label, e.questions, e.test)
                    for key in ("a", "b", "difference", "low", "high"):
                        assert d[key] == getattr(e, key), (bench["id"], e, key, d[key])  # the same bits
                    if e.p_value is None:
                        assert d["p_value"] is None
                    else:
                        assert math.isclose(d["p_value"], e.p_value, rel_tol=1e-12, abs_tol=1e-15), (e, d["p_value"])
                        assert shown_p(d["p_value"]) == shown_p(e.p_value)
                    compared += 1
    assert compared > 100
    # the erfc port against Python's over the range the p-values take
    for x in (0.0, 0.3, 1.0, 1.49, 1.5, 2.2, 3.7, 6.0, -0.8, -2.5):
        assert math.isclose(page.evaluate("x => window.lbCompare.erfc(x)", x), math.erfc(x), rel_tol=1e-13)


def test_a_deep_link_shows_the_comparison_as_python_formats_it(page, server, width):
    page.goto(server.url + "/")
    data = page_data(page)
    bench = next(b for b in data["benchmarks"] if b["id"] == "scb")
    ids = scored_ids(bench)[:2]
    asked = []
    page.on("request", lambda r: asked.append(r.url))
    page.goto(f"{server.url}/?bench=scb&compare={','.join(ids)}")
    table = page.locator("#cmp-result table.compare-table")
    table.wait_for()
    (pairing,) = page_compare(bench, ids)
    assert page.locator("#cmp-result h3").inner_text() == f"{pairing.a} vs {pairing.b}"
    cells = page.locator("#cmp-result tbody tr").evaluate_all(
        "rows => rows.map((r) => [...r.children].map((c) => c.innerText.trim()))"
    )
    scb = get_benchmark("scb")
    want = []
    for d in pairing.differences:
        if d.a is None and d.b is None:
            continue  # a row of two "-" says nothing (issue 44: 12 such rows on SCB)
        metric = scb.metric(d.metric)
        where = (
            "Overall"
            if d.grouping == "overall"
            else f"{scb.grouping(d.grouping).label}: " + scb.grouping(d.grouping).show(d.label)
        )
        dec = metric.decimals
        interval = f"± {shown((d.high - d.low) / 2, dec)}" if d.low is not None and d.high is not None else ""
        want.append(
            [where, f"{d.questions:,}", metric.label, shown(d.a, dec), shown(d.b, dec), shown(d.difference, dec, True)]
            + [interval, shown_p(d.p_value)]
        )
    assert cells == want
    assert any(d.grouping != "overall" and d.low is not None for d in pairing.differences)  # groups have intervals
    assert page.locator("#cmp-result .compare-test").inner_text() == f"Test: {pairing.differences[0].test}."
    assert "compare=" in page.url and "bench=scb" in page.url  # the address keeps the comparison
    assert not [u for u in asked if "/gradio_api/" in u]  # computed in the browser: no event reaches the server
    table.scroll_into_view_if_needed()
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")  # no sideways page
    shot(page, f"compare-{width}")


def test_the_old_gradio_link_and_the_nav_link_open_compare_on_the_board(page, server):
    page.goto(server.url + "/")
    ids = scored_ids(next(b for b in page_data(page)["benchmarks"] if b["id"] == "kviscuit"))[:3]
    page.goto(f"{server.url}/app?bench=kviscuit&compare={','.join(ids)}")  # the Gradio page's old link
    page.locator("#cmp-result table.compare-table").first.wait_for(timeout=180_000)
    assert page.locator("#cmp-result h3").count() == 2  # the first against each other one
    assert page.locator("#cmp-bench").input_value() == "kviscuit"
    page.goto(server.url + "/")
    assert page.locator("#compare").is_hidden()
    page.locator("#compare-link").click()
    page.locator("#compare").wait_for()
    assert page.locator("#cmp-result table").count() == 0


def test_a_keyboard_user_compares_two_models(page, server):
    page.goto(server.url + "/?tab=compare")
    page.locator("#compare").wait_for()
    assert page.evaluate("() => document.activeElement.id") == "compare-title"
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "cmp-bench"
    for i in range(2):  # the reference, then the model compared with it: first and second scored rows
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.id") == f"cmp-model-{i}"
        for _ in range(i + 1):
            page.keyboard.press("ArrowDown")
    for _ in range(3):  # past the two optional pickers
        page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "cmp-btn"
    page.keyboard.press("Enter")
    page.locator("#cmp-result table.compare-table").wait_for()
    assert "vs" in page.locator("#cmp-result h3").inner_text()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # the close button, then the table's scroll region
    assert page.evaluate("() => document.activeElement.getAttribute('role')") == "region"


def test_too_few_models_say_what_is_wrong(page, server):
    page.goto(server.url + "/?tab=compare")
    page.locator("#compare").wait_for()
    page.locator("#cmp-model-0").select_option(index=1)
    page.locator("#cmp-btn").click()
    assert page.locator("#cmp-result .empty-note").inner_text() == "pick 2 to 4 models to compare, not 1"


def test_paper_rows_and_unknown_rows_are_refused_clearly(page, server):
    """The refusals Leaderboard.compare gave before Compare moved into the page (its test went with it)."""
    page.goto(server.url + "/")
    page.wait_for_function("() => window.lbCompare !== undefined")
    bench = next(b for b in page_data(page)["benchmarks"] if b["id"] == "scb")
    scored = scored_ids(bench)
    paper = next(r["row_id"] for r in bench["rows"] if r["row_id"] not in scored)

    def refusal(ids: list[str]) -> str:
        return page.evaluate(
            "([b, ids]) => { try { window.lbCompare.compare(b, ids); return ''; } catch (e) { return e.message; } }",
            [bench["id"], ids],
        )

    assert "is a paper's published row: it has no intervals to compare" in refusal([scored[0], paper])
    assert refusal([scored[0], "nope"]) == "no row nope on the scb board"
    assert refusal([scored[0]]) == "pick 2 to 4 models to compare, not 1"
    assert refusal(scored[:2]) == ""
