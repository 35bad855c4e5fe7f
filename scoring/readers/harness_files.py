"""Files as evaluation harnesses write them, and whole-file shapes that are not JSON Lines.

A submission is JSON Lines of our line records (SPEC). Teams also hold what their harness wrote,
and often a table or a JSON document made by hand; before validation, :func:`as_submission`
recognises the file's shape from its first bytes and either returns it unchanged (our JSON
Lines), converts it into our line records (then validated like any file), or refuses it with one
message that names what it is and what to do, instead of one error per line:

- **lmms-eval samples** (``<date>_samples_<task>.jsonl`` of ``--log_samples``, with or without
  ``--predict_only``): v0.3 lines carry ``doc``, ``arguments``, ``resps`` (a list of lists) and
  ``filtered_resps`` (a list); v0.4+ lines drop ``doc`` and ``arguments``, flatten
  ``filtered_resps`` to the text and drop ``resps`` when equal (lmms_eval/evaluator.py and
  loggers/evaluation_tracker.py ``save_results_samples``). ``doc_id`` is the position in the
  task's documents, which for our tasks is the published question order; the response is
  ``filtered_resps``, else ``resps``. Where a v0.3 ``doc`` names the question (``id_``,
  ``question_id``) it is checked; where ``input`` (the prompt) is there and the benchmark's
  options are text, a prompt showing the neighbouring row's four options instead of its own is
  mapped wrongly (most lines so: one error, a shifted file). Positions counted from 1 are one error.
  SCB's two stages: the stage-1 and stage-2 samples together (both files, in any order, or ``cat
  stage1 stage2``, or a zip of the whole ``logs/`` folder, whose other benchmark's files, known by
  their task's name or prompt, are set aside with a note); a sample's stage is what its ``input``
  (the prompt) asks by the instructions of a registered benchmark's family
  (``scoring.benchmarks.asked``), else its place (a ``doc_id``'s second sample is its stage-2
  response); the stage-2 response becomes the line's ``grounding_response``, read in the family its
  prompt asked for. Samples of the other benchmark's task, or SCB's stage 2 without stage 1, are one
  message. ``doc_hash`` names nothing:
  lmms-eval 0.7.3 writes one value, the hash of ``null``, on every sample of every task (its
  requests carry no doc), so it is not read.
- **VLMEvalKit predictions** (``<model>_<dataset>.xlsx``, or ``.tsv`` / ``.json`` under
  ``PRED_FORMAT``; vlmeval/inference.py writes the dataset's rows without ``image`` and with
  ``prediction``): ``index`` is the position in the published order, ``prediction`` the response;
  option columns ``A``-``D``, where the options are text, are checked as the prompts are. The
  leaderboard's SCB stage-2 dataset (``vlmevalkit/``) writes both stages on a row: the choice in
  ``stage1_prediction``, the grounding in ``prediction``, the family in ``grounding_format`` (and
  ``bbox_format``).
- **Inspect AI logs** (``.eval``, a zip of JSON; scoring/readers/inspect_log.py): one line per sample,
  its id the question's; SCB's two stages from the sample's store (``inspect eval scoring/scb``).
- **Our records in another container**: a JSON array of line objects, a CSV or TSV with a
  ``question_id`` column (cells that hold JSON, e.g. a box, are read as JSON): read as lines.
- Anything else that is clearly not JSON Lines (a JSON document, a table or workbook without the
  columns above, lmms-eval's results file): one ``file_shape`` issue.

The published order is the gold's key order, which is the public question list's order (SCB:
sorted by ``question_id``; K-Viscuit: the official row order), fixed per gold version. Reading
``.xlsx`` needs openpyxl (an optional import: the scoring library stays light); TSV, CSV and
JSON need only the standard library. Pure: bytes in, bytes out.
"""

from __future__ import annotations

import bisect
import csv
import io
import json
import os
import re
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from scoring.benchmarks import Asked, asked, protocol
from scoring.benchmarks.base import Benchmark
from scoring.gold import Gold
from scoring.readers import bundle, inspect_log

HEAD_BYTES = 64 * 1024
MAX_ROWS = 100_000
"""Records a harness file may hold when the caller names no limit (scoring.Limits.max_lines)."""
MAX_SAMPLE_CHARS = 4 * 1024 * 1024
"""A line of an lmms-eval samples file may be this long at most (as a line of our JSON Lines,
scoring.Limits.max_line_bytes): one sample holds a few responses, kilobytes."""
MAX_UNZIPPED = 256 * 1024 * 1024
"""A workbook may unpack to this much at most (a zip bomb is refused before openpyxl opens it)."""
LMMS_RESPONSE_FIELDS = ("filtered_resps", "resps")
DECLARED_SETTINGS = frozenset({"qwen2_5_vl"})
"""Families whose boxes depend on the serving stack the submission declares (Qwen2.5-VL's min/max pixels,
``qwen2_5_vl:lmms-eval``): a stage-2 line asked in one is left to that declaration, not named on the line."""


