"""Read once, keep the reading: an upload as the engine read it, kept beside the upload.

Reading a file (any shape: JSON Lines, a harness's file, a zip, several files joined) is the
expensive and the dangerous part of scoring it: it runs in a bounded worker, once
(submissions/reading.py). What it gives, a :class:`FileReading`, is what every later step takes:
scoring, rescoring on a corrected gold, the probe detector, maintainers' reports, item analysis.
It holds, per answered question (by its *key*, not a gold row, so that it outlives a gold): the
letter (or none: an unread response), how it was read (flags), the line it came from, and the
grounding in the scorer's own form (:class:`scoring.geometry.Box`, ``Polygons``, ``Runs``); and
for the file: the set-aside lines, the counts, the first unparsed lines, the box samples and
hint, and the rejection (issues) the scorer gives it.

A reading depends on the gold only through public facts: its keys in order, each question's
option texts and the ``gold.extra`` fields the benchmark declares (``Benchmark.reading_facts``),
the retired keys, and the limits. :func:`reading_basis` is their digest; each answered key also
keeps the digest of its own facts (:func:`question_facts`). :meth:`FileReading.predictions`
gives the engine's :class:`~scoring.engine.Predictions` on a gold: as read when the basis is the
same (a correction of answers or masks), or rebuilt key by key for a plain file without issues
(questions added: missing; removed: set aside). Anything else (a key whose facts changed, a
harness file whose positions name keys, a rejected file) returns None: read the file again.
``READER_VERSION`` names the reader: bump it when any reading could change (the answer reader,
a harness reader, a check), and every stored reading is read again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scoring.benchmarks import Benchmark
from scoring.boxcheck import BoxSample
from scoring.engine import Draft, Predictions, UnparsedLine, _limits_for, finish, read_draft
from scoring.errors import Issue, SubmissionError
from scoring.geometry import Box, BoxSet, Polygons, Runs
from scoring.gold import Gold
from scoring.jsonl import Limits

READER_VERSION = "2"
"""The reader's version: a stored reading of another version is not used (the file is read again)."""

LENIENT, RESPONSE, GROUNDING_RESPONSE, GROUNDING_UNPARSED = 1, 2, 4, 8
"""Flags of an answered question: its response was read leniently; it was a response (no
``answer``); it gave a grounding_response; whose text named no box."""

COUNTS = ("unparsed", "lenient", "responses", "grounding_responses", "grounding_unparsed")
"""The per-file counts of :class:`~scoring.engine.Predictions` a reading keeps."""


def question_facts(gold: Gold) -> np.ndarray:
    """Per gold row, a 64-bit digest of the public facts reading a line of that question looks at
    (its key, option texts and the benchmark's declared ``reading_facts``); zeros when the
    benchmark declares none (a reading is then reused on its own gold version only)."""
    return gold.derived("question_facts", _question_facts)


def _question_facts(gold: Gold) -> np.ndarray:
    from scoring.benchmarks import get_benchmark

    names = get_benchmark(gold.benchmark).reading_facts
    if names is None:
        return np.zeros(gold.size, dtype=np.uint64)
    columns = [_rows_of(gold.extra[name], gold.size) for name in names]
    texts = gold.option_texts or [()] * gold.size
    out = np.empty(gold.size, dtype=np.uint64)
    for row, key in enumerate(gold.keys):
        parts = (repr(key), repr(tuple(texts[row])), *(repr(column[row]) for column in columns))
        digest = hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).digest()
        out[row] = int.from_bytes(digest, "little")
    return out


def _rows_of(values: object, size: int) -> list:
    rows = values.tolist() if isinstance(values, np.ndarray) else list(values)
    if len(rows) != size:
        raise ValueError(f"a declared reading fact has {len(rows)} rows, the gold {size}")
    return rows


def reading_basis(gold: Gold, limits: Limits | None = None) -> str:
    """The sha256 of everything a reading on ``gold`` depends on (see module doc): two golds with
    the same basis read every file alike. Kept beside the gold (its retired keys may grow)."""
    limits = _limits_for(gold, limits)
    return gold.derived(f"reading_basis:{limits}:{hash(gold.retired)}", lambda g: _basis(g, limits))


def _basis(gold: Gold, limits: Limits) -> str:
    from scoring.benchmarks import get_benchmark

    h = hashlib.sha256()
    h.update(f"{READER_VERSION}\x1f{gold.benchmark}\x1f{limits}\x1f".encode())
    if get_benchmark(gold.benchmark).reading_facts is None:
        h.update(gold.version.encode())
    h.update(question_facts(gold).tobytes())
    h.update(repr(sorted(map(repr, gold.retired))).encode())
    return h.hexdigest()


