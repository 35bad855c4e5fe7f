"""``/eval_results/{benchmark}/{row_id}.yaml``: a public row's ``.eval_results`` file, the model page's link.

What anyone may download: the entries :meth:`leaderboard.visibility.Visibility.eval_results` gives a
visitor (none for a row whose figures or names are not out; the answer then says only that there
is no such row). Each file is made once per board state: cached by the benchmark's fingerprint and
the row id, in a bounded cache, so a flood of requests reads the cache.
"""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from leaderboard.service import EvalResults, Leaderboard
from scoring.benchmarks import BENCHMARKS
from ui.origin import PublicOrigin

PATH = "/eval_results/{benchmark}/{row_id}.yaml"
CACHED = 1024  # rows' files kept (the newest asked for)


class EvalResultsFiles:
    """The files by (fingerprint, benchmark, row id), made once each (module doc)."""

    def __init__(self, leaderboard: Leaderboard, origin: PublicOrigin | None = None, cached: int = CACHED) -> None:
        self.leaderboard, self.origin, self.cached = leaderboard, origin, cached
        self._files: OrderedDict[tuple[str, str, str, str], EvalResults] = OrderedDict()
        self._lock = Lock()

    def root(self, request: Request) -> str:
        """The address ``source.url`` names: the one the request reached the app at, when it is one
        of the app's own (:meth:`ui.origin.PublicOrigin.root_for`), else the configured one."""
        if self.origin is None:
            return self.leaderboard.settings.ui.served_root()
        return self.origin.root_for(request.url.scheme, request.headers.get("host"))

    def get(self, benchmark: str, row_id: str, root: str | None = None) -> EvalResults:
        root = root or self.leaderboard.settings.ui.served_root()
        key = (self.leaderboard.fingerprint(benchmark), benchmark, row_id, root)  # a root is one of ours: few
        with self._lock:
            if key in self._files:
                self._files.move_to_end(key)
                return self._files[key]
        made = self.leaderboard.visibility.eval_results(
            benchmark, row_id, root=root
        )  # a visitor's: the disclosure rule's public view
        with self._lock:
            self._files[key] = made
            while len(self._files) > self.cached:
                self._files.popitem(last=False)
        return made

    def routes(self) -> list[Route]:
        def answer(request: Request) -> Response:
            benchmark, row_id = request.path_params["benchmark"], request.path_params["row_id"]
            if benchmark not in BENCHMARKS or not row_id.isalnum() or len(row_id) > 64:
                return Response("No such row.", status_code=404)
            if BENCHMARKS[benchmark].hub is None:
                why = f"{BENCHMARKS[benchmark].name} has no Hub dataset, so its rows have no .eval_results file."
                return Response(why, status_code=404, media_type="text/plain; charset=utf-8")
            made = self.get(benchmark, row_id, self.root(request))
            if made.refusal:
                return Response(made.refusal, status_code=404, media_type="text/plain; charset=utf-8")
            headers = {"content-disposition": f'attachment; filename="{made.file_name}"', "cache-control": "no-cache"}
            return Response(made.text, media_type="application/yaml; charset=utf-8", headers=headers)

        return [Route(PATH, answer, methods=["GET"])]
