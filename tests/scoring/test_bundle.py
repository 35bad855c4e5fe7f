"""Several files as one upload, and zips, bounded from their directories before a byte is inflated
(issue 41): the red team's sixteen 153 KB zips, each holding a 50 MB samples file, took the web
process from 414 MB to 1.2 GB before the total was checked (red.md N2). Here the files count
together against one budget (members, declared unpacked size) and nothing is unpacked past it;
the parts zip the server stores for several files reads back as the files given."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from leaderboard.joined import pack
from scoring.readers import bundle
from scoring.readers.bundle import BundleError, Part

LINE = (json.dumps({"doc_id": 0, "filtered_resps": ["A"]}) + "\n").encode()


def samples_zip(name: str, size: int, members: int = 1) -> bytes:
    """A zip of an output folder: ``members`` samples files of ``size`` bytes each (compressed to little)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for k in range(members):
            z.writestr(f"logs/m/2026_samples_{name}_{k}.jsonl", LINE * (size // len(LINE)))
    return out.getvalue()


@pytest.fixture
def no_inflating(monkeypatch):
    """Any member unpacked fails the test: the bounds must hold from the directories alone."""

    def refuse(*args, **kwargs):
        raise AssertionError("a member was unpacked before the bounds were checked")

    monkeypatch.setattr(zipfile.ZipExtFile, "read", refuse)
    monkeypatch.setattr(zipfile.ZipExtFile, "read1", refuse)


def test_zips_given_together_count_against_one_unpacked_size_before_any_is_unpacked(no_inflating):
    limit = 100_000
    parts = [Part(f"run{k:02d}.zip", samples_zip(f"t{k}", 40_000)) for k in range(16)]  # each alone fits
    with pytest.raises(BundleError, match=r"hold 6\d\d,\d\d\d bytes together, unpacked; the limit is 100,000"):
        bundle.gather(parts, limit)


def test_members_are_counted_across_the_files_given(no_inflating):
    parts = [Part(f"run{k}.zip", samples_zip(f"t{k}", 100, members=100)) for k in range(3)]
    with pytest.raises(BundleError, match="the files given list 300 members together; the limit is 256"):
        bundle.gather(parts, 10**9)


def test_one_zip_keeps_its_own_messages(no_inflating):
    """A zip sent alone, read as the readers read it (scoring/readers/harness_files.py: ``gather`` of one
    part named "the zip"; it called ``bundle.samples_of_zip``, which nothing else called)."""
    with pytest.raises(BundleError, match="the zip lists 300 members; the limit is 256"):
        bundle.gather([Part("the zip", samples_zip("t", 100, members=300))], 10**9)
    with pytest.raises(BundleError, match="unpack to 39,975 bytes; the limit is 1,000"):
        bundle.gather([Part("the zip", samples_zip("t", 40_000))], 1_000)


def test_the_parts_zip_reads_back_as_the_files_given(tmp_path: Path):
    given = [tmp_path / "stage2.zip", tmp_path / "stage1.jsonl"]
    given[0].write_bytes(samples_zip("scb_stage2", 2_000))
    given[1].write_bytes(LINE * 10)
    packed = tmp_path / "upload.zip"
    pack(given, packed, 10**6)
    data = packed.read_bytes()
    assert bundle.is_parts(data) and not bundle.is_parts(given[0].read_bytes())
    expected = bundle.gather([Part(p.name, p.read_bytes()) for p in given], 10**6)
    assert bundle.gather_parts(data, 10**6) == expected
    pack(given, tmp_path / "again.zip", 10**6)
    assert (tmp_path / "again.zip").read_bytes() == data  # the same files make the same upload: a resend is a repeat


def test_packing_refuses_by_sizes_before_copying(tmp_path: Path, monkeypatch):
    given = [tmp_path / f"f{k}.jsonl" for k in range(3)]
    for path in given:
        path.write_bytes(LINE * 100)
    monkeypatch.setattr("shutil.copyfileobj", lambda *a, **k: pytest.fail("copied before the sizes were checked"))
    with pytest.raises(BundleError, match="hold 11,700 bytes together; the limit is 9,000"):
        pack(given, tmp_path / "out.zip", 9_000)
    with pytest.raises(BundleError, match="18 files were given; the limit is 16"):
        pack(given * 6, tmp_path / "out.zip", 10**9)


def test_a_parts_list_naming_a_missing_file_is_one_message():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr(bundle.PARTS_MANIFEST, json.dumps(["parts/00-a.jsonl"]))
    with pytest.raises(BundleError, match="names files it does not hold"):
        bundle.gather_parts(out.getvalue(), 10**6)
