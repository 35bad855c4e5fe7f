"""A visitor over Compare's bound, as a person sees it in Chromium at 1440 and 390 px: the tab
says "Busy ... try again in a moment" (no error, no table); once its comparisons are done, the
same visitor's click shows the comparison. The app is the real server stack (``build_server``:
the board page and Gradio, served by uvicorn) in this process, so the test can hold the
visitor's turns. Screenshots: artifacts/screenshots/compare-busy-<width>.png, compare-served-<width>.png."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest
import uvicorn
from gradio import route_utils

from leaderboard.compare import BUSY
from leaderboard.config import UiSettings
from submissions.fair_queue import PER_IDENTITY, FairQueue
from submissions.request import SubmitRequest
from tests.support.app_server import free_port
from tests.support.submissions import ALICE, board, form, write_gold, write_submission
from tests.ui.conftest import shot

TIMEOUT = 60_000
LAYOUTS = {
    "1440": {"viewport": {"width": 1440, "height": 1000}},
    "390": {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True},
}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from ui import build_app, build_server

    tmp = tmp_path_factory.mktemp("compare-busy")
    lb = board(tmp / "data", write_gold(tmp / "gold.jsonl"))
    for model, accuracy in (("Strong", 0.9), ("Weak", 0.4)):
        lb.submissions.submit(
            SubmitRequest("scb", write_submission(tmp / f"{model}.jsonl", accuracy=accuracy), form(model, "T"), ALICE)
        )
    lb.compare_turns = FairQueue(slots=PER_IDENTITY + 1)  # the test holds this visitor's turns as running
    settings = replace(UiSettings(), server_port=free_port())
    cors = route_utils.CustomCORSMiddleware
    patches = pytest.MonkeyPatch()  # build_server replaces Gradio's CORS check for the whole process
    patches.setattr(cors, "is_valid_origin", cors.is_valid_origin)  # undone at the end (tests/ui/test_origin.py)
    app, _baker = build_server(build_app(lb, settings), lb, settings, 50 * 2**20)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=settings.server_port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline, "the app did not start"
        time.sleep(0.05)
    table = lb.table("scb")
    rows = list(table.loc[table["source"] == "scored here", "row_id"])
    yield lb, f"http://127.0.0.1:{settings.server_port}", rows
    server.should_exit = True
    thread.join(10)
    patches.undo()


@pytest.mark.parametrize("width", list(LAYOUTS))
def test_a_busy_visitor_reads_why_in_the_tab_then_is_served(served, browser, width):
    lb, url, rows = served
    held = [lb.compare_turns.enter("address:127.0.0.1") for _ in range(PER_IDENTITY)]  # Chromium's address
    for turn in held:
        turn.__enter__()
    context = browser.new_context(**LAYOUTS[width])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{url}/app?bench=scb&compare={rows[0]},{rows[1]}", timeout=TIMEOUT)  # a deep link compares
        note = page.locator("#cmp-result .empty-note")
        note.wait_for(timeout=TIMEOUT)
        assert note.inner_text().strip() == BUSY and "try again in a moment" in BUSY
        assert page.locator("#cmp-result table").count() == 0
        assert page.locator(".toast-body, .error").count() == 0  # a note in the tab, not an error
        note.scroll_into_view_if_needed()
        shot(page, f"compare-busy-{width}")
        for turn in held:
            turn.__exit__(None, None, None)
        held = []
        page.locator("#cmp-btn").click()
        page.locator("#cmp-result table.compare-table").wait_for(timeout=TIMEOUT)
        assert "Strong (T) vs Weak (T)" in page.locator("#cmp-result h4").first.inner_text()
        page.locator("#cmp-result table").first.scroll_into_view_if_needed()
        shot(page, f"compare-served-{width}")
        assert errors == []
    finally:
        for turn in held:
            turn.__exit__(None, None, None)
        context.close()
    assert lb.compare_turns.held("address:127.0.0.1") == 0


@pytest.mark.parametrize("width", list(LAYOUTS))
def test_a_visitor_clicking_compare_too_fast_is_served_at_the_doors_pace(served, browser, width):
    """Past its burst at Compare's door (ui/compare_door.py) a click waits at the door for its
    token instead of being refused: every click shows its comparison and no error toast, and
    the clicks past the burst are answered no faster than the door refills."""
    from ui.compare_door import BURST, REFILL_PER_SECOND

    _lb, url, rows = served
    context = browser.new_context(**LAYOUTS[width])
    page = context.new_page()
    try:
        page.goto(f"{url}/app?bench=scb&compare={rows[0]},{rows[1]}", timeout=TIMEOUT)  # spends a token
        page.locator("#cmp-result table.compare-table").wait_for(timeout=TIMEOUT)
        page.wait_for_timeout(1000 * BURST / REFILL_PER_SECOND)  # the burst back whole
        clicks, answered = BURST + 3, []
        started = time.monotonic()
        for _ in range(clicks):  # a person clicking again as soon as each answer shows
            with page.expect_response(lambda r: r.url.split("?")[0].endswith("/queue/join"), timeout=TIMEOUT) as join:
                page.locator("#cmp-btn").click()
            answered.append(join.value.status)
            page.locator("#cmp-result table.compare-table").wait_for(timeout=TIMEOUT)
        elapsed = time.monotonic() - started
        assert answered == [200] * clicks
        assert elapsed >= (clicks - BURST - 0.5) / REFILL_PER_SECOND  # the 3 past the burst waited for tokens
        assert page.locator(".toast-body").count() == 0
        shot(page, f"compare-door-{width}")
    finally:
        context.close()
