"""Each stored body has one codec; bad JSON and JSON of the wrong shape both raise CorruptRecord."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from scoring import ResultRecord
from scoring.errors import Issue
from store.records import (
    CorruptRecord,
    GoldInfo,
    Moderation,
    StagedPreview,
    StoredFailure,
    StoredRejection,
    StoredResult,
    SubmissionMeta,
    Validated,
)

RESULT = ResultRecord(
    "scb", "g" * 64, "1.0.0", {"questions": 3, "submitted": 2}, {"acc": 50.0, "acc_ci": [40.0, 60.0]},
    {"type": {"1": {"acc": 50.0}}, "country": {"Việt Nam": {"acc": 50.0}}},
)  # fmt: skip
META = SubmissionMeta(
    "s1", "scb", "Mödel", "Team", "open", "", "", "", "alice", "0" * 64, "xyxy", "2026-03-01T12:00:00+00:00", 10
)
RECORDS = [
    META,
    StoredResult("s1", "2026-03-01T12:00:01+00:00", RESULT),
    StoredRejection((Issue("json_decode", 2, "", "not valid JSON"), Issue("bad_answer", 4, "answer", "Z")), 30, "t"),
    Validated(),
    StoredFailure("RuntimeError: boom", "t"),
    Moderation(True, "maintainer", "t"),
    GoldInfo("scb", "g" * 64, f"scb/{'g' * 64}.jsonl", "t", "maintainer", 3178, "f" * 64),
    StagedPreview(
        "scb", "g" * 64, "b" * 64, "t", "scb: switching ...\n  rows: 1 stay", "rows: 1 stay, 0 leave, 0 come"
    ),
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_every_record_round_trips(record) -> None:
    assert type(record).from_bytes(record.to_bytes(), "here") == record


def _result_body(**change: object) -> bytes:
    return json.dumps({"submission_id": "s1", "scored_at": "t", "result": RESULT.to_dict() | change}).encode()


WRONG_SHAPES = [
    (SubmissionMeta, b'{"id": 7, "benchmark": ["scb"]}'),
    (SubmissionMeta, json.dumps({**json.loads(META.to_bytes()), "size_bytes": "10"}).encode()),
    (SubmissionMeta, b"[]"),
    (StoredResult, b'{"result": [1, 2]}'),
    (StoredResult, b'{"submission_id": "s1", "scored_at": "t"}'),
    (StoredResult, _result_body(overall=5)),
    (StoredResult, _result_body(type=[1])),
    (StoredResult, _result_body(counts={"questions": True})),
    (StoredRejection, b'{"issues": [{"code": "x"}], "total": 1}'),
    (StoredRejection, b'{"issues": "none", "total": 1}'),
    (StoredRejection, b'{"issues": [], "total": "1"}'),
    (Validated, b'"validated"'),
    (StoredFailure, b'{"at": "t"}'),
    (Moderation, b'{"hidden": "yes"}'),
    (GoldInfo, b'{"benchmark": "scb"}'),
    (StagedPreview, b'{"benchmark": "scb", "staged": "g", "lines": ["x"]}'),
]  # fmt: skip


@pytest.mark.parametrize(("codec", "data"), WRONG_SHAPES)
def test_json_of_the_wrong_shape_is_corrupt(codec, data: bytes) -> None:
    with pytest.raises(CorruptRecord) as e:
        codec.from_bytes(data, "scb/s1/x.json")
    assert e.value.where == "scb/s1/x.json" and e.value.why


@pytest.mark.parametrize("data", [b"{not json", b"", b"\xff\xfe", b"[" * 100_000])
@pytest.mark.parametrize("codec", sorted({type(r) for r in RECORDS}, key=lambda c: c.__name__))
def test_bytes_that_are_not_json_are_corrupt(codec, data: bytes) -> None:
    with pytest.raises(CorruptRecord):
        codec.from_bytes(data, "where")


def test_older_bodies_still_read() -> None:
    """Bodies written before these codecs: a repaired failure without ``at``, a rejection without ``at``."""
    assert StoredFailure.from_bytes(b'{"error": "the original failure record was unreadable"}', "w").at == ""
    assert StoredRejection.from_bytes(b'{"issues": [], "total": 0}', "w").at == ""
    assert SubmissionMeta.from_bytes(META.to_bytes().replace(b',\n "filename": ""', b""), "w") == META


# ``meta.json`` exactly as the writer before declared fields (040358b) wrote it
V1_META = (
    b'{\n "id": "20260101-000000-abcdef0123",\n "benchmark": "scb",\n "model": "Qwen2.5-VL-7B",\n'
    b' "team": "Lab \xc3\xa9",\n "model_type": "open",\n "paper_url": "https://arxiv.org/abs/1",\n'
    b' "code_url": "",\n "description": "a \\"quoted\\" note",\n "submitter": "alice",\n'
    b' "sha256": "abababababababababababababababababababababababababababababababab",\n'
    b' "bbox_format": "xyxy_1000",\n "submitted_at": "2026-01-01T00:00:00+00:00",\n "size_bytes": 1234,\n'
    b' "filename": "preds.jsonl",\n "owner": "alice",\n "visibility": "private",\n "anonymous": true,\n'
    b' "reveal_date": "2027-01-31",\n "maintainer": false\n}'
)


def test_a_stored_meta_reads_and_writes_back_byte_for_byte() -> None:
    meta = SubmissionMeta.from_bytes(V1_META, "m.json")
    assert meta.info == {} and meta.team == "Lab é" and meta.anonymous is True
    assert meta.to_bytes() == V1_META


def test_later_declared_fields_are_stored_flat_after_the_others_and_read_back() -> None:
    meta = replace(SubmissionMeta.from_bytes(V1_META, "m.json"), info={"model_repo": "Qwen/Q", "model_params": "7"})
    data = meta.to_bytes()
    assert data.startswith(V1_META[:-2]) and data.endswith(b'"model_repo": "Qwen/Q",\n "model_params": "7"\n}')
    assert SubmissionMeta.from_bytes(data, "m.json") == meta
    odd = json.loads(data) | {"later_count": 3, "info": {"x": "y"}}  # not text, or our own attribute: not a field
    assert SubmissionMeta.from_bytes(json.dumps(odd).encode(), "m.json").info == meta.info
