"""store/layout.py formats and parses every stored path; scorer versions order as versions."""

from __future__ import annotations

import pytest

from store import layout
from store.layout import GoldFile, Kind, ModerationFile, ResultKey, SubmissionFile, Version

GOLD = "0123456789abcdef" * 4  # a whole sha256
KEY = GOLD[:16]

SID = "20261129-235959-0a1b2c3d4e"  # as intake makes them: the day is the shard
DAY = "scb/20261129"

FILES = [
    (SubmissionFile.raw("scb", SID), f"{DAY}/{SID}/submission.jsonl"),
    (SubmissionFile.meta("scb", SID), f"{DAY}/{SID}/meta.json"),
    (SubmissionFile.validated("scb", SID, GOLD), f"{DAY}/{SID}/validated-{KEY}.json"),
    (SubmissionFile.rejected("kviscuit", SID, GOLD), f"kviscuit/20261129/{SID}/rejected-{KEY}.json"),
    (SubmissionFile.result("scb", SID, GOLD, "1.10.0"), f"{DAY}/{SID}/result-{KEY}-1.10.0.json"),
    (SubmissionFile.failure("scb", SID, GOLD, 3), f"{DAY}/{SID}/failure-{KEY}-3.json"),
]  # fmt: skip


@pytest.mark.parametrize(("file", "path"), FILES, ids=[f.kind.value for f, _ in FILES])
def test_every_submission_file_formats_and_parses_back(file: SubmissionFile, path: str) -> None:
    assert file.path == path
    assert SubmissionFile.parse(path) == file
    assert file.gold in ("", KEY)  # a whole version is kept as its key


@pytest.mark.parametrize(("file", "path"), FILES, ids=[f.kind.value for f, _ in FILES])
def test_files_of_the_unsharded_layout_are_still_read(file: SubmissionFile, path: str) -> None:
    legacy = path.replace("/20261129/", "/", 1)
    assert file.legacy_path == legacy and SubmissionFile.parse(legacy) == file


def test_ids_of_another_shape_shard_by_hash() -> None:
    file = SubmissionFile.meta("scb", "s1")
    shard = layout.shard_of("s1")
    assert file.path == f"scb/{shard}/s1/meta.json" and len(shard) == 3
    assert SubmissionFile.parse(file.path) == file and SubmissionFile.parse("scb/s1/meta.json") == file
    assert SubmissionFile.parse("scb/20261129/s1/meta.json") is None  # not that id's shard
    assert len({layout.shard_of(f"id-{i}") for i in range(10_000)}) <= 256  # folders stay few


@pytest.mark.parametrize(
    "path",
    [
        "moderation/s1.json",  # not a submission's file
        "scb/s1/.tmp-123",  # a temporary file
        "scb/s1/notes.txt",
        "scb/s1/meta.jsonl",  # wrong extension for the kind
        "scb/s1/submission.json",
        f"scb/s1/result-{KEY}.json",  # a result without its scorer
        f"scb/s1/result-{KEY}-latest.json",  # a scorer that is not a version
        f"scb/s1/failure-{KEY}-x.json",
        "scb/s1/validated-nothex.json",
        f"scb/s1/validated-{KEY}-1.json",
        f"scb/s1/deep/result-{KEY}-1.0.0.json",
        "scb//meta.json",
        f"scb/s1/reading-{KEY}-1.json",  # a reading is numpy arrays, not JSON
        f"scb/s1/reading-{KEY}.npz",  # without its reader
        f"scb/s1/reading-{KEY}-v1.npz",
        "scb/s1/unreadable.npz",
    ],
)
def test_other_paths_are_not_submission_files(path: str) -> None:
    assert SubmissionFile.parse(path) is None


def test_the_module_functions_are_the_same_names() -> None:
    assert layout.result("scb", "s1", GOLD, "1.0.0") == SubmissionFile.result("scb", "s1", GOLD, "1.0.0").path
    assert layout.moderation("s1") == "moderation/s1.json" == ModerationFile("s1").path
    assert ModerationFile.parse("moderation/s1.json") == ModerationFile("s1")
    assert ModerationFile.parse("scb/s1/meta.json") is None


def test_gold_files_parse_and_the_pointer_does_not() -> None:
    assert GoldFile.parse(f"scb/{GOLD}.parquet") == GoldFile("scb", GOLD, ".parquet")
    assert GoldFile("scb", GOLD, ".jsonl").path == layout.gold_file("scb", GOLD, ".jsonl") == f"scb/{GOLD}.jsonl"
    assert GoldFile.parse(layout.gold_current("scb")) is None
    assert GoldFile.parse(f"scb/{KEY}.jsonl") is None


def test_scorer_versions_order_by_number_not_text() -> None:
    versions = [Version.of(v) for v in ("1.9.0", "1.10.0", "1.0.0", "2.0.0", "1.9.1")]
    assert [str(v) for v in sorted(versions)] == ["1.0.0", "1.9.0", "1.9.1", "1.10.0", "2.0.0"]
    assert max(ResultKey.of(GOLD, "1.9.0"), ResultKey.of(GOLD, "1.10.0")).scorer == Version.of("1.10.0")
    assert ResultKey.of(GOLD, "1.0.0") == ResultKey(KEY, Version((1, 0, 0)))
    assert SubmissionFile.parse(f"scb/s1/result-{KEY}-1.10.0.json").result_key == ResultKey.of(KEY, "1.10.0")
    assert Version.parse("1.x") is None
    with pytest.raises(ValueError):
        Version.of("v1")


def test_kinds_are_the_first_word_of_the_name() -> None:
    assert {k.value for k in Kind} == {
        "submission",
        "meta",
        "validated",
        "rejected",
        "result",
        "failure",
        "reading",
        "unreadable",
    }


def test_a_reading_is_named_by_its_basis_and_reader_and_the_unreadable_mark_by_nothing() -> None:
    reading = SubmissionFile.reading("scb", "s1", GOLD, "1")
    assert reading.path.endswith(f"/s1/reading-{KEY}-1.npz") and SubmissionFile.parse(reading.path) == reading
    mark = SubmissionFile.unreadable("scb", "s1")
    assert mark.path.endswith("/s1/unreadable.json") and SubmissionFile.parse(mark.path) == mark
