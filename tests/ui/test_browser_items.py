"""Issue 43 in Chromium: the Maintainers tab's suspect questions, unlocked and driven with the
keyboard at 1440 and 390 px: a mask suspect drawn (its option images, the gold region and the
consensus box over the gold image), the evidence, a user's report beside it; Accept stages the
correction and shows the usual preview; Dismiss records why; axe-core finds nothing serious.

The store is the demo's, with its analyses computed as the background job does; the demo's six
models show answer suspects only, so one SCB question's analysis gains a mask suspect (its
grounding's consensus box moved off the gold region), as the analysis would list one."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from store import layout
from store.records import ItemAnalysisRecord
from tests.support.app_server import ADMIN_TOKEN, AppServer
from tests.support.axe import axe
from tests.ui.conftest import shot
from tests.ui.test_browser_teams import DESKTOP, PHONE

TIMEOUT = 120_000
GRAVE = ("serious", "critical")


def plant_mask_suspect(lb: Leaderboard) -> dict:
    """One SCB question's grounding as a mask suspect (the box beside the gold region), first in the list."""
    kept = lb.items.analysis("scb")
    gold = lb.golds.get("scb")
    row = next(i for i, q in enumerate(kept.questions) if q.get("grounding", {}).get("consensus"))
    w, h = int(gold.extra["masks"].widths[row]), int(gold.extra["masks"].heights[row])
    box = [round(w * 0.05, 1), round(h * 0.05, 1), round(w * 0.3, 1), round(h * 0.3, 1)]
    bands = [
        {"name": n, "submissions": 2, "answered": 2, "chose_gold": 2, "chose_suggestion": 0}
        for n in ("top", "middle", "bottom")
    ]
    suspect = {
        "question_id": gold.keys[row],
        "kind": "mask",
        "score": 0.61,
        "suggestion": {"box": box},
        "evidence": {"able": 3, "agree": 3, "median_iou_with_gold": 0.02, "bands": bands},
    }
    record = ItemAnalysisRecord(
        kept.benchmark, kept.gold_version, kept.basis, kept.computed_at, kept.submissions,
        kept.questions, (suspect, *kept.suspects), kept.cpu_seconds,
    )  # fmt: skip
    lb.store.put("gold", {layout.items_analysis("scb", kept.gold_version): record.to_bytes()}, "plant", overwrite=True)
    return suspect


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[AppServer, dict]]:
    data = tmp_path_factory.mktemp("items-browser") / "data"
    lb = Leaderboard(Settings(data_dir=data))
    lb.seed_demo()
    for bench in ("scb", "kviscuit"):
        lb.items.compute(bench)
    suspect = plant_mask_suspect(lb)
    assert lb.items.report("scb", str(suspect["question_id"]), "The region misses the dish.", "ann") == ""
    app = AppServer(
        data, log=data.parent / "app.log", LEADERBOARD_REFRESH_SECONDS="5"
    ).start()  # the embedded demo: the site draws its images
    try:
        yield app, suspect
    finally:
        app.stop()


def unlock_with_keyboard(page, url: str) -> None:
    page.goto(url + "/app?tab=admin")  # the board page's Maintainers link (a wide screen's tab bar has it too)
    token = page.locator("#admin-token input, #admin-token textarea")
    token.focus()
    page.keyboard.type(ADMIN_TOKEN)
    page.keyboard.press("Enter")  # the token field's submit unlocks, as the button does
    page.wait_for_selector("#gold-info >> text=Current gold", timeout=TIMEOUT)


def grave(page) -> list[str]:
    found = axe().run(page).response["violations"]
    return [f"{v['id']}: {n['target']}" for v in found if v["impact"] in GRAVE for n in v["nodes"]]


