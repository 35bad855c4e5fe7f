"""The public errata of a benchmark: every gold correction made (when, which questions, how many),
built once per gold change and published beside the tables (``errata/{benchmark}.json`` and the
page ``errata/{benchmark}.html``). Only corrections made: nothing of the item analysis, no
suspicion, no gold value (which question's answer or region changed, never to what).

The history starts with the first correction this leaderboard records: each time the current gold
is not the one the errata were last built for, its change from the gold before it is added.
"""

from __future__ import annotations

import html

from scoring import Gold, get_benchmark
from store import layout
from store.base import NotFound, Store
from store.golds import GoldRegistry
from store.records import CorruptRecord, Errata, Erratum


def changed_keys(old: Gold, new: Gold) -> tuple[tuple[str, ...], tuple[str, ...], int, int]:
    """The keys kept whose answer changed, those whose region changed, and how many were added and removed."""
    kept = [k for k in new.keys if k in old.index]
    answers = tuple(str(k) for k in kept if old.answers[old.index[k]] != new.answers[new.index[k]])
    a, b = old.extra.get("masks"), new.extra.get("masks")
    masks = ()
    if a is not None and b is not None:
        masks = tuple(str(k) for k in kept if a.row_key(old.index[k]) != b.row_key(new.index[k]))
    return answers, masks, new.size - len(kept), old.size - len(kept)


def page(errata: Errata) -> bytes:
    """The errata as a small HTML page (built once, served as a file)."""
    name = html.escape(get_benchmark(errata.benchmark).name)
    rows = []
    for e in reversed(errata.entries):
        changed = [f"{len(e.answers_changed)} answer(s)"] + (
            [f"{len(e.masks_changed)} region(s)"] if e.masks_changed else []
        )
        keys = ", ".join(html.escape(k) for k in (*e.answers_changed, *e.masks_changed)) or "none"
        rows.append(
            f"<tr><td>{html.escape(e.at[:10])}</td><td><code>{html.escape(e.version)}</code></td>"
            f"<td>{', '.join(changed)}; {e.added} added, {e.removed} removed</td><td>{keys}</td></tr>"
        )
    table = (
        "<table><caption>Corrections, newest first</caption><thead><tr><th scope='col'>Date</th>"
        "<th scope='col'>Gold version</th><th scope='col'>What changed</th><th scope='col'>Questions</th></tr>"
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
        if rows
        else "<p>No correction has been made to this benchmark's answers or regions.</p>"
    )
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{name}: errata</title>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        "<style>body{font-family:system-ui,sans-serif;margin:1rem auto;max-width:60rem;padding:0 1rem}"
        "td,th{padding:.25rem .75rem;text-align:left;vertical-align:top}caption{text-align:left}</style>"
        "</head><body><main>"
        f"<p><a href='../'>← The board</a></p><h1>{name}: errata</h1><p>Every correction made to the hidden "
        "answers or regions, dated by when the corrected gold was loaded; the board showed it once every "
        "submission was rescored on it. Which questions changed is listed, never to what.</p>"
        f"{table}</main></body></html>"
    ).encode()


class ErrataPages:
    """Builds and reads the errata (module doc)."""

    def __init__(self, store: Store, golds: GoldRegistry) -> None:
        self.store, self.golds = store, golds

    def read(self, benchmark: str) -> Errata | None:
        path = layout.errata(benchmark, "json")
        try:
            return Errata.from_bytes(self.store.read("results", path), path)
        except (NotFound, CorruptRecord):
            return None

    def update(self, benchmark: str) -> bool:
        """Rebuild after a gold change (a no-op otherwise); True when it wrote."""
        info = self.golds.info(benchmark)
        if info is None:
            return False
        kept = self.read(benchmark)
        if kept is not None and kept.current == layout.gold_key(info.version):
            return False
        entries = kept.entries if kept is not None else ()
        old = self.golds.version(benchmark, info.previous_version) if info.previous_version else None
        if old is not None:
            answers, masks, added, removed = changed_keys(old, self.golds.compiled(info))
            key = layout.gold_key(info.version)
            entries = (*entries, Erratum(key, info.added_at, info.questions, answers, masks, added, removed))
        errata = Errata(benchmark, layout.gold_key(info.version), entries)
        files = {layout.errata(benchmark, "json"): errata.to_bytes(), layout.errata(benchmark, "html"): page(errata)}
        self.store.put("results", files, f"Errata of {benchmark}", overwrite=True)
        return True

    def html(self, benchmark: str) -> bytes | None:
        try:
            return self.store.read("results", layout.errata(benchmark, "html"))
        except NotFound:
            return None
