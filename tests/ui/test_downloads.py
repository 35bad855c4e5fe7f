"""ui.downloads: files named by content, so sessions never overwrite each other's download."""

from __future__ import annotations

from pathlib import Path

from ui.downloads import Downloads


def test_same_bytes_same_file_other_bytes_other_folder(tmp_path):
    downloads = Downloads(tmp_path)
    first = downloads.write("scb-overall.csv", b"a,b\n1,2\n")
    assert downloads.write("scb-overall.csv", b"a,b\n1,2\n") == first
    other = downloads.write("scb-overall.csv", b"a,b\n3,4\n")
    assert other != first and Path(first).name == Path(other).name == "scb-overall.csv"
    assert Path(first).read_bytes() == b"a,b\n1,2\n" and Path(other).read_bytes() == b"a,b\n3,4\n"


def test_distinct_searches_leave_a_bounded_number_of_files(tmp_path):
    """attacks.md #13: 469 distinct searches left 675 files, never deleted."""
    downloads = Downloads(tmp_path, max_files=8, max_bytes=10_000)
    paths = [downloads.write("scb-overall.csv", f"row {i}\n".encode()) for i in range(469)]
    on_disk = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(on_disk) == 8 and set(map(str, on_disk)) == set(paths[-8:])
    assert not Path(paths[0]).exists()
    again = downloads.write("scb-overall.csv", b"row 0\n")  # asked for again: written again
    assert again == paths[0] and Path(again).read_bytes() == b"row 0\n"
    big = Downloads(tmp_path / "big", max_files=100, max_bytes=2_500)
    for i in range(10):
        big.write("t.parquet", bytes([i]) * 1000)
    assert sum(p.stat().st_size for p in (tmp_path / "big").rglob("*") if p.is_file()) <= 2_500
