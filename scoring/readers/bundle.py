"""Several files as one submission: SCB's two lmms-eval samples files, or a .zip of lmms-eval's
output folder.

A harness writes one file per task, and SCB's two stages are two tasks (``scb_stage1``,
``scb_stage2``). Teams send them together, as written: :func:`gather` joins the samples files
given (each a file or a zip archive of a folder), each kept under its name (:func:`samples_files`:
a zip's members by their path in it), so the harness reader (scoring/readers/harness_files.py) reads
a benchmark's own tasks' files (:func:`task_of`), sets the others aside, tells the stages apart by
content whatever their order, and names each error's file and its own line. Only lmms-eval samples
are read together; anything else among several files is one message.

The server stores several files given as one upload unread, in one *parts* zip (:data:`PARTS_MANIFEST`
names them in order, leaderboard/joined.py writes it), and opens it in the bounded worker:
:func:`gather_parts`. Everything is bounded from the archives' directories before a byte is inflated:
the files given together count against one budget, at most :data:`MAX_FILES` of them and
:data:`MAX_MEMBERS` members in all, and the samples they hold may unpack to no more than the upload
limit a single file has (``max_bytes``), so several zips never make more work than one unzipped
upload; the message says which limit applied. A file given may be a zip of a folder; nothing inside
one is opened as an archive. Pure: bytes in, bytes out.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

MAX_FILES = 16
"""Files one submission may give (SCB's two stages, a few re-runs)."""
MAX_MEMBERS = 256
"""Members a zip may list (an output folder holds a results file and a samples file per task)."""
SAMPLES_NAME = re.compile(r"(^|/)([^/]*_)?samples_[^/]*\.jsonl$")
"""lmms-eval's ``<date>_samples_<task>.jsonl`` (older versions: ``samples_<task>.jsonl``)."""
WORKBOOK_MEMBER = "[Content_Types].xml"
"""Every Office Open XML file (a VLMEvalKit .xlsx) has it; an output folder's zip does not."""
FIXED_TIME = (1980, 1, 1, 0, 0, 0)
"""Every parts member's date: the same files make the same upload, byte for byte (a resend is a repeat)."""
PARTS_MANIFEST = "upload-parts.json"
"""The member of a parts zip that lists, in order, the members holding the files given (a JSON list)."""


class BundleError(ValueError):
    """The files cannot be one submission: one message, what and which limit or file."""

    code = "file_shape"


@dataclass(frozen=True)
class Part:
    """One file given: its name (for messages and to spot a zip) and its bytes."""

    name: str
    data: bytes


def is_zip(data: bytes) -> bool:
    return data[:4] == b"PK\x03\x04"


def is_workbook(data: bytes) -> bool:
    """A zip that is an Office workbook (VLMEvalKit's .xlsx), not a zip of a folder."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return any(name == WORKBOOK_MEMBER for name in z.namelist()[:MAX_MEMBERS])
    except zipfile.BadZipFile:
        return False


@dataclass
class _Planned:
    """A file given, and (a zip) the members it will be read as: known before any is inflated."""

    part: Part
    members: list[zipfile.ZipInfo] | None = None  # None: not a zip, read as it is


def _plan(parts: Sequence[Part], max_bytes: int) -> list[_Planned]:
    """Each file's samples members from its zip's directory, every bound checked on the whole
    (member count, declared unpacked size) before anything is unpacked."""
    if len(parts) > MAX_FILES:
        raise BundleError(f"{len(parts):,} files were given; the limit is {MAX_FILES:,}")
    planned, listed, unpacked = [], 0, 0
    for part in parts:
        if not is_zip(part.data):
            planned.append(_Planned(part))
            unpacked += len(part.data)
            continue
        members = _directory(part)
        listed += len(members)
        if listed > MAX_MEMBERS:
            if len(parts) == 1:
                raise BundleError(f"{part.name} lists {listed:,} members; the limit is {MAX_MEMBERS:,}")
            raise BundleError(f"the files given list {listed:,} members together; the limit is {MAX_MEMBERS:,}")
        wanted = [m for m in members if not m.is_dir() and SAMPLES_NAME.search(m.filename)]
        if not wanted:
            shown = ", ".join(m.filename for m in members[:6]) or "nothing"
            raise BundleError(
                f"{part.name} holds no lmms-eval samples file (<date>_samples_<task>.jsonl; it holds {shown}): zip the "
                "folder lmms-eval wrote with --log_samples"
            )
        planned.append(_Planned(part, sorted(wanted, key=lambda m: m.filename)))
        declared = sum(m.file_size for m in wanted)
        unpacked += declared
        if len(parts) == 1 and declared > max_bytes:
            raise BundleError(
                f"the samples files in {part.name} unpack to {declared:,} bytes; the limit is {max_bytes:,} "
                "(the upload limit of one file)"
            )
    if unpacked > max_bytes:
        raise BundleError(
            f"the files given hold {unpacked:,} bytes together, unpacked; the limit is {max_bytes:,} "
            "(the upload limit of one file)"
        )
    return planned


def _directory(part: Part) -> list[zipfile.ZipInfo]:
    try:
        with zipfile.ZipFile(io.BytesIO(part.data)) as z:
            return z.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, ValueError) as e:
        raise BundleError(f"{part.name} is a zip that cannot be read: {str(e)[:120]}") from None


def _read_planned(planned: list[_Planned], max_bytes: int) -> list[Part]:
    """The files, zips unpacked member by member as planned (each member held to its declared size)."""
    files: list[Part] = []
    for plan in planned:
        if plan.members is None:
            files.append(plan.part)
            continue
        try:
            with zipfile.ZipFile(io.BytesIO(plan.part.data)) as z:
                files += [Part(m.filename, z.read(m)) for m in plan.members]
        except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, ValueError) as e:
            raise BundleError(f"{plan.part.name} is a zip that cannot be read: {str(e)[:120]}") from None
    total = sum(len(f.data) for f in files)
    if total > max_bytes:  # the declared sizes bound what zipfile gives; a last check all the same
        raise BundleError(f"the files given hold {total:,} bytes together; the limit is {max_bytes:,}")
    return files


def _is_samples(data: bytes) -> bool:
    first = data.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    try:
        value = json.loads(first)
    except ValueError:
        return False
    return isinstance(value, dict) and "doc_id" in value and ("filtered_resps" in value or "resps" in value)


def samples_files(parts: Sequence[Part], max_bytes: int) -> list[Part]:
    """The samples files of every file given (a zip: its samples members, named by their path in it),
    in order. Raises BundleError when a file is not lmms-eval samples, or a bound is passed (module doc)."""
    files = _read_planned(_plan(parts, max_bytes), max_bytes)
    for f in files:
        if not _is_samples(f.data):
            raise BundleError(
                f"{f.name} is not an lmms-eval samples file (a JSON line with doc_id and filtered_resps): "
                "several files are read together only as lmms-eval samples (SCB: scb_stage1 and scb_stage2); "
                "send any other file alone"
            )
    return files


def gather(parts: Sequence[Part], max_bytes: int) -> bytes:
    """:func:`samples_files` as one body of samples lines (``cat stage1 stage2``: no file names kept)."""
    files = samples_files(parts, max_bytes)
    return b"".join(f.data if f.data.endswith(b"\n") else f.data + b"\n" for f in files)


TASK_NAME = re.compile(r"(?:^|/)(?:[^/]*_)?samples_([^/]+)\.jsonl$")
"""The task in a samples file's name (``20261208_031327_samples_scb_stage1.jsonl``: ``scb_stage1``)."""


def task_of(name: str) -> str | None:
    """The lmms-eval task a samples file's name says it holds, or None.

    >>> task_of("logs/toy/20261208_031327_samples_scb_stage1.jsonl")
    'scb_stage1'
    >>> task_of("answers.jsonl") is None
    True
    """
    found = TASK_NAME.search(name)
    return found.group(1) if found else None


def is_parts(data: bytes) -> bool:
    """A parts zip (the files of one upload, stored as given: leaderboard/joined.py)."""
    if not is_zip(data):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return any(info.filename == PARTS_MANIFEST for info in z.infolist()[: MAX_FILES + 1])
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, ValueError):
        return False


