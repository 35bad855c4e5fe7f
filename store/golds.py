"""Gold versions in the private gold repo, compiled once per version and cached.

Adding gold validates it completely first (a broken gold never becomes current): the file, then
its group labels against the declaration, then what it changes against the current gold; a
changed question set or group size needs the maintainer's confirmation.

Before a gold is stored, :func:`scoring.leakaudit.audit` says how many answers its public question
list gives away by each channel a cheater would try (option id and url patterns, the answer's
size, an image's co-occurrence with the published fields); maintainers may withhold question
fields a model does not need (``withheld``: the grouping fields and ``concept``), and the audit is
then run on the list as it will be published.

Two pointers per benchmark. ``current.json`` is the gold the public board, the status of every
submission and new scoring use. ``staged.json`` is a new gold being rescored in the background;
:meth:`GoldRegistry.promote` makes it current with one atomic write, once every submission has an
outcome on it (the caller checks). A staged pointer naming the current version means "nothing
staged" (a store cannot delete). The very first gold of a benchmark is current at once.

The compiled form (masks as runs) is kept in memory (the current and the staged version per
benchmark) and on disk in the one compiled-gold cache (scoring/cache.py), so a restart or a
second process does not rasterise every mask again.
"""

from __future__ import annotations

import json
import logging
import tempfile
import threading
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from scoring import Gold, get_benchmark, load_gold
from scoring.cache import GoldCache
from scoring.goldcheck import GoldChanges, check_labels, compare
from scoring.leakaudit import Channel, audit
from store import layout
from store.base import NotFound, Store
from store.layout import GoldFile
from store.records import CorruptRecord, GoldInfo, StagedPreview

log = logging.getLogger(__name__)

__all__ = [
    "GOLD_SUFFIXES",
    "CheckedGold",
    "GoldInfo",
    "GoldRegistry",
    "GoldUpdate",
    "UnconfirmedGold",
    "leak_audit",
    "normalised",
    "public_list",
]

GOLD_SUFFIXES = (".jsonl", ".parquet", ".json")
KEEP_COMPILED = 2
"""Compiled versions kept in memory per benchmark: the current one and a staged one (a compiled
SCB gold takes some 230 MB, so the previous one is dropped when a staged gold becomes current)."""


class UnconfirmedGold(Exception):
    """A valid new gold that changes the question set or group sizes: nothing was stored; add
    it again with confirmation. ``changes`` says what differs (maintainers only)."""

    def __init__(self, benchmark: str, changes: GoldChanges) -> None:
        self.benchmark, self.changes = benchmark, changes
        super().__init__(
            f"{benchmark}: the new gold changes the questions; confirm to stage it: " + "; ".join(changes.lines())
        )


@dataclass(frozen=True)
class GoldUpdate:
    """What adding a gold did: its pointer, whether it waits as staged (else it is current, the
    first gold or the same content again) and what it changes against the current gold."""

    info: GoldInfo
    staged: bool
    changes: GoldChanges | None = None
    leaks: tuple[Channel, ...] = ()  # the leak audit of the public list as published


def withholdable(benchmark: str) -> tuple[str, ...]:
    """Question fields the public list may leave out: a model needs ids, prompts and options,
    never the grouping fields nor the concept (they are what co-occurrence leaks through)."""
    return (*(g.name for g in get_benchmark(benchmark).groupings), "concept")


def public_list(benchmark: str, path: Path, withheld: tuple[str, ...] = ()) -> list[dict]:
    """The public question list of the gold file at ``path``, without the ``withheld`` fields."""
    unknown = sorted(set(withheld) - set(withholdable(benchmark)))
    if unknown:
        can = ", ".join(withholdable(benchmark))
        raise ValueError(f"{benchmark}: cannot withhold {', '.join(unknown)}; fields that can be: {can}")
    questions = get_benchmark(benchmark).public_questions(path)
    return [{k: v for k, v in q.items() if k not in withheld} for q in questions]


def leak_audit(benchmark: str, path: Path, gold: Gold, withheld: tuple[str, ...] = ()) -> tuple[Channel, ...]:
    """The leak audit of the public list of ``gold`` (its file at ``path``), as it would be published."""
    questions = public_list(benchmark, path, withheld)
    choices = get_benchmark(benchmark).choices
    answers = {
        str(key): choices[int(code)] for key, code in zip(gold.keys, gold.answers.tolist(), strict=True) if code >= 0
    }
    fields = sorted({k for q in questions for k in q} - {"question_id", "options"})
    return tuple(audit(questions, answers, fields))


