"""Harness files are read with the line limit, counted as they are read (issue 30 item 3).

At ebb85c5 every table, workbook and JSON array was turned into JSON Lines before any limit applied:
a 20 MB CSV of 3.4 M rows took the worker to 2.97 GB and was then told "file is 129,728,978 bytes; the
limit is 52,428,800", the size of the converted file (attacks.md #3, #8). Here a file past the line
limit is refused with that limit's message, and what follows the limit is not read (a broken record
placed well after it is not what the answer names).
"""

from __future__ import annotations

import io
import json
import tracemalloc
import zipfile
from pathlib import Path

import pytest

import scoring
from scoring import Limits
from scoring.readers import harness_files as harness

KV_LIMIT = 2 * 657 + 1000
"""K-Viscuit's line limit: twice its questions plus 1,000 (scoring.engine._limits_for)."""


def _one_issue(gold: scoring.Gold, path: Path, limits: Limits | None = None) -> scoring.Issue:
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("kviscuit", gold, path, limits=limits)
    assert e.value.total == 1, e.value.summary()
    return e.value.issues[0]


def _csv(rows: int, delimiter: str = ",") -> bytes:
    return f"question_id{delimiter}answer\n".encode() + b"".join(
        f"{k % 657}{delimiter}A\n".encode() for k in range(rows)
    )


def _xlsx(path: Path, rows: int) -> Path:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet()
    sheet.append(["index", "prediction"])
    for k in range(rows):
        sheet.append([k % 657, "A"])
    book.save(path)
    return path


BROKEN_TAIL = {
    "csv": b"\xff\xfe not UTF-8\n",
    "tsv": b"\xff\xfe not UTF-8\n",
    "json-array": b'{"question_id": 0, "answer": ',
    "vlmevalkit-jsonl": b"[1, 2]\n",
    "lmms-samples": b"\xff not a sample\n" * 3,
}


def _past_the_limit(shape: str, path: Path) -> Path:
    """A file of ``shape`` with more records than the limit, and a broken record well after them (the
    text is decoded ahead of the reader in chunks of a few KB)."""
    n = KV_LIMIT + 20_000
    if shape in ("csv", "tsv"):
        body = _csv(n, "," if shape == "csv" else "\t")
    elif shape == "json-array":
        items = ",\n".join(json.dumps({"question_id": k % 657, "answer": "A"}) for k in range(n))
        body = ("[\n" + items + ",\n").encode()
    elif shape == "vlmevalkit-jsonl":
        body = "".join(json.dumps({"index": k % 657, "prediction": "A"}) + "\n" for k in range(n)).encode()
    else:
        body = "".join(json.dumps({"doc_id": k % 657, "filtered_resps": ["A"]}) + "\n" for k in range(n)).encode()
    path.write_bytes(body + BROKEN_TAIL[shape])
    return path


@pytest.mark.parametrize("shape", list(BROKEN_TAIL))
def test_a_file_past_the_line_limit_is_refused_with_that_limit(shape, kviscuit_real_gold, tmp_path):
    issue = _one_issue(kviscuit_real_gold, _past_the_limit(shape, tmp_path / f"big.{shape}"))
    assert issue.code == "too_many_lines"
    assert f"more than {KV_LIMIT:,} records; the line limit is {KV_LIMIT:,}" in issue.message


def test_a_workbook_past_the_line_limit_is_refused_with_that_limit(kviscuit_real_gold, tmp_path, monkeypatch):
    """Its rows are counted in the sheet's XML before openpyxl opens it (read-only openpyxl reads a
    sheet that does not state its size to the end to size it: 2.5 M rows took 20 s and 280 MB)."""
    path = _xlsx(tmp_path / "big.xlsx", KV_LIMIT + 1)

    def not_opened(*args, **kwargs):
        raise AssertionError("openpyxl opened a workbook past the line limit")

    monkeypatch.setattr("openpyxl.load_workbook", not_opened)
    issue = _one_issue(kviscuit_real_gold, path)
    assert issue.code == "too_many_lines"
    assert issue.message.startswith(f"this is an Excel workbook (.xlsx) of more than {KV_LIMIT:,} records")