def parts_of(data: bytes, max_bytes: int) -> list[Part]:
    """The files a parts zip holds, in the order given; bounded by its directory first (their
    count, and their sizes together within ``max_bytes``)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
            if len(infos) > MAX_FILES + 1:
                raise BundleError(f"{len(infos) - 1:,} files were given; the limit is {MAX_FILES:,}")
            manifest = next(i for i in infos if i.filename == PARTS_MANIFEST)
            if manifest.file_size > 64 * 1024:
                raise BundleError("the list of the files given is too long")
            names = json.loads(z.read(manifest))
            by_name = {i.filename: i for i in infos}
            if not isinstance(names, list) or not all(isinstance(n, str) and n in by_name for n in names):
                raise BundleError("the list of the files given names files it does not hold")
            members = [by_name[n] for n in names]
            total = sum(m.file_size for m in members)
            if len(members) > MAX_FILES or total > max_bytes:
                raise BundleError(f"the files given hold {total:,} bytes together; the limit is {max_bytes:,}")
            return [Part(_given_name(m.filename), z.read(m)) for m in members]
    except BundleError:
        raise
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        NotImplementedError,
        RuntimeError,
        ValueError,
        StopIteration,
    ) as e:
        raise BundleError(f"the files given cannot be read: {str(e)[:120]}") from None


PART_NAME = re.compile(r"^parts/\d+-")
"""How leaderboard/joined.py names a file given in a parts zip: ``parts/00-<its name>``."""


def _given_name(member: str) -> str:
    """The name the file had when it was given (``parts/01-x.jsonl``: ``x.jsonl``)."""
    return PART_NAME.sub("", member, count=1)


def parts_zip(parts: Sequence[Part]) -> bytes:
    """The parts zip of ``parts`` (named as leaderboard/joined.py names them, stored as given):
    the command line's several files read as the site reads them, each under its own name."""
    names = [f"parts/{k:02d}-{p.name[:200]}" for k, p in enumerate(parts)]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
        for part, name in zip(parts, names, strict=True):
            z.writestr(zipfile.ZipInfo(name, FIXED_TIME), part.data)
        z.writestr(zipfile.ZipInfo(PARTS_MANIFEST, FIXED_TIME), json.dumps(names))
    return buffer.getvalue()


def gather_parts(data: bytes, max_bytes: int) -> bytes:
    """:func:`gather` of the files a parts zip holds (the worker's side of an upload of several files)."""
    return gather(parts_of(data, max_bytes), max_bytes)


def read_files(paths: Sequence[str | Path], max_bytes: int) -> list[Part]:
    """Files on disk as parts, each refused by its size before it is read."""
    if len(paths) > MAX_FILES:
        raise BundleError(f"{len(paths):,} files were given; the limit is {MAX_FILES:,}")
    parts = []
    for path in map(Path, paths):
        size = path.stat().st_size
        if size > max_bytes:
            raise BundleError(f"{path.name} is {size:,} bytes; the limit is {max_bytes:,}")
        parts.append(Part(path.name, path.read_bytes()))
    return parts


def gather_files(paths: Sequence[str | Path], max_bytes: int) -> bytes:
    """:func:`gather` of files on disk, each refused by its size before it is read."""
    return gather(read_files(paths, max_bytes), max_bytes)