def normalised(withheld: tuple[str, ...]) -> tuple[str, ...]:
    """Withheld field names as given, stripped, each once."""
    return tuple(dict.fromkeys(f.strip() for f in withheld if f.strip()))


@dataclass(frozen=True)
class CheckedGold:
    """A gold file compiled (:meth:`GoldRegistry.read`), its public list audited with these fields
    ``withheld`` and compared with the current gold: what staging it needs, computed once by
    whoever read it first (a preview)."""

    gold: Gold
    suffix: str
    withheld: tuple[str, ...]
    leaks: tuple[Channel, ...]
    changes: GoldChanges | None = None  # what it changes against the gold ``against`` (its version)
    against: str = ""


class GoldRegistry:
    """Current gold per benchmark: add a version, read its info, get it compiled."""

    def __init__(self, store: Store, cache_dir: Path) -> None:
        self.store = store
        self.cache = GoldCache(cache_dir)
        self._compiled: dict[tuple[str, str], Gold] = {}
        self._keys: dict[tuple[str, str], frozenset] = {}  # (benchmark, version) -> its question keys
        self._retired: dict[tuple, frozenset] = {}  # (benchmark, version, other versions) -> retired keys
        self._lock = threading.Lock()

    def add(
        self, benchmark: str, path: Path, added_by: str, confirm: bool = False, withheld: tuple[str, ...] = ()
    ) -> GoldInfo:
        """:meth:`stage` and return the new gold's pointer."""
        return self.stage(benchmark, path, added_by, confirm, withheld).info

    def stage(
        self,
        benchmark: str,
        path: Path,
        added_by: str,
        confirm: bool = False,
        withheld: tuple[str, ...] = (),
        checked: CheckedGold | None = None,
    ) -> GoldUpdate:
        """Validate ``path`` as ``benchmark`` gold and stage it (current at once if it is the first).

        Raises GoldError (broken, or labels the declaration does not know), ValueError (file type)
        or UnconfirmedGold (question set or group sizes change and ``confirm`` is False); in each
        case nothing is stored. Adding the current version again while another is staged
        withdraws the staged one; adding it with other ``withheld`` fields republishes its list.
        The update carries the leak audit of the public list with those fields withheld.
        ``checked``: the same file compiled and audited already (a preview did: each is done once).
        """
        withheld = normalised(withheld)
        current = self.info(benchmark)
        checked = self._checked(benchmark, path, withheld, current, checked)
        gold, suffix, leaks = checked.gold, checked.suffix, checked.leaks
        fields = ",".join(withheld)
        if current is not None and current.version == gold.version:
            if self.staged(benchmark) is not None:
                self._point(layout.gold_staged(benchmark), current, f"Withdraw the staged {benchmark} gold")
            if current.withheld_fields != fields:
                current = replace(current, withheld_fields=fields)
                self._make_current(current)
            return GoldUpdate(current, staged=False, leaks=leaks)
        changes = checked.changes
        staged = self.staged(benchmark)
        if staged is not None and staged.version == gold.version:
            if staged.withheld_fields != fields:
                staged = replace(staged, withheld_fields=fields)
                self._point(layout.gold_staged(benchmark), staged, f"Stage {benchmark} gold {gold.version[:12]}")
            return GoldUpdate(staged, staged=True, changes=changes, leaks=leaks)
        if changes is not None and changes.needs_confirmation and not confirm:
            raise UnconfirmedGold(benchmark, changes)
        data = folder_as_jsonl(benchmark, path) if path.is_dir() else path.read_bytes()  # kept as JSONL
        file = GoldFile(benchmark, gold.version, suffix).path
        now = datetime.now(UTC).isoformat()
        previous = current.version if current else ""
        info = GoldInfo(benchmark, gold.version, file, now, added_by, gold.size, previous, fields)
        # The gold is an input (nothing rebuilds it): on the Hub before anyone is told it is current.
        if not self.store.exists("gold", file):  # a version stored before (a restore): its file stands as it is
            self.store.put("gold", {file: data}, f"Add {benchmark} gold {gold.version[:12]}", durable=True)
        self.cache.keep(benchmark, data, suffix, gold)
        with self._lock:
            self._keys[(benchmark, gold.version)] = frozenset(gold.keys)
            self._keep(gold)
        if current is None:
            self._make_current(info)
            return GoldUpdate(info, staged=False, leaks=leaks)
        self._point(layout.gold_staged(benchmark), info, f"Stage {benchmark} gold {gold.version[:12]}")
        return GoldUpdate(info, staged=True, changes=changes, leaks=leaks)

    def _checked(
        self, benchmark: str, path: Path, withheld: tuple[str, ...], current: GoldInfo | None, given: CheckedGold | None
    ) -> CheckedGold:
        """``given`` when it is of these withheld fields and the current gold, else compiled,
        audited and compared now."""
        against = current.version if current is not None else ""
        if given is not None and given.withheld == withheld and given.against == against:
            return given
        gold, suffix = self.read(benchmark, path)
        changes = compare(self.compiled(current), gold) if current is not None else None
        return CheckedGold(gold, suffix, withheld, leak_audit(benchmark, path, gold, withheld), changes, against)

    def stored_file(self, benchmark: str, version_prefix: str, folder: Path) -> Path | None:
        """A stored version (by a prefix of its sha256) copied into ``folder`` as the maintainer
        gave it, for restoring it; None if no stored version has that prefix (or several do)."""
        files = [f for f in self.versions(benchmark) if f.version.startswith(version_prefix.strip().lower())]
        if len(files) != 1 or not version_prefix.strip():
            return None
        path = Path(folder) / Path(files[0].path).name
        path.write_bytes(self.store.read("gold", files[0].path))
        return path

    def read(self, benchmark: str, path: Path) -> tuple[Gold, str]:
        """The gold file (or release folder) at ``path`` compiled and checked against the
        declaration, with the suffix it is stored under; stores nothing. Raises GoldError or
        ValueError (file type)."""
        if path.is_dir() and get_benchmark(benchmark).gold_folder is None:
            raise ValueError(f"{benchmark} takes its gold as one file, not a folder: {path.name!r}")
        suffix = ".jsonl" if path.is_dir() else path.suffix.lower()
        if suffix not in GOLD_SUFFIXES:
            raise ValueError(f"gold must be one of {', '.join(GOLD_SUFFIXES)}, got {path.name!r}")
        gold = load_gold(benchmark, path)
        check_labels(get_benchmark(benchmark), gold)
        return gold, suffix

    def staged(self, benchmark: str) -> GoldInfo | None:
        """The gold being rescored before it becomes current; None when nothing is staged."""
        path = layout.gold_staged(benchmark)
        try:
            info = GoldInfo.from_bytes(self.store.read("gold", path), path)
        except NotFound:
            return None
        current = self.info(benchmark)
        return None if current is not None and current.version == info.version else info

    def keep_preview(self, record: StagedPreview) -> None:
        """Keep the preview of switching to a staged gold beside its pointer (private: it names
        gold facts and every row's figures before -> after, as maintainers see them)."""
        path = layout.gold_staged_preview(record.benchmark)
        self.store.put(
            "gold",
            {path: record.to_bytes()},
            f"Preview of {record.benchmark} gold {record.staged[:12]}",
            overwrite=True,
        )

    def kept_preview(self, benchmark: str) -> StagedPreview | None:
        """The kept preview of ``benchmark``'s staged gold, None if none was kept (it may be of an
        earlier staged gold or stored submissions: the caller compares ``staged`` and ``basis``)."""
        path = layout.gold_staged_preview(benchmark)
        try:
            return StagedPreview.from_bytes(self.store.read("gold", path), path)
        except NotFound:
            return None
        except CorruptRecord as e:  # derived and rebuildable: computed again, not a stop of the tab
            log.warning("%s: %s; the preview is computed again", e.where, e.why)
            return None

    def promote(self, benchmark: str, version: str) -> GoldInfo | None:
        """Make the staged ``version`` current (its public questions first, then the pointer in
        one write); None if that version is no longer the staged one."""
        staged = self.staged(benchmark)
        if staged is None or staged.version != version:
            return None
        current = self.info(benchmark)
        info = replace(staged, previous_version=current.version if current else "")
        self._make_current(info)
        with self._lock:  # the old version is no longer scored on here: free its memory
            self._compiled = {k: v for k, v in self._compiled.items() if k[0] != benchmark or k[1] == version}
        return info

    def _make_current(self, info: GoldInfo) -> None:
        self._publish_questions(info)
        self._point(
            layout.gold_current(info.benchmark), info, f"Make {info.benchmark} gold {info.version[:12]} current"
        )

    def _point(self, path: str, info: GoldInfo, message: str) -> None:
        # A pointer is an input (nothing rebuilds it): on the Hub before anyone relies on it.
        self.store.put("gold", {path: info.to_bytes()}, message, overwrite=True, durable=True)

    def _publish_questions(self, info: GoldInfo) -> None:
        """The public side of the gold's questions, written when the gold becomes current."""
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / Path(info.file).name
            path.write_bytes(self.store.read("gold", info.file))
            questions = public_list(info.benchmark, path, info.withheld)
        body = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions).encode()
        self.store.put("results", {layout.public_questions(info.benchmark): body}, "Public questions", overwrite=True)

    def info(self, benchmark: str) -> GoldInfo | None:
        """The current gold's pointer; a CorruptRecord (a maintainer's file) stops the caller."""
        path = layout.gold_current(benchmark)
        try:
            return GoldInfo.from_bytes(self.store.read("gold", path), path)
        except NotFound:
            return None

    def get(self, benchmark: str) -> Gold | None:
        """The current gold, compiled (memory, then disk cache, then the gold file)."""
        info = self.info(benchmark)
        return None if info is None else self.compiled(info)

    def compiled(self, info: GoldInfo) -> Gold:
        """That version compiled, kept in memory as its benchmark's one compiled gold (under the
        lock: concurrent first requests compile once)."""
        key = (info.benchmark, info.version)
        with self._lock:
            gold = self._compiled.get(key) or self._load(GoldFile(info.benchmark, info.version, Path(info.file).suffix))
            self._keep(gold)  # also marks it as the most recently used
        return self._with_retired(gold)

    def versions(self, benchmark: str) -> list[GoldFile]:
        """Every stored gold version of ``benchmark`` (its files; the pointers are not versions)."""
        files = (GoldFile.parse(path) for path in self.store.list("gold", benchmark))
        return [f for f in files if f is not None and f.suffix in GOLD_SUFFIXES]

    def keys(self, file: GoldFile) -> frozenset:
        """The question keys of one stored version (compiled once per process, then remembered)."""
        key = (file.benchmark, file.version)
        with self._lock:
            known = self._keys.get(key) or self._keys.setdefault(key, frozenset(self._load(file).keys))
        return known

    def keys_of(self, benchmark: str, version: str) -> frozenset | None:
        """The question keys of a stored version (None if no such version is stored)."""
        file = next((f for f in self.versions(benchmark) if f.version == version), None)
        return None if file is None else self.keys(file)

    def retired(self, gold: Gold) -> frozenset:
        """Keys another stored gold of its benchmark has and ``gold`` has not (stored or about to
        be): a line answering one is set aside, not an error (a correction never rejects an
        accepted file)."""
        others = sorted((f for f in self.versions(gold.benchmark) if f.version != gold.version), key=str)
        memo = (gold.benchmark, gold.version, tuple(f.version for f in others))
        known = self._retired.get(memo)
        if known is None:  # once per set of stored versions: a scoring call only lists the gold repo
            known = frozenset(k for f in others for k in self.keys(f) if k not in gold.index)
            self._retired[memo] = known
        return known

    def _with_retired(self, gold: Gold) -> Gold:
        retired = self.retired(gold)
        if gold.retired != retired:
            gold.retired = retired  # grows as golds are added; one frozenset swap, safe for readers
        return gold

    def version(self, benchmark: str, version_prefix: str) -> Gold | None:
        """Any stored gold version of ``benchmark`` (by a prefix of its sha256), compiled."""
        current = self.info(benchmark)
        if current is not None and current.version.startswith(version_prefix):
            return self.compiled(current)
        for path in self.store.list("gold", benchmark):
            file = GoldFile.parse(path)
            if file is not None and file.version.startswith(version_prefix) and file.suffix in GOLD_SUFFIXES:
                return self._with_retired(self._load(file))
        return None

    def _load(self, file: GoldFile) -> Gold:
        return self.cache.load(file.benchmark, self.store.read("gold", file.path), file.suffix)

    def _keep(self, gold: Gold) -> None:
        """The last :data:`KEEP_COMPILED` versions used per benchmark in memory (caller holds the lock)."""
        key = (gold.benchmark, gold.version)
        self._compiled.pop(key, None)
        self._compiled[key] = gold  # newest last
        mine = [k for k in self._compiled if k[0] == gold.benchmark]
        for old in mine[:-KEEP_COMPILED]:
            del self._compiled[old]


def folder_as_jsonl(benchmark: str, folder: Path) -> bytes:
    """A gold given as a folder (the benchmark's release shape, its declaration's ``gold_folder``, which
    :meth:`GoldRegistry.read` checked) as the JSON Lines file the store keeps."""
    return get_benchmark(benchmark).gold_folder(Path(folder))
