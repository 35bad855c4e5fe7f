"""The first new declared field, ``model_repo``, end to end on a local board whose model facts
come from the test Hub: the facts pinned at submission, the board page's data (size, its bucket
for the size filter, licence, links, the model page's revision: ui/board_data.py), and none of it
on an anonymous row before its reveal. The page drawing them is tested in Chromium
(tests/ui/test_browser_fields.py)."""

from __future__ import annotations

import pytest

from leaderboard import dates
from submissions import fields
from submissions.model_hub import HubModels
from submissions.request import SubmitRequest
from tests.support.hub_models import QWEN, QWEN_PARAMS, UNINDEXED, publish_models
from tests.support.submissions import ALICE, board, form, write_gold, write_submission
from ui.board_data import benchmark_data


@pytest.fixture
def hub(hub_server):
    return hub_server, publish_models(hub_server)


@pytest.fixture
def lb(tmp_path, hub):
    server, _ = hub
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))
    lb.intake.model_facts = HubModels(server.url, timeout=3)
    return lb


def submit(lb, tmp_path, name: str, seed: int = 1, **extra):
    path = write_submission(tmp_path / f"{name}.jsonl", accuracy=0.6, seed=seed)
    return lb.submissions.submit(SubmitRequest("scb", path, form(name, "Hub team", **extra), ALICE))


def row_of(lb, name: str):
    return next(r for r in lb.board("scb").rows if r.model == name)


def page_rows(lb) -> dict[str, dict]:
    """The board page's rows of SCB (what the browser gets), by model name."""
    return {r["model"]: r for r in benchmark_data(lb, lb_bench())["rows"]}


def test_the_repos_facts_are_pinned_when_submitted_and_shown_on_the_board(lb, tmp_path, hub):
    _, shas = hub
    answer = submit(lb, tmp_path, "Qwen-VL", model_repo=f"https://huggingface.co/{QWEN}/tree/main")
    assert answer.result is not None and answer.warnings == ()
    info = lb.catalog.get(answer.submission_id).meta.info
    architecture = "Qwen2_5_VLForConditionalGeneration"
    assert info == {"model_repo": QWEN, "model_sha": shas[QWEN], "model_params": str(QWEN_PARAMS),
                    "model_license": "apache-2.0", "model_architecture": architecture}  # fmt: skip
    table = lb.table("scb")
    ours = table[table["model"] == "Qwen-VL"].iloc[0]
    assert ours["model_params"] == QWEN_PARAMS and ours["model_license"] == "apache-2.0"
    page = page_rows(lb)["Qwen-VL"]  # the board page's row
    assert page["model_params"] == QWEN_PARAMS and page["_size_text"] == "8.3B" and page["_size"] == "~7B"
    assert page["model_license"] == "apache-2.0" and page["_links"][0] == [f"https://huggingface.co/{QWEN}", "Hub"]
    assert page["_facts"] == [
        ["Parameters", "8.3B", ""],
        ["Licence", "apache-2.0", ""],
        ["Architecture", architecture, ""],
        ["Revision", shas[QWEN][:12], f"https://huggingface.co/{QWEN}/tree/{shas[QWEN]}"],
    ]


def lb_bench():
    from scoring.benchmarks import get_benchmark

    return get_benchmark("scb")


def test_the_size_filter_keeps_the_buckets_chosen(lb, tmp_path):
    submit(lb, tmp_path, "Qwen-VL", model_repo=QWEN)  # 8.3B: ~7B
    submit(lb, tmp_path, "Tiny", seed=2, model_repo=UNINDEXED)  # 1.5B from the file headers: ~1.5B
    submit(lb, tmp_path, "API-model", seed=3)  # no repo: unknown size

    rows = [r for r in page_rows(lb).values() if r["team"] == "Hub team"]

    def kept(*sizes):  # the page's size filter keeps the rows whose bucket was chosen (ui/static/board.js)
        return sorted(r["model"] for r in rows if r["_size"] in sizes)

    assert kept("~7B") == ["Qwen-VL"] and kept("~1.5B") == ["Tiny"] and kept(fields.UNKNOWN_SIZE) == ["API-model"]
    assert kept("~7B", "~1.5B") == ["Qwen-VL", "Tiny"] and kept(">70B") == []
    assert kept(*fields.SIZE_CHOICES) == ["API-model", "Qwen-VL", "Tiny"]
    assert fields.size_bucket(70_600_000_000) == "~70B" and fields.size_bucket(405 * 10**9) == ">70B"
    assert fields.size_bucket(14_800_000_000) == "~14B" and fields.size_bucket("") == fields.UNKNOWN_SIZE