@pytest.mark.parametrize("prefix", ["", "x:"])
def test_sheet_rows_are_counted_across_chunks(prefix):
    """Rows are counted in 1 MiB chunks of the unpacked XML, a tag cut by a chunk's end counted once."""
    row = f'<{prefix}row r="1"><{prefix}c><{prefix}v>1</{prefix}v></{prefix}c></{prefix}row>'.encode()
    rows = (2 << 20) // len(row) + 7
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as book:
        book.writestr("xl/worksheets/sheet1.xml", b"<worksheet><sheetData>" + row * rows + b"</sheetData></worksheet>")
        book.writestr("xl/worksheets/_rels/sheet1.xml.rels", b"<row>" * (rows + 1))  # not a sheet
    with zipfile.ZipFile(buffer) as book:
        harness._count_sheet_rows(book, rows, "a workbook")
        with pytest.raises(harness.TooManyRows, match=f"more than {rows - 2:,} records"):
            harness._count_sheet_rows(book, rows - 1, "a workbook")


def test_a_workbook_of_too_many_shared_strings_is_refused_before_openpyxl_loads_them():
    """openpyxl loads a workbook's shared strings whole: 12 M one-letter strings (a 0.5 MB file,
    under the size limit and the row limit) took 1.15 GB and 90 s; they are counted first."""
    limit = harness.STRINGS_PER_ROW * 10
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as book:
        book.writestr("xl/worksheets/sheet1.xml", b"<worksheet><sheetData><row r='1'/></sheetData></worksheet>")
        book.writestr("xl/sharedStrings.xml", b"<sst>" + b"<si><t>A</t></si>" * (limit + 1) + b"</sst>")
    with zipfile.ZipFile(buffer) as book:
        with pytest.raises(harness.ShapeError, match=f"more than {limit:,} shared strings"):
            harness._count_sheet_rows(book, 10, "a workbook")
        harness._count_sheet_rows(book, 11, "a workbook")  # 64 more strings allowed


def test_a_file_at_the_line_limit_is_read(kviscuit_real_gold, tmp_path):
    """The limit counts records: a table of exactly the limit is read (here: duplicates, one issue each)."""
    path = tmp_path / "full.csv"
    path.write_bytes(_csv(KV_LIMIT))
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("kviscuit", kviscuit_real_gold, path)
    assert e.value.total == KV_LIMIT - 657
    assert {i.code for i in e.value.issues} == {"duplicate_question_id"}