@dataclass(frozen=True, eq=False)
class ReadAnswers:
    """What a file answered, by question key, without its groundings: the letter (-1: none read)
    and the extent of each grounding in the file's own units (NaN: none). What the probe detector
    and item analysis take from many files at once (store.records.StoredReading.answers reads
    only this from a stored reading)."""

    benchmark: str
    keys: tuple
    letters: np.ndarray  # int8
    extents: np.ndarray  # float64, (keys, 4): x0, y0, x1, y1
    units: np.ndarray | None = None  # float64, (keys, 3): the extent's scale and reference frame (see below)

    @property
    def answered(self) -> int:
        return len(self.keys)

    def pixel_extents(self, widths: np.ndarray, heights: np.ndarray) -> np.ndarray:
        """The extents in pixels of images of ``widths`` x ``heights`` (one per key), converted as
        the scorer converts each grounding (:meth:`Box.in_image`, :meth:`Polygons.in_image`): a
        box on a 0-1 or 0-1000 grid times width / scale, pixels of a reference frame times width /
        its width, a mask's pixels as they are. ``units`` per key: (scale, reference width,
        reference height), NaN where there is none."""
        if self.units is None:
            raise ValueError("this reading has no units: its extents cannot be put in pixels")
        w, h = np.asarray(widths, dtype=np.float64), np.asarray(heights, dtype=np.float64)
        scale, ref_w, ref_h = self.units.T
        sx = np.where(~np.isnan(scale), w / scale, np.where(~np.isnan(ref_w), w / ref_w, 1.0))
        sy = np.where(~np.isnan(scale), h / scale, np.where(~np.isnan(ref_h), h / ref_h, 1.0))
        return self.extents * np.stack([sx, sy, sx, sy], axis=1)