def test_a_missing_or_private_repo_refuses_the_form_and_stores_nothing(lb, tmp_path):
    answer = submit(lb, tmp_path, "Typo", model_repo="Qwen/Qwen2.5-VL-7B-Instrcut")
    assert answer.status == "rejected" and [i.code for i in answer.issues] == ["model_repo_not_found"]
    assert "Qwen/Qwen2.5-VL-7B-Instrcut" in answer.message + answer.issues[0].message
    assert lb.catalog.all("scb") == [] or all(s.meta.model != "Typo" for s in lb.catalog.all("scb"))
    bad = submit(lb, tmp_path, "Bad", model_repo="not a repo")
    assert [i.code for i in bad.issues] == ["bad_model_repo"]


def test_rate_limited_the_row_is_scored_without_its_facts_and_says_so(lb, tmp_path, hub):
    server, _ = hub
    server.inject(r"GET /api/models/", "ratelimit", times=10)
    answer = submit(lb, tmp_path, "Qwen-VL", model_repo=QWEN)
    assert answer.result is not None and [w.code for w in answer.warnings] == ["model_info_missing"]
    assert "rate-limited" in answer.to_api()["warnings"][0]["message"]
    assert lb.catalog.get(answer.submission_id).meta.info == {"model_repo": QWEN}
    page = page_rows(lb)["Qwen-VL"]
    assert page["_links"] == [[f"https://huggingface.co/{QWEN}", "Hub"]]  # the link still stands


def test_another_repo_for_the_same_file_is_a_new_submission_not_a_repeat(lb, tmp_path):
    first = submit(lb, tmp_path, "Qwen-VL", model_repo=QWEN)
    again = submit(lb, tmp_path, "Qwen-VL", model_repo=QWEN)
    other = submit(lb, tmp_path, "Qwen-VL", model_repo=UNINDEXED)
    assert again.duplicate_of == first.submission_id and other.duplicate_of is None


def test_an_anonymous_row_shows_no_repo_size_licence_or_revision_until_its_reveal(lb, tmp_path, monkeypatch):
    answer = submit(lb, tmp_path, "Lab-Secret", model_repo=QWEN, anonymous=True, reveal_date="2030-06-01")
    assert answer.result is not None
    hidden = next(r for r in lb.board("scb").rows if r.submission_id == answer.submission_id)
    assert hidden.model == "Anonymous submission" and hidden.info == {}
    table = lb.table("scb", "all")  # every public column, the page-only ones too
    row = table[table["model"] == "Anonymous submission"].iloc[0]
    assert row["model_repo"] == "" and row["model_license"] == "" and row["model_sha"] == ""
    assert row["model_params"] is None or str(row["model_params"]) == "<NA>"
    assert QWEN not in table.astype(str).to_csv() and "apache" not in table.astype(str).to_csv()
    page = page_rows(lb)["Anonymous submission"]
    assert page["_facts"] == [] and page["_links"] == [] and page["_size"] == fields.UNKNOWN_SIZE
    assert QWEN not in str(page) and "8.3B" not in str(page) and "apache" not in str(page)
    monkeypatch.setattr(dates, "today", lambda: "2030-06-01")  # the reveal date has come
    shown = next(r for r in lb.board("scb").rows if r.submission_id == answer.submission_id)
    assert shown.model == "Lab-Secret" and shown.value("model_repo") == QWEN and shown.value("model_params")