def test_a_long_table_is_refused_in_bounded_memory(kviscuit_real_gold, tmp_path):
    """400,000 rows (3.6 MB): ebb85c5 built every row as a dict (hundreds of MB) before refusing it."""
    path = tmp_path / "long.csv"
    path.write_bytes(_csv(400_000))
    tracemalloc.start()
    try:
        issue = _one_issue(kviscuit_real_gold, path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert issue.code == "too_many_lines"
    assert peak < 30 * 1024 * 1024, f"peak {peak / 1e6:.0f} MB"


def test_the_size_limit_names_the_file_sent_not_its_conversion(kviscuit_real_gold, tmp_path):
    """A table under the byte limit whose JSON Lines would be over it is read (it was refused with the
    converted size, a figure the team never sent)."""
    path = tmp_path / "kv.csv"
    path.write_text("question_id,answer\n" + "".join(f"{k},{'ABCD'[k % 4]}\n" for k in range(657)))
    converted = sum(len(json.dumps({"question_id": k, "answer": "A"})) + 1 for k in range(657))
    limits = Limits(max_bytes=path.stat().st_size + 10)
    assert converted > limits.max_bytes
    result = scoring.score_file("kviscuit", kviscuit_real_gold, path, limits=limits)
    assert result.counts["submitted"] == 657
    big = Limits(max_bytes=path.stat().st_size - 1)
    issue = _one_issue(kviscuit_real_gold, path, big)
    assert issue.message == f"file is {path.stat().st_size:,} bytes; the limit is {big.max_bytes:,}"


def _wide_workbook(rows: int, cells: int) -> bytes:
    """The red team's xwide.xlsx in small (mk_widexlsx.py): few rows, each of many cells openpyxl would parse."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("[Content_Types].xml", b"<Types/>")
        text = lambda value: f'<c t="inlineStr"><is><t>{value}</t></is></c>'.encode()  # noqa: E731
        head = b'<row r="1">' + text("index") + text("prediction") + b"</row>"
        pad = b"<c><v>1</v></c>" * cells
        body = b"".join(f"<row><c><v>{i}</v></c>".encode() + text("A") + pad + b"</row>" for i in range(rows))
        book.writestr("xl/worksheets/sheet1.xml", b"<worksheet><sheetData>" + head + body + b"</sheetData></worksheet>")
    return out.getvalue()


def test_a_workbook_of_wide_rows_is_refused_by_its_cells_before_openpyxl_opens_it(kviscuit_real_gold, monkeypatch):
    """657 rows of 25,000 cells (503 KB) ran the worker's whole 60 s bound in openpyxl (red.md N4):
    cells are counted with the rows, in the same pass over the sheet's XML."""
    openpyxl = pytest.importorskip("openpyxl")
    monkeypatch.setattr(openpyxl, "load_workbook", lambda *a, **k: pytest.fail("openpyxl opened the workbook"))
    cells = harness.CELLS_PER_ROW * (KV_LIMIT + 1)
    issue = _one_issue(kviscuit_real_gold, _wide_workbook(8, cells // 8))
    assert issue.message.startswith(f"this is an Excel workbook (.xlsx) of more than {cells:,} cells; the limit is")


def test_cells_are_counted_across_chunks():
    cell = b"<c><v>1</v></c>"
    cells = (2 << 20) // len(cell) + 5
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as book:
        book.writestr(
            "xl/worksheets/sheet1.xml",
            b"<worksheet><sheetData><row>" + cell * cells + b"</row></sheetData></worksheet>",
        )
    with zipfile.ZipFile(buffer) as book:
        over = harness.CELLS_PER_ROW * 2
        assert harness._more_tags(book, "xl/worksheets/sheet1.xml", {"c": (harness._CELL_TAG, cells)}) is None
        assert harness._more_tags(book, "xl/worksheets/sheet1.xml", {"c": (harness._CELL_TAG, cells - 1)}) == "c"
        with pytest.raises(harness.ShapeError, match=f"more than {over:,} cells"):
            harness._count_sheet_rows(book, 2, "a workbook")


def test_a_samples_line_past_the_line_limit_is_refused_unparsed(kviscuit_real_gold, monkeypatch):
    """red.md N1's lmms_fat.jsonl: after ordinary samples, one 49 MB line that parsed to 1.2 GB
    (the JSON Lines reader's 4 MB line limit did not apply to samples files). Here in small."""
    monkeypatch.setattr(harness, "MAX_SAMPLE_CHARS", 1000)
    parsed = []
    real = harness._json_line
    monkeypatch.setattr(harness, "_json_line", lambda raw: parsed.append(len(raw)) or real(raw))
    first = json.dumps({"doc_id": 0, "filtered_resps": ["A"]})
    fat = json.dumps({"doc_id": 1, "filtered_resps": [[{}] * 400]})
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("kviscuit", kviscuit_real_gold, f"{first}\n{fat}\n".encode())
    assert max(parsed) < 1000  # the long line was never parsed
    assert ("line_too_long", 2) in {(i.code, i.line) for i in e.value.issues}