class ShapeError(ValueError):
    """The whole file has a shape the site does not read: one message, what it is and what to do."""

    code = "file_shape"


class TooManyRows(ShapeError):
    """The file holds more records than the line limit: reading stopped there, before converting."""

    code = "too_many_lines"

    def __init__(self, what: str, max_rows: int) -> None:
        super().__init__(
            f"this is {what} of more than {max_rows:,} records; the line limit is {max_rows:,}; reading stopped there"
        )


def _counted(records: Iterable[dict], max_rows: int, what: str) -> Iterator[dict]:
    """``records`` as they are read, stopping with :class:`TooManyRows` past ``max_rows``: a table of
    3.4 M rows was turned into 3.4 M dicts (2.97 GB) before any limit applied (attacks.md #3)."""
    for count, record in enumerate(records, 1):
        if count > max_rows:
            raise TooManyRows(what, max_rows)
        yield record


@dataclass(frozen=True)
class Converted:
    """A file turned into our line records: what it was, the lines (JSON Lines bytes), the record
    (1-based: a line, or a table row after the header) each line came from, and the records that
    could not become a line, as ``(record, code, message)``."""

    kind: str
    data: bytes
    origin: tuple[int, ...] = ()
    issues: tuple[tuple[int, str, str], ...] = ()
    files: tuple[tuple[str, int], ...] = ()
    """Several files given (or a zip's members): each one's name and the records before it, in
    order; empty for one file, whose records are its lines."""
    notes: tuple[str, ...] = ()
    """What was read aside from the lines: the files given that were set aside (another benchmark's)."""

    def record(self, line: int) -> int:
        """The record a line of :attr:`data` came from (issues name records, not converted lines)."""
        return self.origin[line - 1] if 0 < line <= len(self.origin) else line

    def place(self, record: int) -> tuple[str, int]:
        """``(file, line)``: the file given a record is in ("" for one file) and its line there."""
        before = [start for _, start in self.files]
        at = bisect.bisect_left(before, record) - 1
        if at < 0:
            return "", record
        name, start = self.files[at]
        return name, record - start


def as_submission(
    bench: Benchmark, gold: Gold, source: str | Path | bytes, max_bytes: int, max_rows: int = MAX_ROWS
) -> str | Path | bytes | Converted:
    """``source`` unchanged when it is (or may be) our JSON Lines, else its :class:`Converted`
    lines; raises ShapeError for a shape it recognises and cannot read, TooManyRows for a file
    of more than ``max_rows`` records (counted as they are read: nothing past them is read)."""
    head = _head(source)
    if head.startswith(b"PK\x03\x04"):
        data, what = _whole(source, max_bytes), "an Excel workbook (.xlsx)"
        if inspect_log.is_eval_log(data):
            return _from_inspect(bench, gold, data)
        if bundle.is_parts(data):  # several files given as one upload (leaderboard/joined.py)
            return _lmms(bench, gold, _samples_files(lambda: bundle.parts_of(data, max_bytes), max_bytes), max_rows)
        if not bundle.is_workbook(data):  # a zip of lmms-eval's output folder
            return _lmms(bench, gold, _samples_files(lambda: [bundle.Part("the zip", data)], max_bytes), max_rows)
        return _from_rows(bench, gold, what, _xlsx_rows(data, max_rows, what))
    text = head.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    first = text.split("\n", 1)[0].strip()
    if text.startswith("["):
        document = _json_array(source, max_bytes, max_rows)
        if document is not None:
            return _from_document(bench, gold, document)
        return source
    if text.startswith("{"):
        if "\n" not in text and len(head) == HEAD_BYTES:
            return source  # a first line longer than the head: JSON Lines (a polygon line), as ever
        line = _json_line(first)
        if line is None:  # not one object a line: perhaps one pretty-printed document
            document = _json_document(source, max_bytes)
            if document is not None:
                return _from_document(bench, gold, document)
            return source
        if isinstance(line, dict) and bench.key_field not in line:
            if "doc_id" in line and any(f in line for f in LMMS_RESPONSE_FIELDS):
                return _lmms(bench, gold, [bundle.Part("", _whole(source, max_bytes))], max_rows)
            if "index" in line and "prediction" in line:
                what = "VLMEvalKit predictions (JSON Lines)"
                return _from_records(bench, gold, what, list(_json_lines(source, max_bytes, max_rows, what)))
        return source
    if "\t" in first or "," in first:
        _check_size(source, max_bytes)
        return _from_table(bench, gold, source, "\t" if "\t" in first else ",", max_rows)
    return source


# ------------------------------------------------------------------ reading the container


def _head(source: str | Path | bytes) -> bytes:
    if isinstance(source, bytes):
        return source[:HEAD_BYTES]
    with open(source, "rb") as f:
        return f.read(HEAD_BYTES)


def _samples_files(given: Callable[[], list[bundle.Part]], max_bytes: int) -> list[bundle.Part]:
    """The lmms-eval samples files among the files ``given`` returns (zips unpacked), each named."""
    try:
        return bundle.samples_files(given(), max_bytes)
    except bundle.BundleError as e:
        raise ShapeError(str(e)) from None


