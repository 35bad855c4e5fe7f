"""Run a command with a bounded CPU hog beside it: ``python scripts/with_cpu_hog.py -- CMD ...``.

``make test-busy`` runs the suite this way before a push: CI shares its 2 cores with whatever
else the runner does, and a test that passes only on an idle machine is a flaky test. The hog is
``--hogs`` processes (default 1, a whole core of a 2-core runner) that spin in a busy loop at
normal priority until the command ends, and never past ``--max-seconds`` (default 2 h). Exits
with the command's exit code.
"""

from __future__ import annotations

import argparse
import multiprocessing
import subprocess
import sys
import time


def spin(until: float) -> None:
    """Busy-loop until ``until`` (time.monotonic()): one core's worth of CPU, no memory."""
    x = 0
    while time.monotonic() < until:
        for _ in range(100_000):
            x += 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hogs", type=int, default=1, help="busy processes beside the command (default 1)")
    parser.add_argument("--max-seconds", type=float, default=7200, help="the hog stops by then in any case")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (python scripts/with_cpu_hog.py -- CMD ...)")
    until = time.monotonic() + args.max_seconds
    hogs = [multiprocessing.Process(target=spin, args=(until,), daemon=True) for _ in range(args.hogs)]
    for hog in hogs:
        hog.start()
    print(f"with_cpu_hog: {args.hogs} busy process(es) {[h.pid for h in hogs]} beside: {' '.join(command)}", flush=True)
    try:
        return subprocess.call(command)
    finally:
        for hog in hogs:
            hog.terminate()
            hog.join(10)


if __name__ == "__main__":
    sys.exit(main())
