"""SCB's two lmms-eval samples files through the Submit form in a real browser (issue 28): the
files lmms-eval 0.7.3 wrote (tests/fixtures/harness) go in the predictions field and its second
field together, at 1440 and 390 px, and the answer is the scored result (or, validating, "Valid").
Screenshots go to artifacts/screenshots/."""

from __future__ import annotations

import pytest

from tests.support.file_field import choose_file
from tests.support.harness_files import lmms_samples, old_task_samples, written_name
from tests.ui.conftest import app_fixture, shot
from tests.ui.test_browser_teams import choose

TIMEOUT = 30_000


server = app_fixture("harness-upload-app", LEADERBOARD_FEEDBACK="full")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lmms-files")
    out = {}
    for task in ("scb_stage1", "scb_stage2"):
        out[task] = folder / written_name(task)
        out[task].write_bytes(lmms_samples(task))
    return out


@pytest.fixture(scope="module")
def faulty_files(tmp_path_factory):
    """The kept pair with stage 1's line 12 naming no position and stage 2's line 5 past the end."""
    from tests.scoring.test_lmms_eval_files import _with_faults

    folder = tmp_path_factory.mktemp("faulty-lmms-files")
    out = {}
    for task, data in _with_faults().items():
        out[task] = folder / written_name(task)
        out[task].write_bytes(data)
    return out


@pytest.fixture(scope="module")
def old_files(tmp_path_factory):
    """The pair the project's lmms-eval tasks wrote before 054fe6e (a 0-1 box asked with no convention)."""
    folder = tmp_path_factory.mktemp("old-lmms-files")
    out = {}
    for task in ("scb_stage1", "scb_stage2"):
        out[task] = folder / written_name(task).replace("20261205", "20261202")
        out[task].write_bytes(old_task_samples(task))
    return out


def _form(browser, server, width: int):
    context = browser.new_context(viewport={"width": width, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(server.url + "/app?tab=submit")
    page.get_by_role("tab", name="Submit", selected=True).wait_for()
    return context, page


def _send(page, files, model: str, validate_only: bool) -> str:
    choose_file(page, "#sub-file", files["scb_stage1"])
    choose_file(page, "#sub-more-files", files["scb_stage2"])
    page.fill("#sub-model textarea, #sub-model input", model)
    page.fill("#sub-team textarea, #sub-team input", "Harness team")
    if validate_only:
        page.locator("#sub-validate input").check()
    page.locator("#sub-btn").click()
    page.wait_for_function(
        "() => /Valid:|Scored|Rejected|Not scored|Not read/.test(document.querySelector('#sub-result').innerText)"
        " && !/Updating|Uploading|Checking|Scoring/.test(document.querySelector('#sub-result').innerText)",
        timeout=180_000,
    )
    return page.locator("#sub-result").inner_text()


def test_both_stage_files_are_scored_from_the_form_at_1440(browser, server, files):
    context, page = _form(browser, server, 1440)
    try:
        text = _send(page, files, "lmms-toy-1440", validate_only=False)
        assert "Scored" in text and "mIoU" in text, text
        page.locator("#sub-file").scroll_into_view_if_needed()
        shot(page, "harness-two-files-1440")
        page.locator("#sub-result").scroll_into_view_if_needed()
        shot(page, "harness-two-files-1440-result")
    finally:
        context.close()


def test_both_stage_files_validate_from_the_form_at_390_and_the_field_is_reached_by_keyboard(browser, server, files):
    context, page = _form(browser, server, 390)
    try:
        page.locator("#sub-file").get_by_role("button").first.focus()
        for _ in range(12):  # Tab onwards from the predictions field reaches the second file field
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.closest('#sub-more-files') !== null"):
                break
        else:
            pytest.fail("Tab from the predictions field never reached the second file field")
        text = _send(page, files, "lmms-toy-390", validate_only=True)
        assert "Valid" in text, text
        page.locator("#sub-more-files").scroll_into_view_if_needed()
        shot(page, "harness-two-files-390")
        page.locator("#sub-result").scroll_into_view_if_needed()
        shot(page, "harness-two-files-390-result")
    finally:
        context.close()


@pytest.mark.parametrize(("width", "validate_only"), [(1440, False), (390, True)], ids=["1440", "390"])
def test_the_old_tasks_pair_declared_plain_is_stopped_and_the_form_takes_the_suggested_box_format(
    browser, server, old_files, width, validate_only
):
    """issue 42 (team trial 3b): declared plain with the default xyxy the pair used to score mIoU 0.00 as
    "Scored"; now it is stopped naming xyxy_norm, the form's box format is set to it, and sent again as
    the form then stands it is read right."""
    context, page = _form(browser, server, width)
    try:
        choose(page, "sub-grounding-fmt", "plain:")
        text = _send(page, old_files, f"old-lmms-{width}", validate_only=validate_only)
        assert "Scored" not in text and "Valid:" not in text, text
        errors = page.locator("#sub-errors")
        errors.wait_for(state="visible")
        assert "suspect_bbox_format" in errors.inner_text() and "xyxy_norm" in errors.inner_text()
        assert "box format xyxy_norm" in text  # the answer says the form now holds it
        page.wait_for_function("() => document.querySelector('#sub-fmt input').value.startsWith('xyxy_norm')")
        page.locator("#sub-result").scroll_into_view_if_needed()
        shot(page, f"harness-old-pair-stopped-{width}")
        page.locator("#sub-btn").click()
        page.wait_for_function(
            "() => /Valid:|Scored/.test(document.querySelector('#sub-result').innerText)", timeout=180_000
        )
        again = page.locator("#sub-result").inner_text()
        assert ("Valid" in again) if validate_only else ("Scored" in again and "mIoU" in again), again
    finally:
        context.close()


@pytest.mark.parametrize("width", [1440, 390])
def test_errors_of_two_files_name_each_file_and_its_own_line(browser, server, faulty_files, width):
    """issue 42, item 2: the table said "line 3183" (a line of the two files joined, of no file the
    team has) under "line numbers refer to your file"; now each error names its file and line."""
    context, page = _form(browser, server, width)
    try:
        text = _send(page, faulty_files, f"lmms-faulty-{width}", validate_only=True)
        assert "Valid:" not in text, text
        assert f"First error, {written_name('scb_stage1')} line 12" in " ".join(text.split()), text
        errors = page.locator("#sub-errors")
        errors.wait_for(state="visible")
        table = " ".join(errors.inner_text().split())
        cells = page.locator("#sub-errors [role=gridcell]").all_inner_texts()
        rows = [[" ".join(c.split()) for c in cells[k : k + 4]] for k in range(0, len(cells), 4)]
        assert [(r[0], r[3].split(":")[0]) for r in rows] == [
            ("12", written_name("scb_stage1")),
            ("5", written_name("scb_stage2")),
        ], rows
        assert "3183" not in table and "3190" not in table
        errors.scroll_into_view_if_needed()
        shot(page, f"harness-errors-per-file-{width}")
    finally:
        context.close()
