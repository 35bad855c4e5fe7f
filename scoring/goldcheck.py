"""Checks of a new gold version against its declaration and against the gold it replaces.

:func:`check_labels` refuses a gold whose questions carry a group label the benchmark does not
declare (an SCB country outside the seven): such a gold would silently add a column to every
view. :func:`compare` says what a new version changes (questions added or removed, answers
changed, group sizes): the maintainer confirms a change of the question set or of a group's size
before it can replace the current gold. Both are gold facts, for maintainers only.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from scoring.benchmarks.base import Benchmark
from scoring.errors import GoldError
from scoring.gold import Gold


def check_labels(benchmark: Benchmark, gold: Gold) -> None:
    """Raise GoldError listing every label of every grouping that the declaration does not know."""
    problems = []
    for grouping in benchmark.groupings:
        if grouping.name not in gold.groups:
            problems.append(f"grouping {grouping.name!r} is missing")
            continue
        labels, codes = gold.groups[grouping.name]
        sizes = np.bincount(codes, minlength=len(labels))
        unknown = [f"{label!r} ({sizes[i]} questions)" for i, label in enumerate(labels) if label not in grouping.order]
        if unknown:
            problems.append(
                f"unknown {grouping.name} {', '.join(unknown)}; known: {', '.join(map(repr, grouping.order))}"
            )
    if problems:
        raise GoldError(f"{benchmark.id} gold does not match its declaration: " + "; ".join(problems))


@dataclass(frozen=True)
class GroupSize:
    """How many questions one label of one grouping has before and after a gold change."""

    grouping: str
    label: str
    before: int
    after: int


@dataclass(frozen=True)
class GoldChanges:
    """What a new gold version changes against the current one (counts only)."""

    questions_before: int
    questions_after: int
    added: int
    removed: int
    answers_changed: int
    group_sizes: tuple[GroupSize, ...] = ()
    masks_changed: int | None = None  # grounding benchmarks: kept questions whose gold region changed

    @property
    def needs_confirmation(self) -> bool:
        """A different question set or group sizes change what every figure is a share of."""
        return bool(self.added or self.removed or self.group_sizes)

    def lines(self) -> list[str]:
        """The changes in words, one line each (maintainers only)."""
        out = [
            f"questions: {self.questions_before:,} -> {self.questions_after:,} "
            f"({self.added:,} added, {self.removed:,} removed)",
            f"answers changed on kept questions: {self.answers_changed:,}",
        ]
        if self.masks_changed is not None:
            out.append(f"masks changed on kept questions: {self.masks_changed:,}")
        out += [f"{g.grouping} {g.label!r}: {g.before:,} -> {g.after:,} questions" for g in self.group_sizes]
        return out


class RenumberedGold(GoldError):
    """A new gold whose question ids would name other questions than they name now (positional
    ids, K-Viscuit's: rows deleted or moved above the end). Refused whatever is confirmed: every
    stored file would be scored against the wrong questions."""


def _identities(gold: Gold, field: str) -> list[tuple]:
    """Each question's own identity, key aside: the declared echo field (K-Viscuit's ``id_``, which
    repeats) with the option texts where the gold has them."""
    echo = gold.extra[field]
    options = gold.option_texts or [()] * gold.size
    return [(str(echo[i]), tuple(options[i])) for i in range(gold.size)]


def check_keys_kept(old: Gold, new: Gold) -> None:
    """RenumberedGold when a key kept by ``new`` now holds a question that ``old`` had under another
    key (its identity moved), for benchmarks whose key is a position (they declare ``key_echo``:
    the field that says which question a row is). Only public facts of the questions are compared."""
    from scoring.benchmarks import BENCHMARKS  # the registry imports modules that import this one

    bench = BENCHMARKS.get(old.benchmark)
    field = bench.key_echo if bench is not None else ""
    if not field or field not in old.extra or field not in new.extra:
        return
    before, after = _identities(old, field), _identities(new, field)
    first_key: dict[tuple, object] = {}
    for key, identity in zip(old.keys, before, strict=True):
        first_key.setdefault(identity, key)
    moved = [
        (key, first_key[identity])
        for key, identity in zip(new.keys, after, strict=True)
        if key in old.index and before[old.index[key]] != identity and identity in first_key
    ]
    if not moved:
        return
    key, was = moved[0]
    shifts = Counter(int(j) - int(k) for k, j in moved if isinstance(k, int) and isinstance(j, int))
    shift = shifts.most_common(1)[0][0] if shifts else 0
    by = f" ({abs(shift)} rows {'on' if shift > 0 else 'back'}, on most of them)" if shift else ""
    raise RenumberedGold(
        f"{old.benchmark}: this gold renumbers its questions: question_id is the row's position, and "
        f"{len(moved):,} kept question_ids would name another question{by}: question_id {key} is now the "
        f"question that was question_id {was} of the current gold. Every stored file would be scored against "
        "the wrong questions, so nothing was stored. Keep every row where it is: correct an answer in place, "
        "and remove questions only from the end of the file."
    )


def compare(old: Gold, new: Gold) -> GoldChanges:
    """What replacing ``old`` by ``new`` (same benchmark) changes, by question key; RenumberedGold
    when positional keys would move (:func:`check_keys_kept`)."""
    check_keys_kept(old, new)
    kept = [k for k in new.keys if k in old.index]
    changed = sum(int(old.answers[old.index[k]] != new.answers[new.index[k]]) for k in kept)
    return GoldChanges(
        questions_before=old.size,
        questions_after=new.size,
        added=new.size - len(kept),
        removed=old.size - len(kept),
        answers_changed=changed,
        group_sizes=tuple(_group_sizes(old, new)),
        masks_changed=_masks_changed(old, new, kept),
    )


def _masks_changed(old: Gold, new: Gold, kept: list) -> int | None:
    """Kept questions whose gold region differs (size or any run), or None without masks."""
    a, b = old.extra.get("masks"), new.extra.get("masks")
    if a is None or b is None:
        return None
    return sum(_mask_runs(a, old.index[k]) != _mask_runs(b, new.index[k]) for k in kept)


def _mask_runs(table, i: int) -> tuple:
    """The mask's region as comparable bytes (scoring.geometry.MaskTable.row_key)."""
    return table.row_key(i)


def _sizes(gold: Gold, grouping: str) -> dict[str, int]:
    labels, codes = gold.groups.get(grouping, ([], np.zeros(0, dtype=np.int32)))
    counts = np.bincount(codes, minlength=len(labels))
    return {label: int(counts[i]) for i, label in enumerate(labels)}


def _group_sizes(old: Gold, new: Gold) -> list[GroupSize]:
    out = []
    for grouping in dict.fromkeys([*old.groups, *new.groups]):
        before, after = _sizes(old, grouping), _sizes(new, grouping)
        for label in dict.fromkeys([*before, *after]):
            if before.get(label, 0) != after.get(label, 0):
                out.append(GroupSize(grouping, label, before.get(label, 0), after.get(label, 0)))
    return out
