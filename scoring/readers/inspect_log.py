"""Inspect AI's ``.eval`` logs as inspect-ai writes them, read into our line records.

A ``.eval`` log (inspect_ai/log/_recorders/eval.py) is a zip: ``header.json`` (the run: its
``eval.task`` and ``eval.task_args``), ``_journal/...``, ``summaries.json`` and one
``samples/<id>_epoch_<n>.json`` per sample (``id``, ``epoch``, ``output.completion``, ``store``,
``metadata``, ``error``, ``messages``, ``events``). inspect-ai 0.3.285 compresses members with
Zstandard (zip method 93), which Python's ``zipfile`` cannot open before 3.14: those members are
read with the ``zstandard`` package (an optional import, as openpyxl is for workbooks).

A sample's ``id`` is the question's id (``scoring.harness.inspect``: K-Viscuit's row, SCB's
``question_id``), except in a run of a benchmark's ``eval.yaml`` by Inspect's Hub loader (task
``hf/...``), whose ids are 1-based positions in the split (:data:`HUB_TASK`); its response is
``output.completion``. A sample of a two-stage benchmark's task (``inspect eval scoring/scb``)
keeps both stages in its ``store`` (:func:`store_keys`: ``scb/stage1``, ``scb/stage2``,
``scb/grounding_format``): the stage-1 text is the ``response``, the stage-2 text the
``grounding_response``, read by that family, exactly the line the same outputs would be as JSON Lines.
A sample whose store is empty (``inspect eval-retry`` recovers an interrupted run's finished samples
so) gives its stages from its events, else its messages (:func:`recorded_store`); a member name the
log holds twice (a retried log keeps the killed run's cancelled sample beside its retry) is read as
Inspect reads it, the last.

Bounded where it runs: members are counted (at most two per question plus the run's own), each
sample's declared size is capped and the whole log's too, and a member is never read past its
declared size. Pure: bytes in, lines out.
"""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile
import zlib
from collections.abc import Callable, Mapping

SAMPLE = re.compile(r"^samples/(?P<id>.+)_epoch_(?P<epoch>\d+)\.json$")
MAX_SAMPLE_BYTES = 32 * 1024 * 1024  # one sample, unpacked (its events included)
MAX_LOG_BYTES = 256 * 1024 * 1024  # the whole log, unpacked
MAX_HEADER_BYTES = 32 * 1024 * 1024  # the run's header (its task's name is read from it)
EXTRA_MEMBERS = 64  # header, journal, summaries, reductions ...
ZSTD = 93


def store_keys(benchmark: str) -> dict[str, str]:
    """The store keys a two-stage benchmark's Inspect task writes (``scoring.harness.inspect.tasks``):
    its two responses and the grounding family, under the benchmark's id."""
    return {"stage1": f"{benchmark}/stage1", "stage2": f"{benchmark}/stage2", "family": f"{benchmark}/grounding_format"}


HUB_TASK = "hf/"
"""How Inspect's Hub loader names a task it runs from a dataset's ``eval.yaml`` (``inspect eval
hf/OWNER/DATASET/TASK``, inspect_ai/_eval/task/hf.py): it numbers the samples 1, 2, ... by their
position in the split, so sample ``n`` is the split's row ``n - 1`` (K-Viscuit's ``question_id``)."""
NAME = "Inspect AI log"
KIND = f"an {NAME} (.eval)"


class LogError(ValueError):
    """The whole log cannot be read: one message, what it is and what to do."""


