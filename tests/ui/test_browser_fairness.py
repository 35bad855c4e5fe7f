"""Issue 19 in Chromium and through the API, as an honest team ("Honest Grounders", user
``grounder``) iterating on its grounding: the same answers with better boxes shows its mIoU
without publishing; a file that beats nothing is withheld with a reason naming both headline
metrics and what would show it; a held file says it was held automatically, on which kind of
signal, what happens next and where to write (``LEADERBOARD_CONTACT``), on the form's answer,
My submissions and ``/my_result``; publishing it is refused and spends nothing. The tests run in
file order and build on each other's entries. Screenshots (1440 and 390 px) go to
``BROWSER_SHOTS`` or a tmp folder."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from tests.support import demo, honest
from tests.support.app_server import AppServer
from tests.support.models import honest_model
from tests.support.submissions import small_gold
from tests.ui.test_browser_teams import DESKTOP, PHONE, fill_form, mine_table, open_page, open_tab, send, shot

gradio_client = pytest.importorskip("gradio_client")

TEAM = "Honest Grounders"
CONTACT = "https://github.com/example-org/leaderboard/discussions"
LETTERS = "ABCD"


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Iterator[AppServer]:
    data = tmp_path_factory.mktemp("fairness-browser") / "data"
    Leaderboard(Settings(data_dir=data, demo=False)).corrections.add_gold(
        "scb", demo.write_jsonl(data.parent / "scb-gold.jsonl", small_gold()), "maintainer"
    )
    server = AppServer(data, log=data.parent / "app.log", LEADERBOARD_LOCAL_USER="grounder", LEADERBOARD_DEMO="0",
                       LEADERBOARD_REFRESH_SECONDS="2", LEADERBOARD_CONTACT=CONTACT)  # fmt: skip
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def page(browser, app):
    page = open_page(browser, app)
    yield page
    page.context.close()


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """Three files with the same answers: loose boxes, tight boxes, and tight boxes once more."""
    folder = tmp_path_factory.mktemp("grounder")
    rng = np.random.default_rng(7)
    answers = honest_model(honest.gold_answers(), len(LETTERS), 0.55, rng)
    scales = {"loose": 1.6, "tight": 1.0, "again": 1.01}
    return {name: honest.write(folder / f"{name}.jsonl", honest.lines(answers, honest.boxes(rng, s)))
            for name, s in scales.items()}  # fmt: skip


def figure(text: str, label: str) -> float:
    match = re.search(rf"\| {re.escape(label)} \|\s*([0-9.]+)", text) or re.search(rf"{label}\s+([0-9.]+)", text)
    assert match, text
    return float(match.group(1))


def submission_id(text: str) -> str:
    return re.search(r"Submission id: (\S+)", text).group(1)


def test_a_grounding_only_improvement_shows_its_miou_without_publishing(page, files, shots) -> None:
    fill_form(page, files["loose"], "Grounder-7B", TEAM)
    first = send(page, "Result")
    fill_form(page, files["tight"], "Grounder-7B", TEAM)
    second = send(page, "Result")
    assert "Scored and kept, but not shown" not in second and "Private" in second
    assert figure(second, "Accuracy") == figure(first, "Accuracy")
    assert figure(second, "mIoU") > figure(first, "mIoU") + 1
    page.locator("#sub-result").scroll_into_view_if_needed()
    shot(page, shots, "f1-grounding-improvement-shown-1440")
    table = mine_table(page, "Grounder-7B")
    assert "publish" not in table.lower() or "public row" not in table  # nothing was published
    assert table.count("private") >= 2


def test_a_withheld_file_says_why_and_what_would_show_it(page, files, shots) -> None:
    fill_form(page, files["again"], "Grounder-7B", TEAM)
    text = send(page, "not shown")
    assert "does not beat your team's best shown Accuracy" in text and "nor its best shown mIoU" in text
    assert "A later file that beats any of these is shown" in text and "publishing this one shows" in text
    sid = submission_id(text)
    table = mine_table(page, "withheld by the Ladder")
    assert "withheld by the Ladder" in table
    open_tab(page, "My submissions")
    page.locator("#mine-pick input").click()
    page.locator("#mine-pick [role=option]", has_text=sid).first.click()
    page.wait_for_selector("#mine-detail >> text=Why")
    detail = page.locator("#mine-detail").inner_text()
    assert "ladder_withheld" in detail and "nor its best shown mIoU" in detail
    assert CONTACT in page.locator("#mine-contact a").get_attribute("href")
    shot(page, shots, "f2-withheld-reason-1440")


def test_a_held_file_says_it_was_held_automatically_why_and_what_next(page, app, browser, files, shots) -> None:
    client = gradio_client.Client(app.url, verbose=False)
    entries = client.predict("scb", api_name="/my_submissions")
    assert all(e["reason"]["code"] in {"shown", "ladder_withheld"} for e in entries)
    withheld = next(e for e in entries if e["reason"]["code"] == "ladder_withheld")
    assert withheld["result"] is None and "nor its best shown mIoU" in withheld["reason"]["message"]
    # the probe detector's hold, as the app writes it (another process: the app sees it on its poll)
    Leaderboard(Settings(data_dir=app.data_dir, demo=False)).moderation.hold(
        [withheld["submission_id"]], "automatic", "its probe series is flagged (signals: box_probe)"
    )
    sid = withheld["submission_id"]
    for _ in range(60):
        entry = client.predict(sid, api_name="/my_result")
        if entry["reason"]["code"] == "held_for_review":
            break
        page.wait_for_timeout(500)
    reason = entry["reason"]
    assert reason["code"] == "held_for_review" and entry["result"] is None
    message = reason["message"]
    assert "held for review automatically (no maintainer has acted on it yet)" in message
    assert "only a few boxes moved" in message and "a maintainer reviews held files" in message
    assert CONTACT in message and "hidden by maintainers" not in message
    with pytest.raises(Exception, match="cannot be published while it is held or hidden"):
        client.predict(sid, False, "", api_name="/publish")
    assert client.predict(sid, api_name="/my_result")["visibility"] == "private"

    table = mine_table(page, "held for review")
    assert "held for review (automatic)" in table and "hidden by maintainers" not in table
    other = next(e["submission_id"] for e in entries if e["submission_id"] != sid)
    for pick in (other, sid):  # the picker still holds sid from the last test: choose away and back
        page.locator("#mine-pick input").click()
        page.locator("#mine-pick [role=option]", has_text=pick).first.click()
    page.wait_for_selector("#mine-detail >> text=held_for_review")
    assert CONTACT in page.locator("#mine-detail").inner_text()
    page.locator("#mine-publish").click()
    page.wait_for_selector("#mine-msg >> text=cannot be published while it is held or hidden")
    shot(page, shots, "f3-held-reason-1440")

    phone = open_page(browser, app, PHONE)
    try:
        mine_table(phone, "held for review")
        assert phone.locator("#mine-contact a").get_attribute("href") == CONTACT
        shot(phone, shots, "f4-held-my-submissions-390")
    finally:
        phone.context.close()
    assert DESKTOP["width"] == 1440
