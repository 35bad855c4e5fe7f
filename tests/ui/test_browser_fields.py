"""Rows that name their Hub model, in Chromium at 1440 and 390 px: the Size and Licence columns,
the type badge, the Hub link, the size filter (from a deep link and from a click) and the model
page's pinned revision. The facts were read from the test Hub when the rows were submitted
(tests/support/hub_models.py); the app itself runs offline, as the board never asks again."""

from __future__ import annotations

import pytest

from leaderboard import demo
from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from submissions.model_hub import HubModels
from submissions.records import Identity, SubmissionForm
from tests.support.app_server import AppServer
from tests.support.hub_models import LLAMA, QWEN, UNINDEXED, publish_models
from tests.support.hub_server import HubServer
from tests.ui.conftest import shot

TIMEOUT = 60_000
ROWS = {"Qwen-Hub-7B": (QWEN, 0.7), "Tiny-Hub-1.5B": (UNINDEXED, 0.5), "Llama-Hub-90B": (LLAMA, 0.6)}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """A demo store plus three public SCB rows whose facts come from the test Hub; the pinned shas."""
    hub = HubServer().start()
    try:
        shas = publish_models(hub)
        data = tmp_path_factory.mktemp("fields-app") / "data"
        lb = Leaderboard(Settings(data_dir=data))
        assert lb.seed_demo()
        lb.intake.model_facts = HubModels(hub.url, timeout=5)
        gold = demo.scb_gold(0)
        for i, (name, (repo, accuracy)) in enumerate(ROWS.items()):
            path = demo.write_jsonl(data.parent / f"{name}.jsonl", demo.scb_submission(gold, accuracy, "bbox_good", i))
            form = SubmissionForm.of(model=name, team="Hub lab", model_repo=repo, visibility="public")
            answer = lb.submit("scb", path, form, Identity("hub-lab"))
            assert answer.result is not None and answer.warnings == (), answer
    finally:
        hub.stop()
    return data, shas


@pytest.fixture(scope="module")
def server(seeded):
    data, _ = seeded
    app = AppServer(data).start()
    yield app
    app.stop()


def open_page(context, url: str, ready: str):
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(url)
    page.wait_for_selector(ready)
    return page


def size_box(page, bucket: str):
    return page.locator("#scb-sizes label", has_text=bucket).first.locator("input")


def row_text(page, model: str) -> str:
    return page.locator("#scb-table div.virtual-row", has_text=model).first.inner_text()


@pytest.mark.parametrize("width", [1440, 390])
def test_hub_rows_show_size_licence_badge_and_link_and_filter_by_size(browser, server, seeded, width):
    _, shas = seeded
    mobile = width < 500
    context = browser.new_context(viewport={"width": width, "height": 900 if not mobile else 844},
                                  is_mobile=mobile, device_scale_factor=2 if mobile else 1)  # fmt: skip
    page = open_page(context, server.url, "#scb-table div.virtual-row >> text=Qwen-Hub-7B")
    qwen = row_text(page, "Qwen-Hub-7B")
    assert "8.3B" in qwen and "apache-2.0" in qwen and "open weights" in qwen
    badge = page.locator("#scb-table div.virtual-row", has_text="Qwen-Hub-7B").first.locator(".type-badge")
    assert badge.inner_text() == "open weights" and "tone-green" in badge.get_attribute("class")
    assert "1.5B" in row_text(page, "Tiny-Hub-1.5B") and "mit" in row_text(page, "Tiny-Hub-1.5B")
    assert "88.6B" in row_text(page, "Llama-Hub-90B") and "llama3.2" in row_text(page, "Llama-Hub-90B")
    links = page.locator(f'#scb-table a[href="https://huggingface.co/{QWEN}"]')
    assert links.count() >= 1  # the model's name and the Links cell
    headers = page.locator("#scb-table").inner_text()
    assert "Size" in headers and "Licence" in headers
    page.locator("#scb-table").scroll_into_view_if_needed()
    shot(page, f"fields-board-{width}")
    page.evaluate("() => { document.querySelector('#scb-table .virtual-table-viewport').scrollLeft = 5000; }")
    page.wait_for_timeout(300)
    assert page.locator("#scb-table").get_by_text("Licence").is_visible()  # scrolled to the facts' columns
    shot(page, f"fields-board-right-{width}")
    # the size filter from a deep link: only the ~7B row among those scored here
    linked = open_page(context, f"{server.url}/?bench=scb&sources=scored%20here&sizes=~7B",
                       "#scb-table div.virtual-row >> text=Qwen-Hub-7B")  # fmt: skip
    linked.wait_for_function("() => !document.querySelector('#scb-table').innerText.includes('Tiny-Hub-1.5B')")
    shown = linked.locator("#scb-table").inner_text()
    assert "Llama-Hub-90B" not in shown and "Demo-" not in shown  # demo rows have no repo: unknown size
    assert size_box(linked, "~7B").is_checked() and not size_box(linked, "~1.5B").is_checked()
    # and from a click: add the >70B bucket
    linked.locator("#scb-sizes label", has_text=">70B").click()
    linked.wait_for_selector("#scb-table div.virtual-row >> text=Llama-Hub-90B")
    linked.wait_for_function("() => window.location.search.includes('sizes=')")
    assert "Tiny-Hub-1.5B" not in linked.locator("#scb-table").inner_text()
    assert "%3E70B" in linked.evaluate("() => window.location.search") or ">70B" in linked.evaluate(
        "() => decodeURIComponent(window.location.search)"
    )
    linked.locator("#scb-sizes").scroll_into_view_if_needed()
    shot(linked, f"fields-size-filter-{width}")
    # the model page: the pinned revision, linked to that commit's files
    linked.locator("#scb-table [role=gridcell]", has_text="Qwen-Hub-7B").first.click()
    linked.wait_for_selector("#model-page >> text=Revision")
    text = linked.locator("#model-page").inner_text()
    assert shas[QWEN][:12] in text and "8.3B" in text and "apache-2.0" in text
    assert linked.locator(f'#model-page a[href="https://huggingface.co/{QWEN}/tree/{shas[QWEN]}"]').count() == 1
    shot(linked, f"fields-model-page-{width}")
    context.close()
