"""The predictions file as the runner writes it: one JSON line per finished question, appended
and flushed as each finishes, so a crash loses at most the line being written and ``--resume``
picks up where the run stopped."""

from __future__ import annotations

import json
import os
from pathlib import Path


def finished(path: Path, key: str = "question_id") -> dict[str, dict]:
    """The lines already written, by their ``key`` field (as text); a cut-off last line is dropped
    from the file, so the resumed run appends to whole lines only."""
    if not path.exists():
        return {}
    data = path.read_bytes()
    keep = data if data.endswith(b"\n") or not data else data[: data.rfind(b"\n") + 1]
    if len(keep) != len(data):
        with path.open("r+b") as f:
            f.truncate(len(keep))
    done = {}
    for line in keep.splitlines():
        if line.strip():
            record = json.loads(line)
            done[str(record[key])] = record
    return done


class LineWriter:
    """Appends one record a line and makes it durable before the next one is written."""

    def __init__(self, path: Path, fresh: bool) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("w" if fresh else "a", encoding="utf-8")

    def write(self, record: dict) -> None:
        self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()
