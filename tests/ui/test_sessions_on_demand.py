"""Sessions built on demand (ui/sessions.py) hold what Gradio's own would: the copy of
``SessionState.__init__`` is pinned attribute by attribute, and after the same events an eager
session (gradio's class) and an on-demand one give the same configs and the same deep link, on a
small page that exercises every write path and on the app's real page (a view change)."""

from __future__ import annotations

import secrets
from pathlib import Path

import gradio as gr
import httpx
import pytest
from gradio.state_holder import SessionState, StateHolder

from ui.sessions import ConfigsOnDemand, SessionOnDemand, SessionsOnDemand, build_sessions_on_demand


def small_page() -> gr.Blocks:
    """A value event, a property update, a State and a file output: every way an event writes."""
    with gr.Blocks() as page:
        text = gr.Textbox("hello", elem_id="text")
        echo = gr.Textbox(elem_id="echo")
        count = gr.State(0)
        shown = gr.Number(elem_id="count")
        box = gr.Dropdown(choices=["a"], value="a", elem_id="box")
        file = gr.File(elem_id="file")
        text.submit(lambda t, n: (t.upper(), n + 1, n + 1), [text, count], [echo, count, shown], queue=False)
        text.change(lambda t: gr.Dropdown(choices=["a", t], value=t, label=f"with {t}"), text, box, queue=False)
        echo.change(lambda t: write_file(t), echo, file, queue=False)
    return page


def write_file(text: str) -> str | None:
    if not text:
        return None
    path = Path(gr.utils.get_upload_folder()) / f"echo-{text}.txt"  # the same file for the same text
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def launched(page: gr.Blocks) -> tuple[str, StateHolder]:
    page.queue().launch(prevent_thread_lock=True, server_port=None, quiet=True)
    build_sessions_on_demand(page)
    return page.local_url.rstrip("/"), page.state_holder


def run(url: str, config: dict, session: str, elem_id: str, trigger: str, data: list) -> list:
    ids = {c["id"]: c.get("props", {}).get("elem_id") for c in config["components"]}
    fn = next(
        dep.get("id", i)
        for i, dep in enumerate(config["dependencies"])
        if any(ids.get(t[0]) == elem_id and t[1] == trigger for t in dep["targets"])
    )
    body = {"data": data, "event_data": None, "fn_index": fn, "trigger_id": None, "session_hash": session}
    answer = httpx.post(url + "/gradio_api/run/predict", json=body, timeout=60)
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]


def same_session_views(url: str, holder: StateHolder, eager: str, lazy: str) -> None:
    assert type(holder.session_data[eager]) is SessionState
    assert type(holder.session_data[lazy]) is SessionOnDemand
    assert list(holder[lazy].components) == list(holder[eager].components)
    links = [httpx.get(url + "/gradio_api/deep_link", params={"session_hash": s}, timeout=30) for s in (eager, lazy)]
    assert [r.status_code for r in links] == [200, 200]
    assert links[0].json() == links[1].json()  # a hash of the saved components: the same state


def test_the_copy_of_session_init_sets_what_gradio_sets():
    page = small_page()
    eager, lazy = SessionState(page), SessionOnDemand(page)
    assert sorted(vars(lazy)) == sorted(vars(eager))
    for name, value in vars(eager).items():
        if name == "blocks_config":
            assert lazy.blocks_config.blocks == value.blocks and lazy.blocks_config.fns == value.fns
        elif name == "config_values":
            assert isinstance(lazy.config_values, ConfigsOnDemand)
            assert len(lazy.config_values) == len(value)
            assert list(lazy.config_values.items()) == list(value.items())
        else:
            assert getattr(lazy, name) == value, name


def test_nothing_is_computed_before_it_is_read():
    page = small_page()
    session = SessionOnDemand(page)
    assert session.config_values._computed == {}
    some_id = next(iter(page.blocks))
    assert some_id in session.config_values and session.config_values._computed == {}
    assert session.config_values[some_id] == SessionState(page).config_values[some_id]
    assert list(session.config_values._computed) == [some_id]


def test_after_the_same_events_an_on_demand_session_equals_gradios():
    page = small_page()
    try:
        url, holder = launched(page)
        assert isinstance(holder, SessionsOnDemand)
        config = httpx.get(url + "/config", timeout=30).json()
        eager, lazy = "eager-" + secrets.token_hex(4), "lazy-" + secrets.token_hex(4)
        holder.session_data[eager] = SessionState(page)  # as gradio would have built it
        for session in (eager, lazy):
            run(url, config, session, "text", "submit", ["one", None])
            run(url, config, session, "text", "change", ["two"])
            echoed = run(url, config, session, "echo", "change", ["THREE"])
            assert echoed[0]["orig_name"].startswith("echo-")
            run(url, config, session, "text", "submit", ["four", None])
        assert holder[lazy].state_data == holder[eager].state_data and holder[lazy].state_data
        same_session_views(url, holder, eager, lazy)
    finally:
        page.close()


@pytest.fixture
def real_page(tmp_path, monkeypatch):
    import app
    from leaderboard.config import Settings
    from ui import build_app

    monkeypatch.setenv("LEADERBOARD_DATA_DIR", str(tmp_path / "data"))
    settings = Settings.from_env()
    page = build_app(app.open_leaderboard(settings), settings.ui)
    yield page
    page.close()


def test_a_view_change_on_the_real_page_leaves_the_same_session(real_page):
    url, holder = launched(real_page)
    config = httpx.get(url + "/config", timeout=30).json()
    eager, lazy = "eager-" + secrets.token_hex(4), "lazy-" + secrets.token_hex(4)
    holder.session_data[eager] = SessionState(real_page)
    for bench in ("scb", "kviscuit"):
        view = next(c for c in config["components"] if c.get("props", {}).get("elem_id") == f"{bench}-view")
        dep = next(d for d in config["dependencies"] if [view["id"], "input"] in [list(t) for t in d["targets"]])
        values = {c["id"]: c.get("props", {}).get("value") for c in config["components"]}
        data = ["type" if i == view["id"] else values.get(i) for i in dep["inputs"]]
        for session in (eager, lazy):
            body = {"data": data, "fn_index": dep["id"], "event_data": None, "trigger_id": None}
            body["session_hash"] = session
            answer = httpx.post(url + "/gradio_api/run/predict", json=body, timeout=60)
            assert answer.status_code == 200, answer.text
    assert len(holder[lazy].config_values._computed) < len(holder[lazy].config_values) / 4
    same_session_views(url, holder, eager, lazy)
