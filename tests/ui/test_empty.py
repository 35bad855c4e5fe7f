"""An empty store (no demo, no gold): helpful empty states, never a crash."""

from __future__ import annotations

import pytest

from tests.ui.conftest import app_fixture, shot

server = app_fixture("empty-app", LEADERBOARD_DEMO="0")


def test_empty_store_shows_paper_rows_and_a_notice(browser, server):
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        page.goto(server.url)
        page.wait_for_selector("#summary >> text=No gold is loaded")
        assert "reported in paper" in page.locator("#board-table").inner_text()
        assert "scored here" not in page.locator("#board-table").inner_text()
        page.locator("#source-choice label", has_text="reported in paper").click()
        page.wait_for_selector("#summary >> text=No rows match these filters")
        shot(page, "11-empty-store")
        page.get_by_role("link", name="About", exact=True).click()  # the Gradio page's tab
        page.get_by_role("tab", name="About", selected=True).wait_for()
        # the About downloads are built when the tab opens: wait for them as a person would
        page.get_by_role("button", name="scb: no question list yet").wait_for(state="visible", timeout=15_000)
        page.get_by_role("tab", name="My submissions", exact=True).click()
        page.wait_for_selector("text=0 submission(s)")
    finally:
        context.close()


def test_submit_without_gold_is_a_message_not_a_crash(server, tmp_path):
    gradio_client = pytest.importorskip("gradio_client")
    path = tmp_path / "x.jsonl"
    path.write_text('{"question_id": "scb-00000", "answer": "A"}\n')
    answer = gradio_client.Client(server.url, verbose=False).predict(
        "scb", gradio_client.handle_file(str(path)), "M", "T", "open", "xyxy", "", "", "", api_name="/submit"
    )
    # its own status: "failed" means an internal error that is retried, and nothing was stored here
    assert answer["status"] == "unavailable" and "no gold" in answer["message"]
    assert answer["submission_id"] is None and answer["result"] is None and answer["total_errors"] == 0
    assert "left today" in answer["quota"]