STAGED: dict[str, str] = {}
"""The gold version Accept staged (what the app's resume may switch the board to at any time after)."""


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390", "1440"])
def test_a_suspect_is_drawn_reviewed_and_accepted_with_the_keyboard(browser, server, viewport):
    """At 390 px a suspect is dismissed with a reason; at 1440 px (last: the app's background resume
    may switch the board to the staged gold, whose analysis has no planted suspect) one is accepted."""
    app, suspect = server
    qid = str(suspect["question_id"])
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    try:
        unlock_with_keyboard(page, app.url)
        show = page.locator("#items-show")
        show.focus()
        page.keyboard.press("Enter")
        card = page.locator("#items-suspects article.items-card").first
        card.wait_for()
        assert qid in card.inner_text() and "mask" in card.inner_text()
        svg = card.locator("svg.items-overlay")
        assert svg.get_attribute("role") == "img" and "gold region" in svg.get_attribute("aria-label")
        assert card.locator("svg polygon").count() >= 1 and card.locator("svg rect").count() == 1
        rect = card.locator("svg rect")
        assert float(rect.get_attribute("x")) == suspect["suggestion"]["box"][0]
        assert card.locator("svg image").get_attribute("href").startswith("questions/scb/images/")
        assert card.locator(".items-options img").count() == 4  # the four option images, loaded
        page.wait_for_function(
            "() => [...document.querySelectorAll('.items-card')][0].querySelectorAll('img')"
            ".length === 4 && [...[...document.querySelectorAll('.items-card')][0].querySelectorAll('img')]"
            ".every(i => i.complete && i.naturalWidth > 0)"
        )
        assert page.locator("#items-reports").inner_text().count("The region misses the dish.") == 1
        svg.scroll_into_view_if_needed()
        box = svg.bounding_box()
        assert box["width"] <= viewport["width"] and box["height"] > 50  # drawn, within the screen
        name = "items-" + str(viewport["width"])
        shot(page, name + "-suspect")
        assert grave(page) == []
        if viewport is PHONE:
            dismiss_one_with_the_keyboard(page, qid)
            return
        pick = page.locator("#items-pick input")
        pick.focus()
        page.keyboard.type(qid)
        page.locator("#items-pick [role=option]", has_text=f"{qid} · mask").first.click()
        page.locator("#items-accept").focus()
        page.keyboard.press("Enter")
        result = page.locator("#items-result")
        result.locator("text=Staged gold").wait_for(timeout=TIMEOUT)
        text = result.inner_text()
        assert f"mask of {qid} corrected" in text and "masks changed on kept questions: 1" in text  # the preview
        STAGED["scb"] = re.search(r"Staged gold ([0-9a-f]{12})", text).group(1)
        shot(page, name + "-accepted")
    finally:
        context.close()


def dismiss_one_with_the_keyboard(page, keep: str) -> None:
    """The first answer suspect dismissed with a reason: it leaves the list; the planted one stays."""
    first = page.locator("#items-suspects article.items-card").nth(1).locator("h4").inner_text()
    other = first.split(" ")[1]
    assert other != keep and "answer" in first
    page.locator("#items-pick input").focus()
    page.keyboard.type(other)
    page.locator("#items-pick [role=option]", has_text=f"{other} · answer").first.click()
    page.locator("#items-why textarea, #items-why input").focus()
    page.keyboard.type("checked against the source: the key is right")
    page.locator("#items-dismiss").focus()
    page.keyboard.press("Enter")
    page.locator(f"#items-result >> text=Dismissed {other}").wait_for()
    page.wait_for_function(
        "(q) => ![...document.querySelectorAll('#items-suspects h4')].some(h => h.innerText.includes(q + ' '))",
        arg=other,
    )
    assert keep in page.locator("#items-suspects").inner_text()
    shot(page, "items-390-dismissed")


def test_the_preview_is_the_correction_paths_own(server, tmp_path):
    """What Accept staged is the gold with that one region replaced by the box (read from the store)."""
    app, suspect = server
    lb = Leaderboard(Settings(data_dir=app.data_dir, demo=False))
    (file,) = [f for f in lb.golds.versions("scb") if f.version.startswith(STAGED["scb"])]  # staged, or switched to
    records = [json.loads(x) for x in lb.store.read("gold", file.path).splitlines() if x.strip()]
    (record,) = [r for r in records if r["question_id"] == suspect["question_id"]]
    x0, y0, x1, y1 = suspect["suggestion"]["box"]
    assert record["segmentation"] == [[x0, y0, x1, y0, x1, y1, x0, y1]]
    dismissed = list(lb.items.dismissals("scb").values()) if lb.golds.info("scb").version != file.version else []
    assert lb.golds.kept_preview("scb") is not None or lb.golds.info("scb").version == file.version
    assert all(d.why.startswith("checked against the source") for d in dismissed)


