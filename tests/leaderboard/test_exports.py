"""Exports in the benchmarks' own sites' shapes, field for field (the SCB site's self-report JSON
and ``data/leaderboard.js`` rows; the K-Viscuit paper's Tables 2 and 3)."""

from __future__ import annotations

import json
from functools import partial

from scoring.benchmarks.kviscuit.declaration import CATEGORY
from scoring.benchmarks.kviscuit.site_export import markdown as kviscuit_markdown
from scoring.benchmarks.kviscuit.site_export import paper
from scoring.benchmarks.scb.site_export import official as scb_official
from submissions.request import SubmitRequest

kviscuit_paper = partial(paper, CATEGORY)
"""K-Viscuit's paper tables of a result, with the category grouping its declaration binds."""

SELF_REPORT = json.loads(
    """{"model": "YourModel-7B", "group": "Open", "t1_acc": 0.0, "t1_miou": 0.0, "t2_acc": 0.0, "t2_miou": 0.0,
     "t3_acc": 0.0, "t3_miou": 0.0, "acc": 0.0, "miou": 0.0, "paper_or_repo": "https://...",
     "contact": "you@example.org"}"""
)
"""The SCB site's submission template (index.html "Submit"), as published."""

SITE_ROW = json.loads(
    """{"model": "GPT-o3", "group": "Closed", "t1_acc": 73.69, "t1_miou": 31.10, "t2_acc": 91.13, "t2_miou": 32.50,
     "t3_acc": 88.23, "t3_miou": 31.69, "acc": 85.15, "miou": 31.78, "date": "2025-11",
     "source": "https://aclanthology.org/2025.emnlp-main.1131/"}"""
)
"""A row of the SCB site's data/leaderboard.js, as published."""


def gpt_o3_result() -> dict:
    """GPT-o3's published figures (SCB Table 2) as our stored result record, at full precision."""
    return {
        "benchmark": "scb",
        "overall": {"acc": 2706 / 3178 * 100, "miou": 31.7812, "acc_ci": [84.0, 86.2]},
        "type": {
            "1": {"acc": 619 / 840 * 100, "miou": 31.1021},
            "2": {"acc": 760 / 834 * 100, "miou": 32.4988},
            "3": {"acc": 1327 / 1504 * 100, "miou": 31.6901},
        },
        "country": {"Vietnam": {"acc": 80.0}},
    }


def test_scb_export_has_every_field_of_the_site_template_and_row():
    out = scb_official(
        gpt_o3_result(),
        model="GPT-o3",
        model_type="closed",
        date="2025-11-03T10:00:00Z",
        source="https://leaderboard.example/?bench=scb&model=abc123",
        paper_or_repo="https://aclanthology.org/2025.emnlp-main.1131/",
        contact="team@example.org",
    )
    assert set(SELF_REPORT) <= set(out) and set(SITE_ROW) <= set(out)
    assert set(out) == set(SELF_REPORT) | set(SITE_ROW)
    for key in SITE_ROW:
        if key != "source":
            assert out[key] == SITE_ROW[key], key
    assert out["source"].endswith("model=abc123")
    assert all(type(out[k]) is type(SELF_REPORT[k]) for k in SELF_REPORT)


def test_scb_export_writes_null_miou_for_a_model_without_grounding():
    result = {"overall": {"acc": 10.0, "miou": None}, "type": {t: {"acc": 10.0, "miou": None} for t in "123"}}
    out = scb_official(result, model="M", model_type="open", date="2026-12-01", source="s")
    assert out["miou"] is None and out["t2_miou"] is None and out["group"] == "Open"
    assert json.loads(json.dumps(out))["miou"] is None


def test_kviscuit_export_follows_the_papers_tables():
    # LLaVA-1.6-13B (SPEC "Parity"): 128 of 237 type-1 and 247 of 420 type-2 questions
    result = {
        "overall": {"acc": 375 / 657 * 100},
        "type": {"1": {"acc": 128 / 237 * 100}, "2": {"acc": 247 / 420 * 100}},
        "category": {"GamePlayPerformance": {"acc": 50.0}, "Food": {"acc": 60.0}},
    }
    paper = kviscuit_paper(result, model="LLaVA-1.6-13B", source="s")
    assert paper["table2"] == {"Visual Recognition": 54.01, "Visual Reasoning": 58.81, "Overall": 57.08}
    assert list(paper["table3"]) == [
        "Food", "Beverage", "Game", "Celebrations", "Religion", "Tool", "Clothes", "Heritage", "Architecture",
        "Agriculture",
    ]  # fmt: skip
    assert paper["table3"]["Game"] == 50.0 and paper["table3"]["Beverage"] is None
    table = kviscuit_markdown(paper).splitlines()
    assert table[0].startswith("| Model | Visual Recognition | Visual Reasoning | Overall | Food |")
    assert table[2].startswith("| LLaVA-1.6-13B | 54.01 | 58.81 | 57.08 | 60.00 | - |")


