"""Rows that name their Hub model, on the board page in Chromium at 1440 and 390 px: the Size and
Licence columns, the type badge, the Hub link on the name and in Links, the size filter (from a
deep link and from a click), the model page's pinned revision linked to its commit, and the "†"
mark of a K-Viscuit row read leniently beside its strict-protocol figure. The facts were read from
the test Hub when the rows were submitted (tests/support/hub_models.py); the app itself runs
offline, as the board never asks again."""

from __future__ import annotations

import os
from urllib.parse import parse_qs, urlparse

import pytest
import yaml

from leaderboard.columns import LENIENT_KEY
from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from submissions.model_hub import HubModels
from submissions.records import Identity, SubmissionForm
from submissions.request import SubmitRequest
from tests.support import demo
from tests.support.app_server import AppServer, seeded_copy
from tests.support.browser_pages import ROWS, open_board
from tests.support.hub_models import LLAMA, QWEN, UNINDEXED, publish_models
from tests.support.hub_server import HubServer
from tests.ui.conftest import shot

HUB_ROWS = {"Qwen-Hub-7B": (QWEN, 0.7), "Tiny-Hub-1.5B": (UNINDEXED, 0.5), "Llama-Hub-90B": (LLAMA, 0.6)}
LENIENT = "Lenient-KV"


def kviscuit_lenient_lines() -> list[dict]:
    """Every answer right, every other one spelled "Image X" (read leniently, not by the exact letter)."""
    right = ["ABCD"[r["answer"]] for r in demo.kviscuit_gold(0)]
    return [{"question_id": i, "response": f"Image {a}" if i % 2 else a} for i, a in enumerate(right)]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """A demo store plus three public SCB rows whose facts come from the test Hub and a K-Viscuit
    row read leniently; the pinned shas."""
    hub = HubServer().start()
    try:
        shas = publish_models(hub)
        data = tmp_path_factory.mktemp("fields-app") / "data"
        seeded_copy(dict(os.environ), data, str(data))  # the default app's demo seed, made once per run
        lb = Leaderboard(Settings(data_dir=data))
        assert lb.board("scb").rows  # seeded
        lb.intake.model_facts = HubModels(hub.url, timeout=5)
        gold = demo.scb_gold(0)
        for i, (name, (repo, accuracy)) in enumerate(HUB_ROWS.items()):
            path = demo.write_jsonl(data.parent / f"{name}.jsonl", demo.scb_submission(gold, accuracy, "bbox_good", i))
            form = SubmissionForm.of(model=name, team="Hub lab", model_repo=repo, visibility="public")
            answer = lb.submissions.submit(SubmitRequest("scb", path, form, Identity("hub-lab")))
            assert answer.result is not None and answer.warnings == (), answer
        path = demo.write_jsonl(data.parent / "lenient.jsonl", kviscuit_lenient_lines())
        form = SubmissionForm.of(model=LENIENT, team="KV lab", visibility="public")
        answer = lb.submissions.submit(SubmitRequest("kviscuit", path, form, Identity("kv-lab")))
        assert answer.result is not None and answer.result.counts["lenient"] > 0, answer
    finally:
        hub.stop()
    return data, shas


@pytest.fixture(scope="module")
def server(seeded):
    data, _ = seeded
    app = AppServer(data).start()
    yield app
    app.stop()


def models(page) -> list[str]:
    return page.locator(f"{ROWS} .model-name .name").all_inner_texts()


def row(page, model: str):
    return page.locator(ROWS, has=page.locator(".model-name .name", has_text=model)).first


SCROLL_TO_THE_RIGHT_END = """() => new Promise(drawn => {
    const holder = document.querySelector('#board-table .tabulator-tableholder');
    const before = holder.scrollLeft;
    holder.addEventListener('scroll', () => drawn(), {once: true});  // after Tabulator's own listener
    holder.scrollLeft = 1e6;
    if (holder.scrollLeft === before) drawn();  // already there: no scroll event comes
})"""
"""Scroll the board to its right end and return once Tabulator has drawn the columns now in sight:
its scroll listener draws them, and this one, added later, runs after it (a 200 ms wait here could
end first on a loaded host)."""


def row_text(page, model: str, width: int) -> str:
    """What a visitor reads of a row: on a phone the columns folded into it are opened first; on a
    wide screen the table is scrolled to its right end (only the columns in sight get cells)."""
    target = row(page, model)
    if width < 500:
        if not target.locator(".tabulator-responsive-collapse").is_visible():
            target.locator(".tabulator-responsive-collapse-toggle").click()
        target.locator(".tabulator-responsive-collapse").wait_for(state="visible")
    else:
        page.evaluate(SCROLL_TO_THE_RIGHT_END)
    return target.inner_text()


