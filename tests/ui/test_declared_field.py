"""A descriptive field declared here, in the tests only (submissions.fields.declaring), reaches
every layer with no production edit: the Submit form's widget, the ``/submit`` parameters and
the endpoint that takes them, the CLI flag, the stored record, the board's column and cell, the
public dataset and its card; and it is kept off an anonymous row (the redaction is an allow-list).
A value its check refuses is a field issue."""

from __future__ import annotations

import json
import re

import pytest

from leaderboard import cli
from leaderboard.columns import shown_columns
from leaderboard.config import UiSettings
from leaderboard.publish import card, public_frame
from scoring.benchmarks import get_benchmark
from store.layout import SubmissionFile
from submissions import fields
from tests.support.submissions import board, write_gold, write_submission
from tests.ui.fakes import Request
from ui.app import build_app
from ui.auth import Auth
from ui.board_data import benchmark_data
from ui.submit import Submitter

RIG = fields.Field(
    "compute_rig",
    "Compute rig",
    40,
    check=lambda v: None if re.fullmatch(r"[\w .+-]+", v) else "compute_rig may hold letters, digits, spaces and .+-",
    hint="optional, e.g. 8xH100",
    meaning="the hardware the team ran the model on",
    elem="rig",
)
SHOWN = "8xH100 SXM"


def no_progress(*args, **kwargs) -> None:
    pass


@pytest.fixture
def declared():
    with fields.declaring(RIG):
        yield RIG
    assert "compute_rig" not in {f.name for f in fields.declared()}  # gone after the block


@pytest.fixture
def lb(tmp_path):
    return board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))


def api_submit(lb, path, model: str, **extra) -> dict:
    """Through the function ``/submit`` serves (ui.submit.Submitter.endpoint), positionally as Gradio calls it."""
    endpoint = Submitter(lb, Auth(UiSettings())).endpoint()
    args = ("scb", str(path), model, "Rig team", "open", "xyxy", "", "", "")
    return endpoint(*args, Request(), None, no_progress, **extra)


def test_a_field_declared_in_a_test_reaches_form_api_cli_record_board_and_dataset(declared, lb, tmp_path):
    # the form and the API: a widget, and a /submit parameter after the ones before it
    page = build_app(lb, UiSettings())
    widget = next(b for b in page.blocks.values() if getattr(b, "elem_id", None) == "sub-rig")
    assert widget.label == "Compute rig (optional, e.g. 8xH100)" and widget.max_length == 40
    params = [p["parameter_name"] for p in page.get_api_info()["named_endpoints"]["/submit"]["parameters"]]
    # declared fields follow the ones declared before them; more_files (issue 28, a file, not a field) stays last
    assert params[-5:] == ["reveal_date", "grounding_format", "model_repo", "compute_rig", "more_files"]
    path = write_submission(tmp_path / "a.jsonl", accuracy=0.7)
    answer = api_submit(lb, path, "Rig-API", compute_rig=SHOWN, visibility="public")
    assert answer["status"] == "scored", answer
    # the CLI
    cli_file = write_submission(tmp_path / "b.jsonl", accuracy=0.6, seed=2)
    args = cli._parser().parse_args(["submit", "--benchmark", "scb", "--file", str(cli_file), "--model", "Rig-CLI",
                                     "--team", "Rig team", "--user", "alice", "--compute-rig", SHOWN])  # fmt: skip
    assert cli._submit(lb, args) == 0
    # the stored record: flat beside the others
    for state in lb.catalog.all("scb"):
        body = json.loads(lb.store.read("submissions", SubmissionFile.meta("scb", state.meta.id).path))
        assert body["compute_rig"] == SHOWN and list(body)[-1] == "compute_rig"
    # the board: a column, the value in each row, shown under its header
    table = lb.table("scb")
    ours = table[table["team"] == "Rig team"]
    assert sorted(ours["model"]) == ["Rig-API", "Rig-CLI"] and set(ours["compute_rig"]) == {SHOWN}
    bench = get_benchmark("scb")
    assert "Compute rig" in [c.header for c in shown_columns(bench)]
    page = benchmark_data(lb, bench)  # what the board page sends the browser
    (column,) = [c for v in page["views"] if v["id"] == "overall" for c in v["columns"] if c["header"] == "Compute rig"]
    assert {row[column["key"]] for row in page["rows"] if row["team"] == "Rig team"} == {SHOWN}
    # the public dataset and its card
    public = public_frame("scb", lb.board("scb").rows)
    assert set(public.loc[public["team"] == "Rig team", "compute_rig"]) == {SHOWN}
    assert "`compute_rig` | the hardware the team ran the model on" in card("results").decode()


def test_the_declared_field_is_not_on_an_anonymous_row(declared, lb, tmp_path):
    path = write_submission(tmp_path / "a.jsonl", accuracy=0.7)
    answer = api_submit(lb, path, "Secret-Model", compute_rig=SHOWN, visibility="public", anonymous=True,
                        reveal_date="2999-01-01")  # fmt: skip
    assert answer["status"] == "scored"
    assert lb.catalog.get(answer["submission_id"]).meta.info["compute_rig"] == SHOWN  # kept, for the reveal
    table = lb.table("scb")
    assert SHOWN not in set(table["compute_rig"]) and "Secret-Model" not in set(table["model"])
    public = public_frame("scb", lb.board("scb").rows)
    assert SHOWN not in public.astype(str).to_csv()
    assert "compute_rig" not in fields.anonymous_allowed_fields()


def test_a_value_its_check_refuses_is_a_field_issue(declared, lb, tmp_path):
    answer = api_submit(lb, write_submission(tmp_path / "a.jsonl"), "M", compute_rig="<b>rig</b>")
    assert answer["status"] == "rejected" and [e["code"] for e in answer["errors"]] == ["bad_compute_rig"]
    too_long = api_submit(lb, write_submission(tmp_path / "a.jsonl"), "M", compute_rig="x" * 41)
    assert [e["code"] for e in too_long["errors"]] == ["field_too_long"]


def test_an_anonymous_row_keeps_only_the_fields_declared_non_identifying(declared):
    """Every public field, the test's included, walked through the redaction the board applies to an
    anonymous entry (``leaderboard.table._shown`` under the disclosure rule, for a visitor): only the
    allow-list survives. (It walked ``leaderboard.table.anonymised``, a copy of the redaction nothing
    but this test called.)"""
    from types import SimpleNamespace

    from leaderboard.table import SCORED_SOURCE, BoardRow, _shown
    from submissions.disclosure import EntryState, Viewer, disclose

    values = {f.name: f"value of {f.name}" for f in fields.public_fields()}
    classic, info = fields.split(values)
    row = BoardRow(**classic, source=SCORED_SOURCE, figures={}, info=info)
    entry = SimpleNamespace(reveal_date=None, meta=SimpleNamespace(id="20261201-000000-anonymous"))
    hidden = _shown(row, entry, disclose(Viewer.VISITOR, EntryState.ANONYMOUS))
    allowed = fields.anonymous_allowed_fields()
    assert allowed == {"model_type"}  # what an anonymous row may say about the model
    for f in fields.public_fields():
        kept = hidden.value(f.name)
        if f.name in allowed:
            assert kept == values[f.name]
        else:
            assert values[f.name] not in kept, f.name
    assert (hidden.model, hidden.team) == ("Anonymous submission", "(anonymous)")
