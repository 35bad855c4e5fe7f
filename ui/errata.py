"""``/errata/{benchmark}``: the public errata page, every gold correction made (leaderboard.errata).

The page is built once per gold change by the background job (leaderboard.items.ItemAnalyses.catch_up)
and stored with the public results; a request reads those bytes, kept in memory per benchmark and
gold version, so a flood of requests builds nothing."""

from __future__ import annotations

from threading import Lock

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from leaderboard.service import Leaderboard
from scoring.benchmarks import BENCHMARKS

NOT_YET = "The errata of this benchmark are being built: try again in a minute."


class ErrataFiles:
    def __init__(self, leaderboard: Leaderboard) -> None:
        self.leaderboard = leaderboard
        self._pages: dict[str, tuple[str, bytes]] = {}
        self._lock = Lock()

    def page(self, benchmark: str) -> bytes | None:
        info = self.leaderboard.golds.info(benchmark)
        version = info.version if info else ""
        with self._lock:
            kept = self._pages.get(benchmark)
        if kept is not None and kept[0] == version:
            return kept[1]
        errata = self.leaderboard.items.errata
        record = errata.read(benchmark)
        if info is None or record is None or not version.startswith(record.current):
            return None  # not built for this gold yet: the background job builds it
        body = errata.html(benchmark)
        if body is not None:
            with self._lock:
                self._pages[benchmark] = (version, body)
        return body

    def routes(self) -> list[Route]:
        def answer(request: Request) -> Response:
            benchmark = request.path_params["benchmark"]
            if benchmark not in BENCHMARKS:
                return Response("No such benchmark.", status_code=404)
            body = self.page(benchmark)
            if body is None:
                return Response(NOT_YET, status_code=503, headers={"retry-after": "60"})
            return Response(body, media_type="text/html; charset=utf-8", headers={"cache-control": "no-cache"})

        return [Route("/errata/{benchmark}", answer, methods=["GET", "HEAD"])]