@dataclass(frozen=True, eq=False)
class FileReading:
    """One file as read (see module doc); ``keys`` and the arrays beside it are in line order."""

    benchmark: str
    basis: str
    bbox_format: str
    grounding_format: str
    keys: tuple
    letters: np.ndarray  # int8: index into the choices, -1 for none read
    flags: np.ndarray  # uint8: LENIENT | RESPONSE | GROUNDING_RESPONSE | GROUNDING_UNPARSED
    lines: np.ndarray  # int64: the line (a harness file's: converted line) each key came from
    facts: np.ndarray  # uint64: the key's question_facts when it was read
    groundings: tuple  # per key: Box, Polygons, Runs or None
    plain_boxes: bool = False  # a plain file's boxes (scoring.batch): scored as one BoxSet
    box_scale: float | None = None  # that BoxSet's scale
    counts: Mapping[str, int] = field(default_factory=dict)
    unparsed_lines: tuple[UnparsedLine, ...] = ()
    box_samples: tuple[BoxSample, ...] = ()
    grounding_hint: Issue | None = None
    set_aside: tuple[tuple[int, object], ...] = ()  # (line, key) of lines answering retired questions
    last_line: int = 0
    converted: bool = False  # a harness file: its positions name keys, so it is reused on its basis only
    issues: tuple[Issue, ...] = ()  # the scorer's rejection, when it has one
    total: int = 0
    reader: str = READER_VERSION
    notes: tuple[Issue, ...] = ()  # what the reader set aside and says (another benchmark's files in a zip)

    @property
    def rejected(self) -> bool:
        return self.total > 0

    @property
    def answered(self) -> int:
        return len(self.keys)

    def predictions(self, gold: Gold, limits: Limits | None = None) -> Predictions | None:
        """The engine's predictions on ``gold`` (see module doc); None when the file must be read
        again for it, or was rejected (:attr:`issues` is its rejection on this reading's basis)."""
        if self.rejected or self.reader != READER_VERSION or self.benchmark != gold.benchmark:
            return None
        if self.basis == reading_basis(gold, limits):
            return self._as_read(gold)
        return self._rebased(gold, limits)

    def fits(self, gold: Gold, limits: Limits | None = None) -> bool:
        """Whether this reading answers for ``gold`` without reading the file again (scored or
        rejected as it stands)."""
        if self.reader != READER_VERSION or self.benchmark != gold.benchmark:
            return False
        if self.basis == reading_basis(gold, limits):
            return True
        return not self.rejected and self._rebased(gold, limits) is not None

    def _as_read(self, gold: Gold) -> Predictions:
        rows = np.fromiter((gold.index[k] for k in self.keys), dtype=np.int64, count=len(self.keys))
        keep = np.arange(len(self.keys))
        listed = (self.unparsed_lines, self.box_samples, self.grounding_hint)
        return self._on_rows(gold, rows, keep, self.set_aside, dict(self.counts), listed)

    def _rebased(self, gold: Gold, limits: Limits | None) -> Predictions | None:
        """Key by key on another basis: a clean plain file whose keys are still asked with the same
        facts, or retired now; None otherwise."""
        if self.converted or not self.facts.any() or self.last_line > _limits_for(gold, limits).max_lines:
            return None
        if any(key in gold.index or key not in gold.retired for _, key in self.set_aside):
            return None
        facts = question_facts(gold)
        rows, keep, aside = [], [], list(self.set_aside)
        for i, key in enumerate(self.keys):
            row = gold.index.get(key)
            if row is None:
                if key not in gold.retired:
                    return None
                aside.append((int(self.lines[i]), key))
            elif facts[row] != self.facts[i]:
                return None
            else:
                rows.append(row)
                keep.append(i)
        keep_at = np.asarray(keep, dtype=np.int64)
        kept_lines = set(self.lines[keep_at].tolist())
        unparsed = tuple(u for u in self.unparsed_lines if u.line in kept_lines)
        counts = self._counts(keep_at)
        aside = tuple(sorted(aside, key=lambda pair: pair[0]))
        return self._on_rows(gold, np.asarray(rows, dtype=np.int64), keep_at, aside, counts, (unparsed, (), None))

    def _counts(self, keep: np.ndarray) -> dict[str, int]:
        flags, letters = self.flags[keep], self.letters[keep]
        responded = (flags & RESPONSE) > 0
        return {
            "unparsed": int((responded & (letters < 0)).sum()),
            "lenient": int(((flags & LENIENT) > 0).sum()),
            "responses": int(responded.sum()),
            "grounding_responses": int(((flags & GROUNDING_RESPONSE) > 0).sum()),
            "grounding_unparsed": int(((flags & GROUNDING_UNPARSED) > 0).sum()),
        }

    def _on_rows(
        self,
        gold: Gold,
        rows: np.ndarray,
        keep: np.ndarray,
        aside: tuple,
        counts: dict[str, int],
        listed: tuple,
    ) -> Predictions:
        """Predictions whose row ``rows[j]`` holds what key ``keep[j]`` was read as; ``listed``:
        the unparsed lines, box samples and grounding hint they keep."""
        unparsed, samples, hint = listed
        letters = np.full(gold.size, -1, dtype=np.int8)
        letters[rows] = self.letters[keep]
        submitted = np.zeros(gold.size, dtype=bool)
        submitted[rows] = True
        line_of = np.zeros(gold.size, dtype=np.int64)
        line_of[rows] = self.lines[keep]
        flags = self.flags[keep]
        flagged = lambda flag: tuple(rows[(flags & flag) > 0].tolist())  # noqa: E731
        return Predictions(
            gold.benchmark,
            gold.version,
            letters,
            submitted,
            self._groundings(rows, keep),
            counts.get("unparsed", 0),
            counts.get("lenient", 0),
            counts.get("responses", 0),
            unparsed,
            samples,
            counts.get("grounding_responses", 0),
            counts.get("grounding_unparsed", 0),
            hint,
            flagged(LENIENT),
            tuple(line for line, _ in aside),
            tuple(key for _, key in aside),
            line_of,
            flagged(RESPONSE),
            flagged(GROUNDING_RESPONSE),
            flagged(GROUNDING_UNPARSED),
        )

    def _groundings(self, rows: np.ndarray, keep: np.ndarray) -> Mapping[int, object]:
        pairs = [(int(row), self.groundings[i]) for row, i in zip(rows.tolist(), keep.tolist(), strict=True)]
        pairs = [(row, g) for row, g in pairs if g is not None]
        if not self.plain_boxes:
            return dict(pairs)
        corners = np.array([(g.x0, g.y0, g.x1, g.y1) for _, g in pairs], dtype=np.float64).reshape(-1, 4)
        return BoxSet([row for row, _ in pairs], corners, self.box_scale)

    def answers(self) -> ReadAnswers:
        return ReadAnswers(self.benchmark, self.keys, self.letters, self.box_extents(), self.extent_units())

    def extent_units(self) -> np.ndarray:
        """Per key, the units of its extent: (scale, reference width, reference height), NaN where
        none (:meth:`ReadAnswers.pixel_extents`)."""
        out = np.full((len(self.keys), 3), np.nan, dtype=np.float64)
        for i, g in enumerate(self.groundings):
            if isinstance(g, Box | Polygons):
                scale = getattr(g, "scale", None)
                out[i] = np.nan if scale is None else scale, *(g.ref or (np.nan, np.nan))
        return out

    def box_extents(self) -> np.ndarray:
        """Per key, its grounding's extent ``(x0, y0, x1, y1)`` in the file's own units (a box's
        corners, a polygon's extent, a mask's pixels), NaN where it grounds nothing: what the probe
        detector compares between files, one array for many files."""
        out = np.full((len(self.keys), 4), np.nan, dtype=np.float64)
        for i, g in enumerate(self.groundings):
            if isinstance(g, Box):
                out[i] = g.x0, g.y0, g.x1, g.y1
            elif isinstance(g, Polygons) and g.parts:
                flat = np.concatenate(g.parts)
                out[i] = flat[0::2].min(), flat[1::2].min(), flat[0::2].max(), flat[1::2].max()
            elif isinstance(g, Runs) and g.starts.size:
                out[i] = _runs_extent(g)
        return out

    @classmethod
    def of(
        cls,
        draft: Draft,
        basis: str,
        predictions: Predictions,
        rejection: tuple[tuple[Issue, ...], int],
        grounding: str,
    ) -> FileReading:
        """The reading of ``draft``: its ``predictions`` as the scorer finished them, the scorer's
        ``rejection`` (issues, total) and the declared ``grounding`` format."""
        issues, total = rejection
        gold = draft.gold
        answered = np.flatnonzero(predictions.submitted)
        line_of = predictions.line_of if predictions.line_of is not None else np.zeros(gold.size, dtype=np.int64)
        rows = answered[np.argsort(line_of[answered], kind="stable")]
        flags = np.zeros(gold.size, dtype=np.uint8)
        for flag, marked in (
            (LENIENT, predictions.lenient_rows),
            (RESPONSE, predictions.response_rows),
            (GROUNDING_RESPONSE, predictions.grounding_rows),
            (GROUNDING_UNPARSED, predictions.grounding_unparsed_rows),
        ):
            flags[list(marked)] |= flag
        groundings = predictions.groundings
        plain = isinstance(groundings, BoxSet)
        return cls(
            draft.bench.id,
            basis,
            draft.bbox_format,
            grounding,
            tuple(gold.keys[r] for r in rows.tolist()),
            predictions.letters[rows].astype(np.int8),
            flags[rows],
            line_of[rows].astype(np.int64),
            question_facts(gold)[rows],
            tuple(groundings.get(r) if r in groundings else None for r in rows.tolist()),
            plain,
            groundings.scale if plain else None,
            {name: int(getattr(predictions, name)) for name in COUNTS},
            predictions.unparsed_lines,
            predictions.box_samples,
            predictions.grounding_hint,
            tuple(zip(predictions.set_aside, predictions.set_aside_keys, strict=True)),
            draft.lines,
            draft.converted is not None,
            tuple(issues),
            total,
            notes=predictions.notes,
        )


def _runs_extent(runs: Runs) -> tuple[float, float, float, float]:
    """The pixel extent of a column-major mask's runs (a run that crosses a column spans every row)."""
    h = runs.height
    first, last = runs.starts, runs.starts + runs.lengths - 1
    cols0, cols1 = first // h, last // h
    same = cols0 == cols1
    top = np.where(same, first % h, 0).min()
    bottom = np.where(same, last % h, h - 1).max()
    return float(cols0.min()), float(top), float(cols1.max() + 1), float(bottom + 1)


def read(
    bench: Benchmark,
    gold: Gold,
    source: str | Path | bytes,
    bbox_format: str = "xyxy",
    grounding_format: str = "",
    limits: Limits | None = None,
) -> tuple[FileReading, Draft]:
    """Read ``source`` once: its reading (what is kept) and the draft the checks of the same
    pass are finished from (scoring.engine.finish)."""
    draft = read_draft(bench, gold, source, bbox_format, limits, grounding_format)
    try:
        predictions, issues, total = finish(draft), (), 0
    except SubmissionError as e:
        predictions, issues, total = draft.predictions, tuple(e.issues), e.total
    reading = FileReading.of(draft, reading_basis(gold, limits), predictions, (issues, total), grounding_format)
    return reading, draft
