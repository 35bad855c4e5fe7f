"""A reader: the boards served from the published results dataset alone (docs/topology.md).

:class:`PublishedLeaderboard` offers the read methods the board page and the About tab call on
:class:`leaderboard.service.Leaderboard` (``board``, ``table``, ``fingerprint``, ``gold_info``,
``last_updated``, ``group_sizes``, ``public_questions``, ``refresh``), built from
the files :mod:`leaderboard.publish` writes: each benchmark's public table
(``data/{benchmark}.parquet``), its snapshot (``data/{benchmark}.board.json``: interval bounds
and submission times the table cannot carry exactly) and question list. It holds no catalog, no lock, no gold and
no token for the private repos: it is given only where the results are (a local folder, or a
Hub dataset repo), so any number of readers can run beside one writer.

``refresh`` first asks a cheap question, "did the results move?" (the Hub repo's head commit,
or the sizes and times of the local files), and downloads the small snapshots only when they
did: a few small files, about 1 MB for a board of 1,000 rows (perf/bench_table.py --publish). Files that
cannot be read leave the board as it was (and are logged).
"""

from __future__ import annotations

import hashlib
import io
import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pandas as pd

from leaderboard.config import Settings
from leaderboard.publish import BoardSnapshot, board_rows
from leaderboard.table import Board, baseline_rows
from scoring import BENCHMARKS
from scoring.benchmarks import load_plugins
from store import layout
from store.golds import GoldInfo

log = logging.getLogger(__name__)
HUB_TIMEOUT = 10.0  # seconds per request to the Hub: a stuck request must not stall the refresh job


class ResultsSource(Protocol):
    """Where the published files are: a cheap head, then the files at that head."""

    where: str

    def head(self) -> str:
        """Changes whenever a published file may have changed."""

    def read(self, path: str, head: str) -> bytes | None:
        """The file at ``head``; None if it is not published (yet)."""


class FolderSource:
    """The results folder of a local writer (``LocalStore``'s ``results``, written atomically)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.where = str(self.folder)

    def head(self) -> str:
        parts = []
        for benchmark in BENCHMARKS:
            for path in published_files(benchmark):
                try:
                    stat = (self.folder / path).stat()
                except FileNotFoundError:
                    parts.append(f"{path}:-")
                    continue
                parts.append(f"{path}:{stat.st_mtime_ns}:{stat.st_size}")
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    def read(self, path: str, head: str) -> bytes | None:
        try:
            return (self.folder / path).read_bytes()
        except FileNotFoundError:
            return None


class HubSource:
    """A public dataset repo on the Hub: its head commit, then single GETs at that commit."""

    def __init__(self, repo_id: str, endpoint: str | None = None, token: str | None = None) -> None:
        from huggingface_hub import HfApi  # only a Hub reader needs the client

        self.repo_id = repo_id
        self.api = HfApi(endpoint=endpoint, token=token)
        self.where = f"the Hub dataset {repo_id}"

    def head(self) -> str:
        return self.api.repo_info(self.repo_id, repo_type="dataset", timeout=HUB_TIMEOUT).sha or ""

    def read(self, path: str, head: str) -> bytes | None:
        from huggingface_hub import hf_hub_url
        from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

        url = hf_hub_url(self.repo_id, path, repo_type="dataset", revision=head, endpoint=self.api.endpoint)
        headers = build_hf_headers(token=self.api.token)
        response = get_session().get(url, headers=headers, follow_redirects=True, timeout=HUB_TIMEOUT)
        if response.status_code == 404:
            return None
        hf_raise_for_status(response)
        return response.content


def published_files(benchmark: str) -> tuple[str, str, str]:
    """What a reader reads of a benchmark: the table (Parquet), its snapshot, the question list."""
    return layout.public_table(benchmark, "parquet"), layout.public_board(benchmark), layout.public_questions(benchmark)


def source_of(settings: Settings) -> ResultsSource:
    """The Hub results repo when one is configured, else the local published folder."""
    repo = settings.hub_repos.get("results")
    if repo:
        return HubSource(repo, settings.hub_endpoint, settings.hub_token)
    return FolderSource(settings.published_folder)


@dataclass(frozen=True)
class PublishedBoard:
    """One benchmark as last read: the board, its gold's public facts, and a fingerprint of the bytes."""

    board: Board
    gold: GoldInfo | None
    group_sizes: Mapping[str, Mapping[str, int]]
    fingerprint: str
    questions: bytes = b""

    @classmethod
    def unpublished(cls, benchmark: str, questions: bytes = b"") -> PublishedBoard:
        """No board published yet: the papers' rows, as a writer without a gold shows."""
        return cls(Board(benchmark, baseline_rows(benchmark)), None, {}, _digest(b"", questions), questions)