INSPECT_IMAGES_HINT = (
    ": an Inspect log keeps every image unless inspect eval runs with --no-log-images "
    "(or INSPECT_EVAL_LOG_IMAGES=false), which makes an SCB log of the demo list 9.3 MB instead of 83.6 MB"
)
"""Said of an ``.eval`` over the limit: Inspect's CLI logs images by default, and a task cannot turn that off."""


def _check_size(source: str | Path | bytes, max_bytes: int) -> None:
    """The file's own size against the limit, before any of it is read."""
    size = len(source) if isinstance(source, bytes) else os.stat(source).st_size
    if size > max_bytes:
        hint = INSPECT_IMAGES_HINT if not isinstance(source, bytes) and str(source).endswith(".eval") else ""
        raise ShapeError(f"file is {size:,} bytes; the limit is {max_bytes:,}{hint}")


def _whole(source: str | Path | bytes, max_bytes: int) -> bytes:
    _check_size(source, max_bytes)
    return source if isinstance(source, bytes) else Path(source).read_bytes()


def _json_line(text: str) -> object | None:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _json_document(source: str | Path | bytes, max_bytes: int) -> object | None:
    """The file as one JSON value, or None when it is not one (then it is read as JSON Lines)."""
    try:
        return json.loads(_whole(source, max_bytes).decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return None


def _json_array(source: str | Path | bytes, max_bytes: int, max_rows: int) -> object | None:
    """The file as one JSON value (a list of at most ``max_rows`` items: they are decoded one by
    one and counted), or None when it is not one (then it is read as JSON Lines)."""
    text = _whole(source, max_bytes).decode("utf-8-sig", "replace")
    try:
        return list(_counted(_array_items(text), max_rows, "a JSON array"))
    except (ValueError, RecursionError) as e:
        if isinstance(e, TooManyRows):
            raise
        return None


def _array_items(text: str) -> Iterator[object]:
    """The items of the JSON array ``text``, decoded one at a time (json.loads decoded them all first);
    ValueError where ``text`` is not exactly one array."""
    decoder, at = json.JSONDecoder(), _skip_space(text, 0)
    if text[at : at + 1] != "[":
        raise ValueError("not an array")
    at = _skip_space(text, at + 1)
    if text[at : at + 1] == "]":
        at += 1
    else:
        while True:
            item, at = decoder.raw_decode(text, at)
            yield item
            at = _skip_space(text, at)
            if text[at : at + 1] == "]":
                at += 1
                break
            if text[at : at + 1] != ",":
                raise ValueError("not an array")
            at = _skip_space(text, at + 1)
    if _skip_space(text, at) != len(text):
        raise ValueError("extra data")


_JSON_SPACE = re.compile(r"[ \t\n\r]*")


def _skip_space(text: str, at: int) -> int:
    """The first position from ``at`` that is not JSON whitespace."""
    return _JSON_SPACE.match(text, at).end()


def _json_lines(source: str | Path | bytes, max_bytes: int, max_rows: int, what: str) -> Iterator[dict]:
    lines = _whole(source, max_bytes).decode("utf-8-sig", "replace").splitlines()
    return _counted(_json_objects(lines), max_rows, what)


def _json_objects(lines: Iterable[str]) -> Iterator[dict]:
    for n, raw in enumerate(lines, 1):
        if raw.strip():
            value = _json_line(raw)
            if not isinstance(value, dict):
                raise ShapeError(f"line {n} of these VLMEvalKit predictions is not a JSON object")
            yield value


def _xlsx_rows(data: bytes, max_rows: int, what: str) -> list[dict]:
    try:
        import openpyxl  # optional: only Excel workbooks need it
    except ImportError:
        raise ShapeError(
            "this is an Excel workbook (.xlsx); reading it needs openpyxl here (pip install openpyxl), "
            "or save it as TSV (VLMEvalKit: PRED_FORMAT=tsv) and send that"
        ) from None
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            if sum(i.file_size for i in z.infolist()) > MAX_UNZIPPED:
                raise ShapeError(f"this workbook unpacks to more than {MAX_UNZIPPED:,} bytes")
            _count_sheet_rows(z, max_rows + 1, what)  # the header row, then the records
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        rows = book.worksheets[0].iter_rows(values_only=True)  # read as iterated (read-only mode)
        header = ["" if h is None else str(h) for h in next(rows, None) or ()]
        if not header:
            raise ShapeError("this Excel workbook's first sheet is empty")
        return [
            {h: v for h, v in zip(header, row, strict=False) if h}
            for row in _counted(rows, max_rows, what)
            if any(v is not None for v in row)
        ]
    except ShapeError:
        raise
    except Exception as e:  # a broken workbook: openpyxl raises many kinds
        raise ShapeError(f"this looks like an Excel workbook but cannot be read: {str(e)[:120]}") from None


_SHEET = re.compile(r"xl/worksheets/[^/]+\.xml")
_ROW_TAG = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?row[\s/>]")
_CELL_TAG = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?c[\s/>]")
_STRINGS = re.compile(r"xl/[^/]*[sS]trings[^/]*\.xml")
_STRING_TAG = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?si[\s/>]")
STRINGS_PER_ROW = 64
"""Shared strings a workbook may hold per row allowed: VLMEvalKit's rows have about a dozen text cells."""
CELLS_PER_ROW = 64
"""Cells a sheet may hold per row allowed (VLMEvalKit's rows have about fifteen): openpyxl parses every
cell of a row, read or not, so 657 rows of 25,000 cells (a 0.5 MB file) ran the job's whole 60 s."""


def _count_sheet_rows(book: zipfile.ZipFile, max_rows: int, what: str) -> None:
    """TooManyRows when a sheet holds more than ``max_rows`` rows, counted in its XML as it is
    unpacked, before openpyxl opens the workbook: in read-only mode it reads every sheet to its end
    to size it when the sheet does not say its size (2.5 M rows: 20 s, 280 MB, before the first row).
    Its cells and its shared strings, which openpyxl parses and loads whole, are bounded per row
    the same way (12 M shared strings from a 0.5 MB file: 1.15 GB and 90 s), in the same pass."""
    cells = CELLS_PER_ROW * max_rows
    for name in (n for n in book.namelist() if _SHEET.fullmatch(n)):
        over = _more_tags(book, name, {"rows": (_ROW_TAG, max_rows), "cells": (_CELL_TAG, cells)})
        if over == "rows":
            raise TooManyRows(what, max_rows - 1)
        if over == "cells":
            raise ShapeError(
                f"this is {what} of more than {cells:,} cells; the limit is {cells:,} "
                f"({CELLS_PER_ROW} for each of the {max_rows:,} rows a sheet may have); reading stopped there"
            )
    strings = STRINGS_PER_ROW * max_rows
    for name in (n for n in book.namelist() if _STRINGS.fullmatch(n)):
        if _more_tags(book, name, {"strings": (_STRING_TAG, strings)}):
            raise ShapeError(
                f"this is {what} of more than {strings:,} shared strings; the limit is {strings:,} "
                f"({STRINGS_PER_ROW} for each of the {max_rows:,} rows a sheet may have); reading stopped there"
            )


def _more_tags(book: zipfile.ZipFile, name: str, tags: dict[str, tuple[re.Pattern, int]]) -> str | None:
    """The first of ``tags`` (name -> (tag, limit)) the part ``name`` holds more than ``limit`` of,
    counted in 1 MiB chunks as it is unpacked (reading stops there); None when it holds none too many."""
    counts, tail = dict.fromkeys(tags, 0), b""
    with book.open(name) as part:
        while chunk := part.read(1 << 20):
            text = tail + chunk
            cut = max(0, text.rfind(b"<"))  # a tag cut by the chunk's end is counted with the next
            for key, (tag, limit) in tags.items():
                counts[key] += len(tag.findall(text, 0, cut))
                if counts[key] > limit:
                    return key
            tail = text[cut:]
    return next((key for key, (tag, limit) in tags.items() if counts[key] + len(tag.findall(tail)) > limit), None)


def _from_table(bench: Benchmark, gold: Gold, source: str | Path | bytes, delimiter: str, max_rows: int) -> Converted:
    """A CSV or TSV table read row by row from the file (decoded as it is read), at most ``max_rows``."""
    what = "a TSV table" if delimiter == "\t" else "a CSV table"
    size = len(source) if isinstance(source, bytes) else os.stat(source).st_size
    csv.field_size_limit(max(csv.field_size_limit(), size + 1))  # process-wide: only ever raised
    raw = io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")  # noqa: SIM115 (closed below)
    with io.TextIOWrapper(raw, encoding="utf-8-sig", newline="") as text:
        reader = csv.DictReader(text, delimiter=delimiter)
        try:
            rows = [dict(r) for r in _counted(reader, max_rows, what)]
        except csv.Error as e:
            raise ShapeError(f"this is {what} that cannot be read: {e}") from None
        except UnicodeDecodeError:
            raise ShapeError(
                f"this is {what}, but not UTF-8 (byte {_first_bad_byte(source)}); save it as UTF-8"
            ) from None
        return _from_rows(bench, gold, what, rows, header=reader.fieldnames or [])


def _first_bad_byte(source: str | Path | bytes) -> int:
    """The 1-based position of the first byte that is not UTF-8 (the table was decoded as read)."""
    data = source if isinstance(source, bytes) else Path(source).read_bytes()
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        return e.start + 1
    return 0


def _from_document(bench: Benchmark, gold: Gold, document: object) -> Converted:
    if isinstance(document, list) and document and all(isinstance(r, dict) for r in document):
        return _from_records(bench, gold, "a JSON array", document)
    if isinstance(document, dict) and "results" in document and ("configs" in document or "versions" in document):
        raise ShapeError(
            "this is lmms-eval's results file (aggregate figures only); send the <date>_samples_<task>.jsonl "
            "that lmms-eval writes beside it with --log_samples (add --predict_only for a hidden-gold task)"
        )
    kind = "one JSON object" if isinstance(document, dict) else "one JSON value"
    raise ShapeError(
        f"the file is {kind}, not JSON Lines: write one prediction object per line, e.g. "
        f'{{"{bench.key_field}": ..., "answer": "{bench.choices[0]}"}}'
    )


def _from_rows(bench: Benchmark, gold: Gold, what: str, rows: list[dict], header: Sequence[str] = ()) -> Converted:
    columns = list(header) or list(rows[0]) if rows else list(header)
    if "index" in columns and "prediction" in columns and bench.key_field not in columns:
        return _vlmevalkit(bench, gold, f"VLMEvalKit predictions ({what})", rows)
    if bench.key_field in columns:
        return _converted(what, [(k, _cells_as_json(r)) for k, r in enumerate(rows, 1)])
    shown = ", ".join(repr(c) for c in columns[:12]) or "none"
    raise ShapeError(
        f"this is {what} with columns {shown}: the site reads JSON Lines (one object a line with "
        f"{bench.key_field!r} and 'answer' or 'response'), a table with those columns, or VLMEvalKit's "
        "predictions (columns 'index' and 'prediction'); convert it to one of them"
    )


def _from_records(bench: Benchmark, gold: Gold, what: str, rows: list[dict]) -> Converted:
    if rows and all(bench.key_field in r for r in rows):
        return _converted(what, list(enumerate(rows, 1)))
    if rows and "index" in rows[0] and "prediction" in rows[0]:
        return _vlmevalkit(
            bench, gold, what if what.startswith("VLMEvalKit") else f"VLMEvalKit predictions ({what})", rows
        )
    keys = ", ".join(repr(k) for k in list(rows[0])[:12]) if rows else "none"
    raise ShapeError(
        f"this is {what} of objects with fields {keys}: write one prediction object per line (JSON Lines) "
        f"with {bench.key_field!r} and 'answer' or 'response'"
    )


def _converted(what: str, lines: list[tuple[int, dict]], issues: Iterable[tuple[int, str, str]] = ()) -> Converted:
    data = b"".join(json.dumps(r, ensure_ascii=False, allow_nan=True).encode("utf-8") + b"\n" for _, r in lines)
    return Converted(what, data, tuple(k for k, _ in lines), tuple(issues))


def _cells_as_json(row: dict) -> dict:
    """A table row as a line: empty cells dropped, cells holding JSON (a box, a list) decoded."""
    out = {}
    for k, v in row.items():
        if k is None or v is None or v == "":
            continue
        if isinstance(v, str) and v[:1] in "[{":
            decoded = _json_line(v)
            v = decoded if decoded is not None else v
        out[k] = v
    return out


# ------------------------------------------------------------------ positions -> questions


def _position(value: object, size: int, name: str) -> int | str:
    """The 0-based position ``value`` names, or the message saying why it names none."""
    number = value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        number = int(value.strip())
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    if type(number) is not int:
        return f"{name} {str(value)[:40]!r} is not a position (a whole number)"
    if not 0 <= number < size:
        return f"{name} {number} is outside the published question order (0-{size - 1})"
    return number


def _options_shown(text: str, options: Sequence[str]) -> bool:
    folded = " ".join(text.casefold().split())
    return all(" ".join(str(o).casefold().split()) in folded for o in options)


@dataclass
class _Lines:
    """Lines being built from a harness file's records, with the prompt each one showed."""

    bench: Benchmark
    gold: Gold
    what: str
    lines: dict[int, tuple[int, dict]]  # position -> (record, line)
    issues: list[tuple[int, str, str]]
    shown: dict[int, str]  # position -> the prompt or option cells its record showed

    past_end: int = 0  # records whose position is exactly the question count (a 1-based file's last)

    def refuse(self, record: int, code: str, message: str) -> None:
        self.issues.append((record, code, message))

    def position(self, record: int, value: object, name: str) -> int | None:
        """The position a record names, or None (refused, saying why)."""
        position = _position(value, self.gold.size, name)
        if isinstance(position, str):
            self.past_end += position.startswith(f"{name} {self.gold.size} ")
            self.refuse(record, "harness_position", position)
            return None
        return position

    def converted(self) -> Converted:
        """The lines, after checking what they showed against the rows their positions name."""
        n = self.gold.size
        if self.past_end and 0 not in self.lines and len(self.lines) >= n // 2:
            raise ShapeError(
                f"these {self.what} count positions from 1 (they run to {n}, and none is 0): positions are 0-based, "
                f"0-{n - 1}, in the published question order; subtract 1 from every one"
            )
        self._check_options()
        ordered = sorted(self.lines.values(), key=lambda t: t[0])
        return _converted(self.what, ordered, sorted(self.issues))

    def _check_options(self) -> None:
        """Where a record showed options (its prompt, or VLMEvalKit's A-D cells) and the benchmark's
        options are text, a record showing its neighbour row's options instead of its own is
        mapped wrongly: most records so is one error (a shifted order), a few are line errors.
        A record showing neither (a prompt without the options) says nothing."""
        texts = self.gold.option_texts
        if texts is None or not self.shown:
            return
        n = self.gold.size
        right, wrong = 0, []
        for p, text in self.shown.items():
            if _options_shown(text, texts[p]):
                right += 1
            elif any(0 <= q < n and texts[q] != texts[p] and _options_shown(text, texts[q]) for q in (p - 1, p + 1)):
                wrong.append(p)
        if not wrong:
            return
        if len(wrong) > (right + len(wrong)) // 2:
            p = min(wrong, key=lambda q: self.lines[q][0])
            raise ShapeError(
                f"these {self.what} are not in the published question order: on {len(wrong):,} of "
                f"{right + len(wrong):,} records the prompt or option columns show the options of the question "
                f"next to the one at that position (record {self.lines[p][0]}, position {p}); positions must "
                "follow the public question list, row by row, from 0"
            )
        for p in wrong:
            record, _ = self.lines.pop(p)
            self.refuse(
                record, "harness_options", f"it shows the options of a neighbour of question {self.gold.keys[p]!r}"
            )


def _vlmevalkit(bench: Benchmark, gold: Gold, what: str, rows: list[dict]) -> Converted:
    out = _Lines(bench, gold, what, {}, [], {})
    for record, row in enumerate(rows, 1):
        position = out.position(record, row.get("index"), "index")
        if position is None:
            continue
        if position in out.lines:
            out.refuse(
                record, "duplicate_question_id", f"index {position} already given in record {out.lines[position][0]}"
            )
            continue
        out.lines[position] = (record, {bench.key_field: gold.keys[position], **_vlmevalkit_answers(bench, row)})
        options = [row.get(letter) for letter in bench.choices]
        if all(o is not None for o in options):
            out.shown[position] = " ".join(str(o) for o in options)
    return out.converted()


def _cell_text(value: object) -> str:
    """A prediction cell as text ("" for an empty cell, which pandas writes as NaN)."""
    missing = value is None or (isinstance(value, float) and value != value)
    return "" if missing else str(value)


VLMEVALKIT_GROUNDING_COLUMNS = ("grounding_format", "bbox_format")


def _vlmevalkit_answers(bench: Benchmark, row: dict) -> dict:
    """A row's answer fields. A row of the leaderboard's SCB stage-2 dataset (vlmevalkit/) carries both
    stages: ``stage1_prediction`` the choice, ``prediction`` the grounding, and the family's columns."""
    if "stage1_prediction" not in row:
        return {"response": _cell_text(row.get("prediction"))}
    if "grounding_response" not in bench.prediction_fields:
        raise ShapeError(
            "these VLMEvalKit predictions are SCB's stage 2 (a stage1_prediction column); "
            f"{bench.name} has no grounding: send them to SCB"
        )
    line = {"response": _cell_text(row["stage1_prediction"]), "grounding_response": _cell_text(row.get("prediction"))}
    if _cell_text(row.get("grounding_format")) in DECLARED_SETTINGS:
        return line  # its pixel frame is the serving stack's: the submission's declaration says it
    return line | {f: str(row[f]) for f in VLMEVALKIT_GROUNDING_COLUMNS if _cell_text(row.get(f))}


# ------------------------------------------------------------------ lmms-eval samples


def _from_inspect(bench: Benchmark, gold: Gold, data: bytes) -> Converted:
    """An Inspect AI ``.eval`` log (scoring/readers/inspect_log.py): one line per sample, by its id."""
    try:
        stages = inspect_log.store_keys(bench.id)
        lines, issues = inspect_log.read_log(data, bench.key_field, bench.parse_key, gold.size, bench.key_echo, stages)
    except inspect_log.LogError as e:
        raise ShapeError(str(e)) from None
    return _converted(inspect_log.KIND, lines, issues)


def _response(value: object) -> str | None:
    """The first text of a (possibly nested) ``filtered_resps`` / ``resps`` value."""
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


@dataclass
class _Stages:
    """SCB's two stages read from samples in any order: stage 1 makes the line, stage 2 adds its
    ``grounding_response`` (and the family its prompt asked for) when the line is there."""

    seen: dict[tuple[int, int], int] = field(default_factory=dict)  # (position, stage) -> record
    grounding: dict[int, dict] = field(default_factory=dict)  # position -> the stage-2 fields
    asked: Counter = field(default_factory=Counter)  # (benchmark, stage) each recognised prompt asked
    twice: list[tuple[int, int, int]] = field(default_factory=list)  # (record, position, first record)

    @staticmethod
    def prompt(sample: dict) -> Asked | None:
        return asked(sample["input"]) if isinstance(sample.get("input"), str) else None

    def count(self, sample: dict) -> None:
        """Note what a sample's prompt asked (every sample, whatever else is wrong with it)."""
        prompt = self.prompt(sample)
        if prompt is not None:
            self.asked[(prompt.benchmark, prompt.stage)] += 1

    def stage(self, sample: dict, position: int) -> int:
        """1 or 2: what the sample's prompt asked, else its place (a doc_id's second sample is stage 2)."""
        prompt = self.prompt(sample)
        if prompt is not None:
            return 2 if prompt.stage == "stage2" else 1
        return 2 if (position, 1) in self.seen else 1

    def family(self, sample: dict) -> str | None:
        prompt = self.prompt(sample)
        return prompt.family if prompt is not None else None


def _lmms(bench: Benchmark, gold: Gold, files: list[bundle.Part], max_rows: int = MAX_ROWS) -> Converted:
    """Samples files (one, or several given together: the benchmark's own tasks' are read, the others
    set aside) as our lines; every record is numbered by its line in its own file."""
    files, aside = _own_tasks(bench, files)
    out, stages = _Lines(bench, gold, "lmms-eval samples", {}, [], {}), _Stages()
    record, read, starts = 0, 0, []
    for given in files:
        starts.append((given.name, record))
        for raw in given.data.decode("utf-8-sig", "replace").split("\n"):
            record += 1  # a line of the file as given (an editor's line), blank or not
            if not raw.strip():
                continue
            read += 1
            if read > max_rows:
                _check_other_task(bench, stages, read - 1)  # another task's file is told so, not only its length
                raise TooManyRows("lmms-eval samples", max_rows)
            _lmms_record(out, record, raw, stages)
    _check_task(bench, stages, read)
    if stages.grounding and "grounding_response" not in bench.prediction_fields:
        raise ShapeError(
            "these lmms-eval samples give some doc_id twice (a stage-2 file after the stage-1 file), "
            f"and {bench.name} reads no stage-2 text (grounding_response) here"
        )
    for position, fields in stages.grounding.items():
        if position in out.lines:
            out.lines[position][1].update(fields)
    named = tuple(starts) if any(name for name, _ in starts) else ()
    return replace(out.converted(), files=named, notes=_set_aside_note(aside))


def _lmms_record(out: _Lines, record: int, raw: str, stages: _Stages) -> None:
    """One non-blank line of a samples file: a sample, or the reason it is none."""
    if len(raw) > MAX_SAMPLE_CHARS:  # refused unparsed: one 49 MB line parsed to 1.2 GB (red.md N1)
        out.refuse(record, "line_too_long", f"a sample line longer than {MAX_SAMPLE_CHARS:,} characters")
        return
    sample = _json_line(raw)
    if not isinstance(sample, dict) or "doc_id" not in sample:
        out.refuse(record, "harness_sample", "not an lmms-eval sample (a JSON object with doc_id)")
        return
    stages.count(sample)
    _lmms_sample(out, record, sample, stages)


def _task_owners() -> dict[str, Benchmark]:
    """Every shipped lmms-eval task's name and the benchmark it answers (a one-stage benchmark's task
    is named by its id, a stage of a two-stage one ``{id}_{stage}``)."""
    from scoring.benchmarks import BENCHMARKS  # the registry imports this module's users

    owners = {}
    for b in BENCHMARKS.values():
        owners |= {b.id: b} if len(b.protocol) <= 1 else {f"{b.id}_{stage}": b for stage in b.protocol}
    return owners


def _task_asked(data: bytes) -> tuple[str, Benchmark] | None:
    """The task and benchmark a samples file's first prompt asks (for a file renamed by hand), or None."""
    first = next((x for x in data[:MAX_SAMPLE_CHARS].split(b"\n") if x.strip()), b"")
    sample = _json_line(first.decode("utf-8-sig", "replace"))
    prompt = _Stages.prompt(sample) if isinstance(sample, dict) else None
    if prompt is None:
        return None
    owners = _task_owners()
    task = next((t for t, b in owners.items() if b.id == prompt.benchmark and t.endswith(prompt.stage)), None)
    task = task or next((t for t, b in owners.items() if b.id == prompt.benchmark), None)
    return (task, owners[task]) if task else None


def _own_tasks(bench: Benchmark, files: list[bundle.Part]) -> tuple[list[bundle.Part], list[tuple[str, Benchmark]]]:
    """Of several samples files, those of ``bench``'s own tasks (or of no task the site knows) and,
    set aside, the other benchmarks' ``(file, benchmark)``; a task is the file's name
    (``<date>_samples_<task>.jsonl``), else what its first prompt asks. One file is read as it is
    (another task's is one message, :func:`_check_other_task`)."""
    if len(files) < 2:
        return files, []
    owners, kept, aside = _task_owners(), [], []
    for given in files:
        named = bundle.task_of(given.name)
        owner = owners.get(named) if named else None
        if owner is None:  # a name the site does not know: what its prompt asks
            owner = (_task_asked(given.data) or (None, None))[1]
        if owner is not None and owner.id != bench.id:
            aside.append((given.name, owner))
        else:
            kept.append(given)
    if not kept:
        listed = "; ".join(f"{name} ({owner.name})" for name, owner in aside)
        raise ShapeError(
            f"the files given hold no samples of {bench.name}'s tasks, only another benchmark's: {listed}; "
            "send them as that benchmark's submission"
        )
    return kept, aside


def _set_aside_note(aside: list[tuple[str, Benchmark]]) -> tuple[str, ...]:
    """One note naming the other benchmarks' files that were not read (the same upload serves each)."""
    if not aside:
        return ()
    listed = "; ".join(f"{name} ({owner.name})" for name, owner in aside)
    return (f"set aside, not read: {listed}: another benchmark's samples; send the same files as its submission",)


def _task_names(bench: Benchmark, stage: str) -> str:
    """The shipped lmms-eval tasks, other than ``bench``'s, whose prompt asks ``stage`` (a one-stage
    benchmark's task is named by its id, a stage of a two-stage one ``{id}_{stage}``)."""
    from scoring.benchmarks import BENCHMARKS  # the registry imports this module's users

    names = [b.id if len(b.protocol) == 1 else f"{b.id}_{stage}" for b in BENCHMARKS.values()]
    asking = [n for b, n in zip(BENCHMARKS.values(), names, strict=True) if b is not bench and stage in b.protocol]
    return " or ".join(asking) or "another benchmark's"


def _check_other_task(bench: Benchmark, stages: _Stages, records: int) -> None:
    """ShapeError when most of the ``records`` read are samples whose prompt asks a stage this
    benchmark's protocol does not have (another family's task)."""
    asked = stages.asked
    other = sum(n for (_, stage), n in asked.items() if stage not in bench.protocol)
    if other > records // 2:
        (benchmark, stage), _ = next((k, n) for k, n in asked.most_common() if k[1] not in bench.protocol)
        raise ShapeError(
            f"these lmms-eval samples are of the {_task_names(bench, stage)} task (on {other:,} of {records:,} "
            f"records its prompt asks {benchmark}'s question), not of {bench.name}: send them as that "
            "benchmark's submission"
        )


def _check_task(bench: Benchmark, stages: _Stages, records: int) -> None:
    """One message for samples of the other benchmark's task, or SCB's stage 2 without stage 1."""
    _check_other_task(bench, stages, records)
    if len(stages.twice) > records // 3:
        record, position, first = stages.twice[0]
        raise ShapeError(
            f"these lmms-eval samples give {len(stages.twice):,} doc_id twice for the same stage (record {record}: "
            f"doc_id {position}, first in record {first}): a samples file was given twice; send each task's once"
            + (f" ({bench.id}_stage1 and {bench.id}_stage2)" if "stage1" in bench.protocol else "")
        )
    if "stage1" in bench.protocol and stages.grounding and not any(stage == 1 for _, stage in stages.seen):
        raise ShapeError(
            f"these are {bench.id}_stage2 samples only (every prompt asks for a box): {bench.name} needs the "
            f"{bench.id}_stage1 samples with them, which hold the answers; send both files together (or a .zip "
            "of lmms-eval's output folder)"
        )


def _lmms_sample(out: _Lines, record: int, sample: dict, stages: _Stages) -> None:
    bench = out.bench
    position = out.position(record, sample["doc_id"], "doc_id")
    if position is None:
        return
    response = next((r for f in LMMS_RESPONSE_FIELDS if (r := _response(sample.get(f))) is not None), None)
    if response is None:
        out.refuse(record, "bad_response", f"doc_id {position}: no text in filtered_resps or resps")
        return
    stage = stages.stage(sample, position)
    if not bench.grounding:
        stage = 1  # one stage: a doc_id's second sample is a duplicate
    first = stages.seen.setdefault((position, stage), record)
    if first != record:
        stages.twice.append((record, position, first))
        out.refuse(record, "duplicate_question_id", f"doc_id {position} already given in record {first}")
        return
    if stage == 2:  # SCB's stage 2: the grounding of the image stage 1 chose
        fields = {"grounding_response": response}
        presets = getattr(bench.family, "grounding_presets", protocol.GROUNDING_PRESETS)  # the declaration's
        preset = presets.get(stages.family(sample) or "")
        if preset is not None and preset.grounding_format not in DECLARED_SETTINGS:
            # the family the prompt asked for reads the answer, as the runner's lines say
            fields["grounding_format"] = preset.grounding_format
            fields |= {"bbox_format": preset.bbox_format} if preset.bbox_format else {}
        stages.grounding[position] = fields
        return
    _lmms_answer(out, record, sample, position, response)


def _lmms_answer(out: _Lines, record: int, sample: dict, position: int, response: str) -> None:
    bench, gold = out.bench, out.gold
    line: dict = {bench.key_field: gold.keys[position], "response": response}
    doc = sample.get("doc")
    if isinstance(doc, dict):
        named = doc.get(bench.key_field)
        if named is not None and str(named) != str(gold.keys[position]):
            key = gold.keys[position]
            out.refuse(record, "harness_doc", f"doc_id {position} is question {key!r} here, but its doc is {named!r}")
            return
        if bench.key_echo and doc.get(bench.key_echo) is not None:
            line[bench.key_echo] = doc[bench.key_echo]
    out.lines[position] = (record, line)
    if isinstance(sample.get("input"), str):
        out.shown[position] = sample["input"]
