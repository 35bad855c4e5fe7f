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