def is_eval_log(data: bytes) -> bool:
    """A zip whose members are an Inspect log's (its header or journal, and samples)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = z.namelist()
    except (zipfile.BadZipFile, OSError):
        return False
    return ("header.json" in names or "_journal/start.json" in names) and any(n.startswith("samples/") for n in names)


def _zstd_reader() -> Callable[[bytes, int], bytes]:
    try:
        import zstandard  # optional: only inspect-ai's compressed logs need it
    except ImportError:
        raise LogError(
            f"this is {KIND} compressed with Zstandard; reading it needs the zstandard package here "
            "(pip install zstandard)"
        ) from None

    def read(raw: bytes, limit: int) -> bytes:
        return zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw)).read(limit + 1)

    return read


def _member(z: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    """A member's bytes, never more than ``limit`` (its declared size is checked first) and
    checked against its CRC."""
    if info.file_size > limit:
        raise LogError(f"{info.filename} of this {NAME} unpacks to {info.file_size:,} bytes; the limit is {limit:,}")
    if info.compress_type != ZSTD:
        with z.open(info) as f:
            data = f.read(limit + 1)
    else:
        z.fp.seek(info.header_offset)
        header = z.fp.read(30)
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        z.fp.seek(info.header_offset + 30 + name_length + extra_length)
        data = _zstd_reader()(z.fp.read(info.compress_size), limit)
        if zlib.crc32(data) != info.CRC:
            raise LogError(f"{info.filename} of this {NAME} is damaged (its checksum does not match)")
    if len(data) != info.file_size:
        raise LogError(f"{info.filename} of this {NAME} is not the size its zip entry declares")
    return data


def _json(z: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> dict:
    data = _member(z, info, limit)  # a LogError of its own (a ValueError) is not "not JSON"
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        raise LogError(f"{info.filename} of this {NAME} is not JSON") from None
    if not isinstance(value, dict):
        raise LogError(f"{info.filename} of this {NAME} is not a JSON object")
    return value


def _samples(z: zipfile.ZipFile, questions: int) -> list[zipfile.ZipInfo]:
    infos = z.infolist()
    if len(infos) > 2 * questions + EXTRA_MEMBERS:
        raise LogError(f"this {NAME} has {len(infos):,} members, more than {questions:,} questions need")
    if sum(i.file_size for i in infos) > MAX_LOG_BYTES:
        raise LogError(f"this {NAME} unpacks to more than {MAX_LOG_BYTES:,} bytes")
    # the last member of a name, as Inspect reads it: an eval-retry log keeps the killed run's
    # cancelled samples beside their retried ones under the same name (zipfile's getinfo is the last)
    samples = list({i.filename: i for i in infos if SAMPLE.match(i.filename)}.values())
    epochs = {int(SAMPLE.match(i.filename)["epoch"]) for i in samples}
    if epochs - {1}:
        raise LogError(
            f"this {NAME} has {max(epochs)} epochs: the leaderboard scores one answer per question; "
            "run inspect eval with --epochs 1"
        )
    return samples


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def sample_line(
    key_field: str,
    key: object,
    sample: dict,
    key_echo: str = "",
    store_keys: Mapping[str, str] | None = None,
    family: str = "",
) -> tuple[dict | None, str]:
    """One sample's line (None and why, for a sample that has no response); ``store_keys`` are where
    a two-stage sample keeps its stages (:func:`store_keys` of the benchmark; None: a benchmark of one
    stage, whose samples' outputs are their responses); ``family``: the run's ``grounding_format``,
    for a stage 2 whose sample does not name it (:func:`recorded_store`)."""
    if sample.get("error"):
        message = str((sample["error"] or {}).get("message", "")) if isinstance(sample["error"], dict) else ""
        return None, f"sample {key!r} ended in an error in the run ({message[:200]}): it has no response"
    store = sample.get("store") if isinstance(sample.get("store"), dict) else {}
    output = sample.get("output") if isinstance(sample.get("output"), dict) else {}
    if store_keys and _text(store.get(store_keys["stage1"])) is None:
        store = recorded_store(sample, store_keys)  # a sample eval-retry recovered: its store is empty
    stage1 = _text(store.get(store_keys["stage1"])) if store_keys else None
    if stage1 is not None:  # a two-stage task (scoring.harness.inspect): both stages
        line = {key_field: key, "response": stage1}
        if _text(store.get(store_keys["stage2"])) is not None:
            line["grounding_response"] = store[store_keys["stage2"]]
            if _text(store.get(store_keys["family"])) or family:
                line["grounding_format"] = _text(store.get(store_keys["family"])) or family
        return line, ""
    completion = _text(output.get("completion"))
    if completion is None:
        return None, f"sample {key!r} has no output.completion"
    line = {key_field: key, "response": completion}
    metadata = sample.get("metadata") if isinstance(sample.get("metadata"), dict) else {}
    if key_echo and metadata.get(key_echo) not in (None, ""):
        line[key_echo] = metadata[key_echo]
    return line, ""


def _unescaped(token: str) -> str:
    """A JSON Pointer token as the key it names (RFC 6901: ``~1`` is ``/``, ``~0`` is ``~``)."""
    return token.replace("~1", "/").replace("~0", "~")


def recorded_store(sample: dict, store_keys: Mapping[str, str]) -> dict:
    """The store a sample's events recorded (its ``store`` events' changes, and the ``state`` events'
    under ``/store/``, replayed in order), else its stages from its messages: the first assistant
    message is stage 1, and ``output.completion`` stage 2 when it is another message.

    ``inspect eval-retry`` of an interrupted run recovers the samples that had finished but were not
    yet written with their events and an empty ``store`` (33 of 3,178 in the team trial): their
    answers are there, in the events and messages."""
    store: dict = {}
    for event in sample.get("events") or []:
        if not isinstance(event, dict) or event.get("event") not in ("store", "state"):
            continue
        prefix = "/" if event["event"] == "store" else "/store/"
        for change in event.get("changes") or []:
            path = change.get("path") if isinstance(change, dict) else None
            if isinstance(path, str) and path.startswith(prefix) and change.get("op") in ("add", "replace"):
                store[_unescaped(path[len(prefix) :])] = change.get("value")
    if _text(store.get(store_keys["stage1"])) is not None:
        return store
    return _stages_of_messages(sample, store_keys)


def _stages_of_messages(sample: dict, store_keys: Mapping[str, str]) -> dict:
    """Stage 1 from the first assistant message, stage 2 from the output when it is another one."""
    replies = [m for m in sample.get("messages") or [] if isinstance(m, dict) and m.get("role") == "assistant"]
    if not replies:
        return {}
    first = replies[0].get("content")
    if isinstance(first, list):  # content parts: the text of its text parts
        first = "".join(p.get("text", "") for p in first if isinstance(p, dict) and p.get("type") == "text")
    output = sample.get("output") if isinstance(sample.get("output"), dict) else {}
    choices = output.get("choices") if isinstance(output.get("choices"), list) else []
    shown = choices[0].get("message", {}) if choices and isinstance(choices[0], dict) else {}
    stages = {store_keys["stage1"]: first}
    if _text(output.get("completion")) is not None and shown.get("id") != replies[0].get("id"):
        stages[store_keys["stage2"]] = output["completion"]
    return stages


def _run(z: zipfile.ZipFile) -> dict:
    """The run the log records (``eval`` of its header, or of its journal's start if unfinished)."""
    for name in ("header.json", "_journal/start.json"):
        if name in z.NameToInfo:
            run = _json(z, z.getinfo(name), MAX_HEADER_BYTES).get("eval")
            return run if isinstance(run, dict) else {}
    return {}


def _numbered_by_position(run: dict) -> bool:
    """A run of Inspect's Hub loader (:data:`HUB_TASK`); refused if its samples were shuffled, as
    their positions then say nothing (Inspect itself will not reuse such samples)."""
    if not str(run.get("task", "")).startswith(HUB_TASK):
        return False
    dataset = run.get("dataset") if isinstance(run.get("dataset"), dict) else {}
    if dataset.get("shuffled"):
        raise LogError(
            f"this {NAME} of {run['task']} ran with its samples shuffled: Inspect's Hub loader numbers samples "
            "by position, so their ids do not say which question each answers; run it again without shuffling"
        )
    return True


def _sample_key(sample_id: object, by_position: bool) -> object:
    """The question id a sample answers: its id, or for the Hub loader's numbering its row."""
    if by_position and isinstance(sample_id, int) and not isinstance(sample_id, bool):
        return sample_id - 1
    return sample_id


def read_log(
    data: bytes,
    key_field: str,
    parse_key: Callable[[object], object | None],
    questions: int,
    key_echo: str = "",
    store_keys: Mapping[str, str] | None = None,
) -> tuple[list[tuple[int, dict]], list[tuple[int, str, str]]]:
    """The log's lines as ``(record, line)`` in the log's sample order (a record is a sample,
    1-based) and the samples that could not become a line, as ``(record, code, message)``."""
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError):
        raise LogError(f"this looks like {KIND} but is not a readable zip") from None
    with z:
        lines, issues = [], []
        run = _run(z)
        by_position = _numbered_by_position(run)
        task_args = run.get("task_args") if isinstance(run.get("task_args"), dict) else {}
        family = _text(task_args.get("grounding_format")) or ""
        for record, info in enumerate(_samples(z, questions), 1):
            sample = _json(z, info, MAX_SAMPLE_BYTES)
            key = parse_key(_sample_key(sample.get("id"), by_position))
            if key is None:
                issues.append((record, "harness_sample", f"{info.filename}: id {sample.get('id')!r} is no question id"))
                continue
            line, why = sample_line(key_field, key, sample, key_echo, store_keys, family)
            if line is None:
                issues.append((record, "bad_response", why))
            else:
                lines.append((record, line))
    return lines, issues
