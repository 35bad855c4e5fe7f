"""Two users on one store (two app instances, LEADERBOARD_LOCAL_USER alice and mallory): through
the API and the browser, a team's private entry is its own, only it publishes or withdraws it,
and no variant of a taken team name gets another account onto, or off, the board (docs/teams.md)."""

from __future__ import annotations

import pytest

from tests.support import demo
from tests.support.app_server import AppServer
from tests.ui.conftest import shot, start_app

gradio_client = pytest.importorskip("gradio_client")

DEMO_VARIANTS = [
    "demo", "DEMO", "Demo", " demo ", "de mo".replace(" ", "\u200b"), "d\u0435mo", "dem\u043e", "ｄｅｍｏ",
    "DEMO\u00a0", "\u200ddemo\ufeff", "dem\u03bf", "de\u0301mo",
]  # fmt: skip
"""Twelve ways of writing the demo team's name: case, spaces, zero-width, Cyrillic, full-width, Greek, accents."""


@pytest.fixture(scope="module")
def alice(tmp_path_factory):
    app = start_app(tmp_path_factory, "teams-app", LEADERBOARD_LOCAL_USER="alice", LEADERBOARD_REFRESH_SECONDS="2")
    yield app
    app.stop()


@pytest.fixture(scope="module")
def mallory(alice):
    app = AppServer(alice.data_dir, log=alice.data_dir.parent / "mallory.log", LEADERBOARD_LOCAL_USER="mallory")
    yield app.start()
    app.stop()


@pytest.fixture(scope="module")
def clients(alice, mallory):
    return gradio_client.Client(alice.url, verbose=False), gradio_client.Client(mallory.url, verbose=False)


def submit(client, path, model: str, team: str, visibility: str | None = None) -> dict:
    """The nine old parameters, plus ``visibility`` by name when given (defaults otherwise)."""
    args = ("kviscuit", gradio_client.handle_file(str(path)), model, team, "open", "xyxy", "", "", "")
    named = {"visibility": visibility} if visibility else {}
    return client.predict(*args, **named, api_name="/submit")


def public_csv(app: AppServer) -> bytes:
    return (app.data_dir / "results" / "data" / "kviscuit.csv").read_bytes()


def test_a_private_entry_is_its_teams_alone(clients, tmp_path):
    as_alice, as_mallory = clients
    path = demo.write_jsonl(tmp_path / "a.jsonl", demo.kviscuit_submission(demo.kviscuit_gold(0), 0.9, seed=31))
    answer = submit(as_alice, path, "Alice-VLM", "Alice Lab")  # the nine old parameters: private by default
    sid = answer["submission_id"]
    assert answer["status"] == "scored" and answer["rank"] is None and "Private" in answer["message"]
    mine = as_alice.predict("", api_name="/my_submissions")
    assert [e["submission_id"] for e in mine] == [sid] and mine[0]["visibility"] == "private"
    assert mine[0]["result"]["overall"]["acc"] == answer["result"]["overall"]["acc"]
    assert as_mallory.predict("", api_name="/my_submissions") == []
    for endpoint, args in (("/my_result", (sid,)), ("/publish", (sid, False, "")), ("/unpublish", (sid,))):
        with pytest.raises(Exception, match="No submission"):
            as_mallory.predict(*args, api_name=endpoint)
    published = as_alice.predict(sid, False, "", api_name="/publish")
    assert published["on_board"] and published["rank"] >= 1
    with pytest.raises(Exception, match="No submission"):
        as_mallory.predict(sid, api_name="/unpublish")
    assert as_alice.predict(sid, api_name="/my_result")["on_board"]


def test_no_variant_of_a_taken_name_moves_its_row(clients, alice, tmp_path):
    _, as_mallory = clients
    before = public_csv(alice)
    path = demo.write_jsonl(tmp_path / "m.jsonl", demo.kviscuit_submission(demo.kviscuit_gold(0), 0.1, seed=32))
    for variant in DEMO_VARIANTS:
        answer = submit(as_mallory, path, "Demo-GPT-4o (synthetic)", variant, "public")
        assert answer["status"] == "rejected", (variant, answer)
        assert answer["errors"][0]["code"] in ("team_taken", "mixed_script_team", "invisible_team"), variant
    refused = submit(as_mallory, path, "GPT-4-Turbo", "(paper)", "public")
    assert refused["errors"][0]["code"] == "reserved_team"
    assert public_csv(alice) == before


def test_my_submissions_page_publishes(alice, browser, tmp_path):
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        path = demo.write_jsonl(tmp_path / "b.jsonl", demo.kviscuit_submission(demo.kviscuit_gold(0), 0.8, seed=33))
        answer = submit(gradio_client.Client(alice.url, verbose=False), path, "Alice-Private-VLM", "Alice Lab")
        page.goto(alice.url + "/?tab=mine")  # the board's old link: redirected to the Gradio page's tab
        page.get_by_role("tab", name="My submissions", selected=True).wait_for()
        page.wait_for_function("() => document.querySelector('#mine-table').innerText.includes('Alice-Private-VLM')")
        page.locator("#mine-pick input").click()
        page.locator("#mine-pick [role=option]", has_text=answer["submission_id"]).first.click()
        page.wait_for_selector("#mine-detail >> text=Visibility")
        assert "private" in page.locator("#mine-detail").inner_text()
        page.locator("#mine-publish").click()
        page.wait_for_selector("#mine-msg >> text=Published")
        page.wait_for_selector("#mine-detail >> text=public row")
        shot(page, "teams-01-published")
    finally:
        context.close()
