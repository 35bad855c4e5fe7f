"""The web process's CPU per validate-only call of a large polygon file, one call at a time.

What a validate-only flood still costs the board page once the upload door holds the surplus
(docs/benchmarks.md, "The doors hold a flood"): each check the account is entitled to arrives
whole through Gradio's upload route in the web process. The app runs as a child process on a
fresh demo data folder with the quotas raised (as perf/load_test.py's default); its own CPU
(user + system, from /proc, its scoring worker not counted) is read around ``--calls`` calls.

    .venv/bin/python perf/upload_cost.py                      # 27 MB, 8 calls
    .venv/bin/python perf/upload_cost.py --mb 5 --calls 4 --app-root /tmp/old
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from perf.load_test import RAISED_QUOTAS, heavy_polygon_file, submit_client  # noqa: E402
from tests.support import (
    app_server,  # noqa: E402
    demo,  # noqa: E402
)
from tests.support.app_server import AppServer  # noqa: E402


def own_cpu(pid: int) -> float:
    """CPU seconds (user + system) of one process, its children not counted."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def validate_only(client, path: Path) -> str:
    import gradio_client

    answer = client.predict(
        "scb", gradio_client.handle_file(str(path)), "cost", "cost-team", "open", "xyxy", "", "", "",
        validate_only=True, api_name="/submit",
    )  # fmt: skip
    return str(answer.get("status"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=27.0, help="size of the polygon file")
    parser.add_argument("--calls", type=int, default=8)
    parser.add_argument("--app-root", type=Path, default=None, help="another checkout's app.py")
    args = parser.parse_args(argv)
    if args.app_root:
        app_server.ROOT = args.app_root.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = heavy_polygon_file(folder, {"scb": demo.scb_gold(0)}, args.mb)
        app = AppServer(folder / "data", **RAISED_QUOTAS).start()
        try:
            client = submit_client(app.url)
            validate_only(client, path)  # the first call warms the worker up
            cpu, wall = own_cpu(app.pid), time.perf_counter()
            statuses = [validate_only(client, path) for _ in range(args.calls)]
            cpu, wall = own_cpu(app.pid) - cpu, time.perf_counter() - wall
            client.close()
        finally:
            app.stop()
    size = path.stat().st_size / 2**20 if path.exists() else args.mb
    print(f"| validate-only calls of a {size:.0f} MB polygon file, one at a time | {args.calls} |")
    print(f"| web process CPU per call (its scoring worker not counted) | {cpu / args.calls * 1000:.0f} ms |")
    print(f"| wall time per call | {wall / args.calls * 1000:.0f} ms |")
    print(f"| answers | {', '.join(sorted(set(statuses)))} |")
    return 0 if set(statuses) == {"valid"} else 1


if __name__ == "__main__":
    raise SystemExit(main())