def test_the_cli_exports_a_public_row_with_a_link_back(tmp_path):
    """``python -m leaderboard export`` fills the SCB self-report from the row's scored figures."""
    from tests.leaderboard.test_cli import cli, table_json
    from tests.support.submissions import MAINTAINER, board, form, small_gold, write_gold, write_submission

    data = tmp_path / "data"
    gold = small_gold()
    lb = board(data, write_gold(tmp_path / "gold.jsonl", gold))
    lb.submissions.submit(
        SubmitRequest(
            "scb",
            write_submission(tmp_path / "s.jsonl", gold, accuracy=0.7, seed=3, grounding="bbox_good"),
            form("Exp-VLM", "Lab"),
            MAINTAINER,
        )
    )
    row = next(r for r in table_json(data) if r["model"] == "Exp-VLM")
    out = json.loads(cli(data, "export", "--benchmark", "scb", row["row_id"], "--contact", "me@example.org").stdout)
    assert set(out) == set(SELF_REPORT) | set(SITE_ROW)
    assert out["acc"] == round(row["overall.acc"], 2) and out["miou"] == round(row["overall.miou"], 2)
    assert out["source"].endswith(f"model={row['row_id']}") and out["contact"] == "me@example.org"
    assert cli(data, "export", "--benchmark", "scb", "nope", ok=False).returncode == 1


def test_a_leniently_read_kviscuit_row_is_marked_as_not_the_papers_protocol():
    """The paper's rows use the exact-letter rule: a file read leniently (acc 24.96, acc_strict 0.00,
    issue 28) must not pass for a paper-table row."""
    result = {
        "overall": {"acc": 164 / 657 * 100, "acc_strict": 0.0},
        "counts": {"lenient": 657, "answered": 657},
        "type": {"1": {"acc": 25.0}, "2": {"acc": 24.9}},
        "category": {"Food": {"acc": 30.0}},
    }
    paper = kviscuit_paper(result, model="Toy", source="s")
    assert paper["lenient"] == 657 and paper["strict_overall"] == 0.0
    table = kviscuit_markdown(paper).splitlines()
    assert table[2].startswith("| Toy † | 25.00 | 24.90 | 24.96 |")
    assert table[3].startswith("† 657 responses read by rules looser than the paper's exact-letter protocol")
    assert "0.00" in table[3]
    strict = kviscuit_paper({**result, "counts": {"lenient": 0}}, model="Exact", source="s")
    assert strict["lenient"] == 0 and len(kviscuit_markdown(strict).splitlines()) == 3
    assert "†" not in kviscuit_markdown(strict)


def test_each_declaration_carries_its_sites_export():
    """``python -m leaderboard export`` calls the declaration's ``site_export`` (no branch on the id):
    SCB's gives the self-report record, K-Viscuit's the paper tables, as a record or as Markdown."""
    from scoring.benchmarks import get_benchmark
    from scoring.benchmarks.base import SiteRow

    row = SiteRow(model="GPT-o3", model_type="closed", date="2025-11-03T10:00:00Z", source="s", contact="c")
    assert get_benchmark("scb").site_export(gpt_o3_result(), row) == scb_official(
        gpt_o3_result(), model="GPT-o3", model_type="closed", date="2025-11-03T10:00:00Z", source="s", contact="c"
    )
    result = {"overall": {"acc": 50.0}, "type": {"1": {"acc": 40.0}}, "category": {"Food": {"acc": 60.0}}}
    paper = kviscuit_paper(result, model="M", source="s")
    kviscuit = get_benchmark("kviscuit").site_export
    assert kviscuit(result, SiteRow(model="M", source="s")) == paper
    assert kviscuit(result, SiteRow(model="M", source="s", markdown=True)) == kviscuit_markdown(paper)
