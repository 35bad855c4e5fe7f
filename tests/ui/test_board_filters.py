"""The board's filters are declared on the fields (``filter=`` on ``submissions.fields.Field``):
the page's data lists each one (address key, control, choices) and every row the value it
matches, computed in Python by the field's own rule, so a filterable field is one declaration.
The browser side is tests/ui/test_browser_filters.py."""

from __future__ import annotations

import pytest

from leaderboard.baselines import PAPER_SOURCE
from leaderboard.table import SCORED_SOURCE
from submissions import fields
from submissions.records import Identity, SubmissionForm
from submissions.request import SubmitRequest
from tests.support.submissions import write_submission
from ui.board_data import board_data, board_filters

REGION = fields.Field("compute_region", "Compute region", 40, filter=fields.ColumnFilter("dropdown"))


def test_the_existing_filters_come_from_their_declarations(lb):
    data = board_data(lb, "")
    by_param = {f["param"]: f for f in data["filters"]}
    assert list(by_param) == ["sources", "types", "sizes"]
    assert by_param["types"]["choices"] == [[c.key, c.label] for c in fields.MODEL_TYPE.choices]
    assert by_param["types"]["id"] == "type-choice" and by_param["types"]["label"] == "Model type"
    assert [v for v, _ in by_param["sizes"]["choices"]] == list(fields.SIZE_CHOICES)
    assert [v for v, _ in by_param["sources"]["choices"]] == [SCORED_SOURCE, PAPER_SOURCE]
    scb = next(b for b in data["benchmarks"] if b["id"] == "scb")
    for row in scb["rows"]:
        assert row["_filters"]["types"] == str(row["model_type"]).lower()
        assert row["_filters"]["sizes"] == fields.size_bucket(row.get(fields.SIZE_FIELD))
        assert row["_filters"]["sources"] == row["source"]


def test_a_field_declared_with_a_filter_offers_the_values_its_rows_have(lb, tmp_path):
    with fields.declaring(REGION):
        for i, region in enumerate(("EU", "US")):
            form = SubmissionForm.of(model=f"M-{region}", team="T", compute_region=region, visibility="public")
            answer = lb.submissions.submit(
                SubmitRequest("scb", write_submission(tmp_path / f"{i}.jsonl", seed=i), form, Identity("t"))
            )
            assert answer.result is not None, answer
        data = board_data(lb, "")
    region = next(f for f in data["filters"] if f["param"] == "compute_region")
    assert {k: region[k] for k in ("type", "label", "id")} == {
        "type": "dropdown", "label": "Compute region", "id": "compute_region-choice"
    }  # fmt: skip
    assert region["choices"] == [["", "not given"], ["EU", "EU"], ["US", "US"]]  # the values rows have
    rows = next(b for b in data["benchmarks"] if b["id"] == "scb")["rows"]
    matched = {r["model"]: r["_filters"]["compute_region"] for r in rows if r["team"] == "T"}
    assert matched == {"M-EU": "EU", "M-US": "US"}


def test_a_filter_is_declared_only_where_the_board_can_use_it():
    with pytest.raises(ValueError, match="slider"):
        fields.ColumnFilter("slider")
    with pytest.raises(ValueError, match="private"):
        fields.Field("secret", "Secret", public=False, filter=fields.ColumnFilter())
    clash = fields.Field("compute_site", "Site", filter=fields.ColumnFilter(param="q"))  # the search's key
    with fields.declaring(clash), pytest.raises(ValueError, match="address key"):
        board_filters()
