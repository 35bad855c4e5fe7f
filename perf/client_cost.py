"""Client CPU per page fetched, ``httpx.AsyncClient`` against aiohttp: why the load test's
browsing visitors (``perf/load_browsers.py``) use aiohttp. The app serves its board page; N
visitors, each its own client, fetch it M times, bodies left as sent (gzip); CPU is this
process's, both clients in turn, twice.

    .venv/bin/python perf/client_cost.py                  # 100 visitors x 20 pages
    .venv/bin/python perf/client_cost.py --app-root /tmp/old
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from perf.load_browsers import open_session  # noqa: E402
from tests.support import app_server  # noqa: E402
from tests.support.app_server import AppServer  # noqa: E402


async def with_httpx(url: str, visitors: int, pages: int) -> None:
    async def visitor() -> None:
        # plain HTTP: verify=False keeps httpx from loading the CA bundle per client (~28 ms)
        async with httpx.AsyncClient(base_url=url, timeout=60, verify=False) as client:
            for _ in range(pages):
                async with client.stream("GET", "/") as r:
                    body = b"".join([chunk async for chunk in r.aiter_raw()])
                    if r.status_code != 200 or not body:
                        raise RuntimeError(f"httpx: HTTP {r.status_code}")

    await asyncio.gather(*(visitor() for _ in range(visitors)))


async def with_aiohttp(url: str, visitors: int, pages: int) -> None:
    async def visitor() -> None:
        async with open_session(url) as http:
            for _ in range(pages):
                async with http.get("/") as r:
                    body = await r.read()
                    if r.status != 200 or not body:
                        raise RuntimeError(f"aiohttp: HTTP {r.status}")

    await asyncio.gather(*(visitor() for _ in range(visitors)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visitors", type=int, default=100)
    parser.add_argument("--pages", type=int, default=20, help="pages per visitor")
    parser.add_argument("--app-root", type=Path, help="run app.py of this checkout (e.g. an old commit)")
    args = parser.parse_args(argv)
    if args.app_root:
        app_server.ROOT = args.app_root.resolve()
    print("| client | pages | client CPU per page ms | wall s |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="client-cost-") as tmp:
        app = AppServer(Path(tmp) / "data").start()
        try:
            for name, fetch in [("httpx.AsyncClient", with_httpx), ("aiohttp", with_aiohttp)] * 2:
                cpu, wall = time.process_time(), time.perf_counter()
                asyncio.run(fetch(app.url, args.visitors, args.pages))
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                n = args.visitors * args.pages
                print(f"| {name} {aiohttp.__version__ if name == 'aiohttp' else httpx.__version__} | {n} | "
                      f"{1000 * cpu / n:.2f} | {wall:.1f} |")  # fmt: skip
        finally:
            app.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
