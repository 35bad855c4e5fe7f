"""Seconds and bytes read to queue n writes in the Hub store's outbox while the Hub is away (each
write one entry, ``store.hub.Outbox.add``), for a few n. Old and new: point ``--root`` at each
checkout (``git worktree add /tmp/old COMMIT``); ``rchar`` is the bytes the process had from
``read()`` calls (``/proc/self/io``).

    .venv/bin/python perf/outbox_cost.py
    .venv/bin/python perf/outbox_cost.py --root /tmp/old
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--sizes", default="100,400,1600")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.support.proc_io import bytes_read  # this checkout's, whichever --root is measured

    sys.path.insert(0, str(args.root))
    from store.hub import Outbox

    for n in (int(v) for v in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            outbox = Outbox(Path(tmp) / "outbox")
            read_before, started = bytes_read(), time.perf_counter()
            for i in range(n):
                outbox.add("results", [f"results/file-{i}.json"], f"write {i}", overwrite=False)
            seconds, read = time.perf_counter() - started, bytes_read() - read_before
            assert len(outbox.entries()) == n
        print(f"{n} writes queued: {seconds:.2f} s, {read / 1e6:.1f} MB read ({args.root})")


if __name__ == "__main__":
    main()
