"""A local folder as a store: ``root/{gold,submissions,results}/<path>``.

Writes are durable and atomic without locks, so many threads and processes may write at once:
each file is written to a temp file in its destination folder, fsynced, then published with
``os.link`` (create-only: fails atomically if the path exists) or ``os.replace`` (overwrite),
and the folder is fsynced so the new name survives a crash.

A write of several files stages every temp file before it publishes any, so a full disk (the
usual failure: the bytes do not fit) leaves none of them; a failure while publishing takes back
the create-only files this write published. Either way no temp file stays, and the caller gets
:class:`StoreFull` (an ``Unavailable``: nothing was stored, try again), not a bare OSError.
"""

from __future__ import annotations

import contextlib
import errno
import os
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path

from .base import AlreadyExists, NotFound, StoreHealth, Unavailable, check_path, check_repo

TMP_PREFIX = ".tmp-"  # never a valid path part (check_path wants a leading letter or digit)
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


class StoreFull(Unavailable):
    """The disk (or a quota) cannot take the write: nothing of it was stored."""


def _unavailable(err: OSError, what: str) -> Unavailable:
    kind = StoreFull if err.errno in _NO_SPACE else Unavailable
    return kind(f"could not write {what}: {err.strerror or err}")


def fsync_dir(folder: Path) -> None:
    """Persist the folder entry of a newly linked/renamed file."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_temp(folder: Path, data: bytes) -> Path:
    """Write ``data`` to a fresh fsynced temp file inside ``folder`` (same filesystem as dst)."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f"{TMP_PREFIX}{os.getpid()}-{uuid.uuid4().hex}"
    try:
        with open(tmp, "xb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:  # a full disk, mostly: no half-written temp file stays
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    return tmp


def atomic_write(dst: Path, data: bytes, *, overwrite: bool) -> bool:
    """Publish ``data`` at ``dst`` whole or not at all; return False if it already held them.

    Raises AlreadyExists when ``overwrite`` is False and ``dst`` holds other bytes.
    """
    return publish(write_temp(dst.parent, data), dst, data, overwrite=overwrite)


def publish(tmp: Path, dst: Path, data: bytes, *, overwrite: bool) -> bool:
    """Move the staged ``tmp`` (holding ``data``) to ``dst``; the temp file is gone after."""
    try:
        if overwrite:
            os.replace(tmp, dst)
        else:
            try:
                os.link(tmp, dst)
            except FileExistsError:
                if dst.read_bytes() == data:
                    return False
                raise AlreadyExists(str(dst)) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    fsync_dir(dst.parent)
    return True


class LocalStore:
    """The store contract over a local folder (also the HubStore's working copy).

    Every write is durable when ``put`` returns (fsynced), and the folder is the whole truth,
    so it is always ``ready`` and ``consistent``.
    """

    ready = True
    consistent = True

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        for repo in ("gold", "submissions", "results"):
            (self.root / repo).mkdir(parents=True, exist_ok=True)

    def file(self, repo: str, path: str) -> Path:
        """Where ``repo/path`` lives on disk (after checking both names)."""
        return self.root / check_repo(repo) / check_path(path)

    def read(self, repo: str, path: str) -> bytes:
        try:
            return self.file(repo, path).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise NotFound(f"{repo}/{path}") from None

    def exists(self, repo: str, path: str) -> bool:
        return self.file(repo, path).is_file()

    def list(self, repo: str, prefix: str = "") -> list[str]:
        base = self.root / check_repo(repo)
        prefix = prefix.strip("/")
        start = base / check_path(prefix) if prefix else base
        if start.is_file():
            return [prefix]
        return sorted(_walk(base, start))

    def put(
        self, repo: str, files: Mapping[str, bytes], message: str, *, overwrite: bool = False, durable: bool = False
    ) -> None:
        self.write(repo, files, overwrite=overwrite)

    def write(self, repo: str, files: Mapping[str, bytes], *, overwrite: bool = False) -> list[str]:
        """Like ``put``; return the paths whose content actually changed (for the Hub outbox)."""
        targets = {path: self.file(repo, path) for path in files}
        if not overwrite:
            self.check_create_only(repo, files)
        staged: dict[str, Path] = {}
        changed: list[str] = []
        try:
            for path, dst in targets.items():  # every byte on disk before any name is published
                staged[path] = write_temp(dst.parent, files[path])
            for path, dst in targets.items():
                if publish(staged.pop(path), dst, files[path], overwrite=overwrite):
                    changed.append(path)
        except BaseException as err:
            for tmp in staged.values():
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
            if not overwrite:  # take back what this write published: all of it or nothing
                for path in changed:
                    with contextlib.suppress(FileNotFoundError):
                        targets[path].unlink()
            if isinstance(err, OSError):
                raise _unavailable(err, f"{repo}/{next(iter(files), '')}") from err
            raise
        return changed

    def check_create_only(self, repo: str, files: Mapping[str, bytes]) -> None:
        """Raise AlreadyExists before writing anything if a path holds other bytes."""
        for path, data in files.items():
            dst = self.file(repo, path)
            if dst.is_file() and dst.read_bytes() != data:
                raise AlreadyExists(f"{repo}/{path} already holds other content")

    def sync(self) -> None:
        """Nothing to bring in: every writer writes to this very folder."""

    def pending(self) -> int:
        return 0

    def push_pending(self) -> int:
        return 0

    def describe(self) -> str:
        return f"local folder {self.root}"

    def health(self) -> StoreHealth:
        return StoreHealth(self.describe(), True, True, None, 0, (), None, ())


def _walk(base: Path, start: Path) -> Iterator[str]:
    """Relative POSIX paths of the files under ``start``, skipping temp files."""
    for folder, dirs, names in os.walk(start):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        rel = Path(folder).relative_to(base)
        for name in names:
            if not name.startswith("."):
                yield (rel / name).as_posix()