def test_every_action_checks_the_caller_again(tmp_path):
    """A hidden panel is no permission: show, accept and dismiss refuse a wrong token and change nothing."""
    import gradio as gr

    from leaderboard.config import UiSettings
    from tests.support.submissions import board, write_gold
    from ui.admin import Maintainers
    from ui.auth import Auth
    from ui.items import ItemSuspects

    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))
    maintainers = Maintainers(lb, Auth(UiSettings(admin_token="open-sesame")))
    block = ItemSuspects.of(lb, maintainers.check)
    for call in (
        lambda: block.show("scb", "wrong", None),
        lambda: block.accept("scb", "answer:q1", "wrong", None),
        lambda: block.dismiss("scb", "answer:q1", "why", "wrong", None),
    ):
        with pytest.raises(gr.Error):
            call()
    assert lb.store.list("gold", "items") == []
    fresh = ItemSuspects.of(lb, Maintainers(lb, Auth(UiSettings(admin_token="open-sesame"))).check)  # no backoff
    html, reports, _ = fresh.show("scb", "open-sesame", None)
    assert "No item analysis of the current gold yet" in html and "No report" in reports


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1440", "390"])
def test_the_question_browsers_link_opens_the_report_filled_in(browser, server, viewport):
    """A visitor (signed in: locally, the local user) reports a K-Viscuit question from the browser,
    with the keyboard; the maintainers' list has it."""
    app, _ = server
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    try:
        page.goto(app.url + "/questions?bench=kviscuit")
        link = page.locator("article.question .q-report a").nth(2)
        link.wait_for()
        qid = page.locator("article.question").nth(2).get_attribute("data-id")
        link.focus()
        page.keyboard.press("Enter")
        page.wait_for_function(
            "(q) => document.querySelector('#report-q input, #report-q textarea')?.value === q", arg=qid
        )
        assert page.locator("#report-bench input[value=kviscuit]").is_checked()
        page.locator("#report-text textarea").focus()
        page.keyboard.type(f"Option C is right too ({viewport['width']}).")
        page.locator("#report-send").focus()
        page.keyboard.press("Enter")
        page.locator("#report-result >> text=Thank you").wait_for()
        assert page.locator("#tab-report a[href='errata/scb']").count() == 1  # the corrections made, one click away
        shot(page, f"items-report-{viewport['width']}")
        assert grave(page) == []
    finally:
        context.close()
    lb = Leaderboard(Settings(data_dir=app.data_dir, demo=False))
    assert f"Option C is right too ({viewport['width']})." in [
        r.text for r in lb.items.reports("kviscuit") if r.question_id == qid
    ]


def test_the_errata_page_lists_the_correction_once_made(browser, server):
    """Once the board switched to the accepted correction (the app's resume, else the rescore here),
    the page lists it (that nothing staged is listed: tests/leaderboard/test_items.py)."""
    app, suspect = server
    lb = Leaderboard(Settings(data_dir=app.data_dir, demo=False))
    lb.corrections.rescore("scb")
    lb.items.catch_up()
    page = browser.new_page()
    page.set_default_timeout(TIMEOUT)
    try:
        for _ in range(60):  # the app sees the switch at its next refresh (5 s here)
            response = page.goto(app.url + "/errata/scb")
            if response.status == 200 and str(suspect["question_id"]) in page.inner_text("main"):
                break
            page.wait_for_timeout(1000)
        text = page.inner_text("main")
        assert str(suspect["question_id"]) in text and "1 region(s)" in text and "0 answer(s)" in text
        assert all(str(s["question_id"]) not in text for s in lb.items.analysis("kviscuit").suspects)
        assert axe().run(page).response["violations"] == []
        shot(page, "items-errata")
    finally:
        page.close()