def open_filters(page) -> None:
    if not page.locator("#filters-box").evaluate("d => d.open"):
        page.locator("#filters-box summary").click()


def size_box(page, bucket: str):
    return page.locator("#size-choice label", has_text=bucket).first.locator("input")


def query(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_hub_rows_show_size_licence_badge_and_hub_link(page, server, width):
    open_board(page, server.url, "?bench=scb&sources=scored%20here")
    name = row(page, "Qwen-Hub-7B").locator(".model-name .name a")
    assert name.get_attribute("href") == f"https://huggingface.co/{QWEN}"  # the name links the Hub page
    headers = page.locator("#board-table .tabulator-header").inner_text()
    if width > 500:
        assert "Model type" in headers
        badge = row(page, "Qwen-Hub-7B").locator(".type-badge")
        assert badge.inner_text() == "open weights" and "tone-green" in badge.get_attribute("class")
    shot(page, f"fields-board-{width}")
    qwen = row_text(page, "Qwen-Hub-7B", width)
    assert "8.3B" in qwen and "apache-2.0" in qwen and "open weights" in qwen
    badge = row(page, "Qwen-Hub-7B").locator(".type-badge >> visible=true")
    assert badge.count() == 1 and "tone-green" in badge.get_attribute("class")
    hub = row(page, "Qwen-Hub-7B").get_by_role("link", name="Hub", exact=True).locator("visible=true")
    assert hub.count() == 1  # the Links cell's Hub link
    assert hub.get_attribute("href") == f"https://huggingface.co/{QWEN}"
    for model, size, licence in (("Tiny-Hub-1.5B", "1.5B", "mit"), ("Llama-Hub-90B", "88.6B", "llama3.2")):
        text = row_text(page, model, width)
        assert size in text and licence in text, text
    if width > 500:
        headers = page.locator("#board-table .tabulator-header").inner_text()
        assert "Size" in headers and "Licence" in headers and "Links" in headers
        assert page.locator("#board-table .tabulator-col[tabulator-field='model_params']").is_visible()
    shot(page, f"fields-board-facts-{width}")


def test_the_size_column_sorts_by_the_parameter_count(page, server, width):
    if width < 500:
        pytest.skip("a phone folds the Size column into the row: no header to click")
    open_board(page, server.url, "?bench=scb&sort=model_params:desc")
    page.wait_for_function("() => document.querySelector('#board-table .tabulator-row .model-name .name')"
                           ".innerText === 'Llama-Hub-90B'")  # fmt: skip
    assert models(page)[:3] == ["Llama-Hub-90B", "Qwen-Hub-7B", "Tiny-Hub-1.5B"]  # 88.6B > 8.3B > 1.5B, unknown last


def test_the_size_filter_works_from_a_deep_link_and_a_click(page, server, width):
    open_board(page, server.url, "?bench=scb&sources=scored%20here&sizes=~7B")
    assert models(page) == ["Qwen-Hub-7B"]  # the demo rows have no repo: unknown size
    open_filters(page)
    assert size_box(page, "~7B").is_checked() and not size_box(page, "~1.5B").is_checked()
    page.locator("#size-choice label", has_text=">70B").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('sizes') === '>70B,~7B'")
    page.wait_for_selector(f"{ROWS} >> text=Llama-Hub-90B")
    assert sorted(models(page)) == ["Llama-Hub-90B", "Qwen-Hub-7B"]
    page.locator("#size-choice").scroll_into_view_if_needed()
    shot(page, f"fields-size-filter-{width}")
    page.locator("#size-choice label", has_text="unknown size").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('sizes').includes('unknown size')")
    page.wait_for_selector(f"{ROWS} >> text=Demo-")
    assert "Tiny-Hub-1.5B" not in models(page) and any(m.startswith("Demo-") for m in models(page))
    page.go_back()  # the filter is a state of the address: Back undoes the click
    page.wait_for_function("() => new URLSearchParams(location.search).get('sizes') === '>70B,~7B'")
    assert query(page)["sources"] == "scored here"


def test_the_model_page_shows_the_pinned_revision_linked_to_its_commit(page, server, seeded, width):
    _, shas = seeded
    open_board(page, server.url, "?bench=scb&sources=scored%20here")
    row(page, "Qwen-Hub-7B").locator(".tabulator-cell[tabulator-field='overall.acc']").click()
    page.wait_for_selector("#model-page:not([hidden]) >> text=Revision")
    text = page.locator("#model-page").inner_text()
    assert shas[QWEN][:12] in text and "8.3B" in text and "apache-2.0" in text and "open weights" in text
    revision = page.locator(f'#model-page a[href="https://huggingface.co/{QWEN}/tree/{shas[QWEN]}"]')
    assert revision.count() == 1 and revision.inner_text() == shas[QWEN][:12] and revision.is_visible()
    hub = page.locator("#model-page").get_by_role("link", name="Hub", exact=True)
    assert hub.count() == 1 and hub.get_attribute("href") == f"https://huggingface.co/{QWEN}"
    shot(page, f"fields-model-page-{width}")
    open_board(page, server.url, "?bench=scb&q=Demo-GPT")  # a row without a Hub repo has no facts line
    row(page, "Demo-GPT").locator(".tabulator-cell[tabulator-field='overall.acc']").click()
    page.wait_for_selector("#model-page:not([hidden]) h2")
    assert "Revision" not in page.locator("#model-page").inner_text()


def test_the_model_page_offers_the_rows_eval_results_file_for_the_hub(page, server, width):
    """A person on a model page clicks the file link and gets the Hub's ``.eval_results`` YAML of
    the figures the page shows; an anonymous or paper row has no link."""
    open_board(page, server.url, "?bench=scb&sources=scored%20here")
    row(page, "Qwen-Hub-7B").locator(".tabulator-cell[tabulator-field='overall.acc']").click()
    page.wait_for_selector("#model-page:not([hidden]) #model-hub-file")
    shown = page.locator("#model-page .model-table").first.inner_text()
    link = page.locator("#model-hub-file a")
    link.focus()
    with page.expect_download() as download:
        page.keyboard.press("Enter")
    assert download.value.suggested_filename == "scb.yaml"
    listed = yaml.safe_load(download.value.path().read_text(encoding="utf-8"))
    assert [e["dataset"]["task_id"] for e in listed] == ["scb_accuracy"]  # mIoU has no Hub task (issue 42)
    assert all(f"{e['value']:.2f}" in shown for e in listed)  # the page's own figures
    assert all(e["source"]["url"].endswith("?bench=scb&model=" + parse_qs(urlparse(page.url).query)["model"][0])
               for e in listed)  # fmt: skip
    shot(page, f"fields-model-page-hub-file-{width}")
    open_board(page, server.url, "?bench=scb&sources=reported%20in%20paper")
    page.locator(ROWS).first.locator(".tabulator-cell[tabulator-field='overall.acc']").click()
    page.wait_for_selector("#model-page:not([hidden]) h2")
    assert page.locator("#model-hub-file").count() == 0


def test_a_kviscuit_row_read_leniently_is_marked_beside_its_strict_figure(page, server, width):
    open_board(page, server.url, "?bench=kviscuit&sources=scored%20here")
    lenient = row(page, LENIENT)
    mark = lenient.locator(".lenient-mark")
    assert mark.inner_text() == "†" and mark.is_visible() and "exact-letter" in mark.get_attribute("title")
    table = Leaderboard(Settings(data_dir=server.data_dir)).table("kviscuit", "overall")
    read_leniently = sorted(table[table[LENIENT_KEY] > 0]["model"])
    marked = page.locator(f"{ROWS}", has=page.locator(".lenient-mark")).locator(".model-name .name")
    assert LENIENT in read_leniently and len(read_leniently) < len(table)  # some rows are read strictly
    assert sorted(marked.all_inner_texts()) == read_leniently  # exactly those rows are marked
    text = row_text(page, LENIENT, width)
    assert "100.00" in text  # lenient Acc: every answer right ...
    assert f"{100 * 329 / 657:.2f}" in text  # ... the strict protocol counts only the exact letters (329 of 657)
    assert "Read leniently" in text + page.locator("#board-table .tabulator-header").inner_text()
    strict = page.locator("#board-table .tabulator-col[tabulator-field='overall.acc_strict']")
    assert strict.is_visible() and "Acc strict" in strict.inner_text()  # a headline figure, on a phone too
    shot(page, f"fields-lenient-{width}")
    lenient.locator(".model-name").click()
    page.wait_for_selector("#model-page:not([hidden]) .lenient-mark")
    assert page.locator("#model-page h2").inner_text().startswith("†")
