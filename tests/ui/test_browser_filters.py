"""A filter declared on a field in this test (``filter=`` on ``submissions.fields.Field``, with no
edit of the board's code) shows its control on the board page in Chromium at 1440 and 390 px and
filters the rows: by a pick, by its deep link, by the keyboard (the focus stays on the control),
and Back undoes it. The page is baked in this process while the fields are declared and served
to Chromium through Playwright's request routing (no app process: the fields exist only here)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from leaderboard.config import UiSettings
from submissions import fields
from submissions.records import Identity, SubmissionForm
from submissions.request import SubmitRequest
from tests.support.baked_board import (
    ROWS,
    baked,
    baked_client,
    baked_page,
    baked_pages,
    open_board,
)
from tests.support.submissions import board, write_gold, write_submission
from tests.ui.conftest import shot

REGION = fields.Field("compute_region", "Compute region", 40, filter=fields.ColumnFilter("dropdown"))
WEIGHTS = fields.Field(
    "weights_licence", "Weights licence", widget=fields.Widget.CHOICE, default="permissive",
    choices=(fields.Choice("permissive", "permissive licence"), fields.Choice("restricted", "restricted licence")),
    filter=fields.ColumnFilter(label="Licence of the weights"),
)  # fmt: skip
MODELS = {
    "Rig-EU-open": ("EU", "permissive"),
    "Rig-US-open": ("US", "permissive"),
    "Rig-US-closed": ("US", "restricted"),
}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """The board page baked with two fields declared here and three rows giving them values."""
    root = tmp_path_factory.mktemp("filters")
    with fields.declaring(REGION, WEIGHTS):
        lb = board(root / "data", write_gold(root / "gold.jsonl"))
        for i, (model, (region, weights)) in enumerate(MODELS.items()):
            form = SubmissionForm.of(model=model, team="Rig lab", compute_region=region, weights_licence=weights,
                                     visibility="public")  # fmt: skip
            path = write_submission(root / f"{i}.jsonl", accuracy=0.5 + 0.1 * i, seed=i)
            assert lb.submissions.submit(SubmitRequest("scb", path, form, Identity("rig-lab"))).result is not None
        served = baked_client(lb)
    with served:
        yield served


@pytest.fixture(scope="module")
def pages(browser, client):
    with baked_pages(browser, client) as kept:
        yield kept


@pytest.fixture
def page(pages, width):
    with pages.open(width) as page:
        yield page


def ours(page) -> list[str]:
    names = page.locator(f"{ROWS} .model-name .name").all_inner_texts()
    return sorted(n for n in names if n.startswith("Rig-"))


def wait_gone(page, model: str) -> None:
    page.wait_for_function(
        "m => ![...document.querySelectorAll('#board-table .model-name .name')].some(n => n.innerText === m)", arg=model
    )


def query(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def open_filters(page) -> None:
    if not page.locator("#filters-box").evaluate("d => d.open"):
        page.locator("#filters-box summary").click()


def test_a_declared_filter_shows_its_control_and_filters_the_rows(page, width):
    open_board(page, "?bench=scb")
    assert ours(page) == sorted(MODELS)
    open_filters(page)
    region = page.get_by_label("Compute region")
    assert region.is_visible() and region.evaluate("s => s.tagName") == "SELECT"
    assert region.locator("option").all_inner_texts() == ["All", "not given", "EU", "US"]  # the paper rows have none
    region.select_option("US")
    page.wait_for_function("() => new URLSearchParams(location.search).get('compute_region') === 'US'")
    wait_gone(page, "Rig-EU-open")
    assert ours(page) == ["Rig-US-closed", "Rig-US-open"]
    assert all(n.startswith("Rig-US") for n in page.locator(f"{ROWS} .model-name .name").all_inner_texts())
    page.locator("#compute_region-choice").scroll_into_view_if_needed()
    shot(page, f"filters-declared-{width}")
    page.go_back()  # a state of the address: Back undoes it
    page.wait_for_function("() => !location.search.includes('compute_region')")
    page.wait_for_selector(f"{ROWS} >> text=Rig-EU-open")
    assert page.get_by_label("Compute region").input_value() == ""


def test_a_declared_checkbox_group_filters_by_a_click_and_by_its_deep_link(page, width):
    open_board(page, "?bench=scb&weights_licence=restricted")
    assert ours(page) == ["Rig-US-closed"]  # the deep link
    open_filters(page)
    group = page.get_by_role("group", name="Licence of the weights")
    boxes = group.get_by_role("checkbox")
    assert boxes.count() == 2 and not group.get_by_label("permissive licence").is_checked()
    group.get_by_label("permissive licence").check()
    page.wait_for_function("() => !location.search.includes('weights_licence')")  # every value ticked: the default
    page.wait_for_selector(f"{ROWS} >> text=Rig-EU-open")
    assert ours(page) == sorted(MODELS)
    group.get_by_label("restricted licence").uncheck()
    page.wait_for_function("() => new URLSearchParams(location.search).get('weights_licence') === 'permissive'")
    wait_gone(page, "Rig-US-closed")
    assert ours(page) == ["Rig-EU-open", "Rig-US-open"]


def test_a_declared_filter_works_by_keyboard_and_keeps_the_focus(page, width):
    open_board(page, "?bench=scb&compute_region=EU")
    assert ours(page) == ["Rig-EU-open"]
    open_filters(page)
    region = page.get_by_label("Compute region")
    assert region.input_value() == "EU"
    region.focus()
    page.keyboard.press("ArrowDown")  # EU -> US, a change as a keyboard makes it
    page.wait_for_function("() => new URLSearchParams(location.search).get('compute_region') === 'US'")
    page.wait_for_selector(f"{ROWS} >> text=Rig-US-open")
    assert ours(page) == ["Rig-US-closed", "Rig-US-open"]
    assert page.evaluate("() => document.activeElement.id") == "compute_region-choice"  # not dropped to <body>
    assert query(page)["bench"] == "scb"


def test_a_value_new_in_refreshed_data_is_kept_by_a_filter_left_as_it_was(browser, tmp_path):
    """An open page takes new results (every refresh_seconds): a filter offering the values rows
    have gains the new row's value, and with that filter untouched (every value kept) the new row shows."""
    site = fields.Field("compute_site", "Compute site", 40, filter=fields.ColumnFilter())
    with fields.declaring(site):
        lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))

        def submit(model: str, where: str, seed: int) -> None:
            form = SubmissionForm.of(model=model, team="Site lab", compute_site=where, visibility="public")
            path = write_submission(tmp_path / f"{seed}.jsonl", seed=seed)
            assert lb.submissions.submit(SubmitRequest("scb", path, form, Identity("site-lab"))).result is not None

        submit("Site-A-model", "Lab A", 1)
        client, baker = baked(lb, UiSettings(refresh_seconds=1))
        with baked_page(browser, client, 1440) as page:
            open_board(page, "?bench=scb")
            assert ours(page) == [] and "Site-A-model" in page.locator("#board-table").inner_text()
            submit("Site-B-model", "Lab B", 2)
            assert baker.refresh()
            page.wait_for_selector(f"{ROWS} >> text=Site-B-model")  # the page polled, reloaded its data, kept it
            open_filters(page)
            assert page.locator("#compute_site-choice").get_by_label("Lab B").is_checked()
            assert "compute_site" not in query(page)