class PublishedLeaderboard:
    """The read side of the leaderboard from published files (module doc). Thread-safe."""

    def __init__(self, source: ResultsSource, plugins: tuple[str, ...] = ()) -> None:
        load_plugins(plugins)  # a plugin benchmark's published board is served too
        self.source = source
        self.settings: Settings | None = None  # the reader's own configuration (its contact line), set by ``open``
        self._head: str | None = None
        self._boards = {b: PublishedBoard.unpublished(b) for b in BENCHMARKS}
        self._lock = threading.Lock()

    @classmethod
    def open(cls, settings: Settings) -> PublishedLeaderboard:
        """The reader of ``settings``' results location, read once."""
        reader = cls(source_of(settings), settings.plugins)
        reader.settings = settings
        reader.refresh()
        return reader

    # ---- keeping up with the writer ----
    def refresh(self) -> bool:
        """Reread the published boards if the results moved; returns whether a board changed.
        A source that does not answer keeps what is shown (logged)."""
        try:
            head = self.source.head()
            if head == self._head:
                return False
            read = {b: self._read(b, head) for b in BENCHMARKS}
        except Exception:  # noqa: BLE001 - the Hub being down must not stop the boards from serving
            log.warning(
                "cannot read the published results from %s; serving what was read", self.source.where, exc_info=True
            )
            return False
        with self._lock:
            changed = {b for b, p in read.items() if p is not None and p.fingerprint != self._boards[b].fingerprint}
            self._boards.update({b: read[b] for b in changed})
            self._head = head
        if changed:
            log.info("published boards changed at %s: %s", head[:12], ", ".join(sorted(changed)))
        return bool(changed)

    def _read(self, benchmark: str, head: str) -> PublishedBoard | None:
        """The benchmark's board at ``head``: its table and snapshot; None (keep the old one) if
        they cannot be read or do not match (a local writer between its two renames: the next
        head differs, so the next refresh reads them again)."""
        table_path, snapshot_path, questions_path = published_files(benchmark)
        snapshot_bytes = self.source.read(snapshot_path, head)
        questions = self.source.read(questions_path, head) or b""
        if snapshot_bytes is None:
            return PublishedBoard.unpublished(benchmark, questions)
        table_bytes = self.source.read(table_path, head) or b""
        try:
            snapshot = BoardSnapshot.from_bytes(snapshot_bytes, f"{self.source.where}/{snapshot_path}")
            rows = board_rows(benchmark, pd.read_parquet(io.BytesIO(table_bytes)), snapshot)
        except Exception:  # noqa: BLE001 - whatever is wrong with the files, the board keeps serving
            log.error("cannot read the published %s board; keeping it as it was", benchmark, exc_info=True)
            return None
        fingerprint = _digest(table_bytes, snapshot_bytes, questions)
        return PublishedBoard(Board(benchmark, rows), snapshot.gold, snapshot.group_sizes, fingerprint, questions)

    def _published(self, benchmark: str) -> PublishedBoard:
        with self._lock:
            return self._boards[benchmark]

    # ---- what the board, model and About tabs read (as on leaderboard.service.Leaderboard) ----
    def board(self, benchmark: str) -> Board:
        return self._published(benchmark).board

    def table(self, benchmark: str, view: str = "overall", keep=None):
        """A view of the rows ``keep`` accepts (all by default), ranked among themselves."""
        return self.board(benchmark).view(view, keep)

    def fingerprint(self, benchmark: str) -> str:
        """Changes whenever the published board (or question list) of ``benchmark`` does."""
        return self._published(benchmark).fingerprint

    def gold_info(self, benchmark: str) -> GoldInfo | None:
        """The gold's public facts: its short version, when it was added, how many questions."""
        return self._published(benchmark).gold

    def group_sizes(self, benchmark: str) -> dict[str, dict[str, int]]:
        return {g: dict(labels) for g, labels in self._published(benchmark).group_sizes.items()}

    def last_updated(self, benchmark: str) -> str:
        """When the board last changed: its newest row or its gold, ISO 8601 ("" for neither)."""
        published = self._published(benchmark)
        times = [r.submitted_at for r in published.board.rows if r.submitted_at]
        times += [published.gold.added_at] if published.gold else []
        return max(times, default="")

    def public_questions(self, benchmark: str) -> bytes:
        return self._published(benchmark).questions


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()[:16]
