"""What a team runs its model on, one link from the board and from Submit: the public question
list as published (``/questions/{benchmark}.jsonl``, the lmms-eval tasks' dataset and the runner's
input), the same list as a VLMEvalKit custom MCQ TSV (``/questions/{benchmark}.tsv``), and, on the
embedded default only, its generated images (``/questions/{benchmark}/images/{name}``).

Everything here is already public (the results dataset holds the list; the demo images are made
from public ids and sizes, :mod:`scoring.benchmarks.demo_images`). A real deployment's images are where
the benchmark publishes them; its list's option ``url`` values say where.

Each benchmark's files are built once per list version (:class:`PublicFiles`: the gold version
the list was published with), in a worker thread, and then served as the same bytes (gzipped
once, with an ETag, as the board page's: :class:`ui.board_page.Body`): a request
never parses the list or draws an image in the event loop (attacks.md, turn 4 #2: six anonymous
loops of a per-request TSV build took the board page from p95 12 ms to 1.7 s).
"""

from __future__ import annotations

import json
import math
import threading
import time
from dataclasses import dataclass, field

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from scoring.benchmarks import BENCHMARKS, get_benchmark
from scoring.benchmarks.demo_images import demo_image
from scoring.benchmarks.tsv import has_tsv, vlmevalkit_tsv
from ui.board_page import Body

NO_LIST = "No question list for this benchmark."
NO_TSV = "This benchmark declares no VLMEvalKit row shape (no benchmark family): use its question list."
JSONL, TSV = "application/jsonl; charset=utf-8", "text/tab-separated-values; charset=utf-8"
RECHECK_SECONDS = 1.0
"""How long served files stand before their list version is checked again (a new gold shows within it)."""
REVALIDATE = "no-cache"  # a new gold publishes a new list: a client asks again, and its ETag gets a 304


def question_links(benchmark: str, prefix: str = "") -> str:
    """Markdown links to a benchmark's inputs (Submit's guide, About); the TSV only where the
    declaration gives its row shape."""
    base = f"{prefix}questions/{benchmark}"
    tsv = f" · [as a VLMEvalKit TSV]({base}.tsv)" if has_tsv(benchmark) else ""
    return f"[question list (JSONL)]({base}.jsonl){tsv}"


@dataclass
class ListFiles:
    """One benchmark's public files for one list version; images are drawn once each, on first ask."""

    version: str
    jsonl: Body
    tsv: Body | None  # None: the benchmark declares no row shape for it
    sizes: dict[str, tuple[int, int]]
    images: dict[str, bytes] = field(default_factory=dict)

    def image(self, benchmark: str, name: str) -> bytes | None:
        """A demo image's PNG (None: the list names no such image)."""
        if name not in self.images:
            size = self.sizes.get(name)
            if size is None:
                return None
            self.images[name] = demo_image(name.rsplit(".", 1)[0], *size)
        return self.images[name]


def build_files(benchmark: str, version: str, body: bytes) -> ListFiles:
    """Everything served for one list version, from the published list's bytes; the TSV's rows
    and the images' sizes are the benchmark family's (none without one)."""
    questions = [json.loads(line) for line in body.decode("utf-8").splitlines() if line.strip()]
    family = get_benchmark(benchmark).family
    sizes = family.image_sizes(questions) if family else {}
    tsv = Body.of(vlmevalkit_tsv(benchmark, questions), TSV) if family else None
    return ListFiles(version, Body.of(body, JSONL), tsv, sizes)


class PublicFiles:
    """Each benchmark's :class:`ListFiles`, rebuilt only when its list version changes.
    Calling it blocks (reads the store, may build): do it in a worker thread. :meth:`fresh` is
    what the event loop may ask: the files, if their version was checked in the last
    ``recheck`` seconds (so a flood costs one version check a second, not one a request)."""

    def __init__(self, read, recheck: float = RECHECK_SECONDS, clock=time.monotonic) -> None:
        self.read, self.recheck, self.clock = read, recheck, clock
        self._lock = threading.Lock()  # concurrent first requests build once
        self._built: dict[str, tuple[ListFiles, float]] = {}  # benchmark -> (files, when checked)

    def fresh(self, benchmark: str) -> ListFiles | None:
        built, checked = self._built.get(benchmark, (None, -math.inf))
        return built if self.clock() - checked < self.recheck else None

    def __call__(self, benchmark: str) -> ListFiles | None:
        if benchmark not in BENCHMARKS:
            return None
        info = self.read.gold_info(benchmark)
        version = info.version if info else ""
        with self._lock:
            built, _ = self._built.get(benchmark, (None, 0.0))
            if built is None or built.version != version:
                body = self.read.public_questions(benchmark)
                if not body:
                    self._built.pop(benchmark, None)
                    return None
                built = build_files(benchmark, version, body)
            self._built[benchmark] = (built, self.clock())
            return built

    async def current(self, benchmark: str) -> ListFiles | None:
        """The files, from memory when freshly checked, else checked (and built) in a worker thread."""
        return self.fresh(benchmark) or await run_in_threadpool(self, benchmark)

    def image(self, benchmark: str, name: str) -> bytes | None:
        built = self.fresh(benchmark) or self(benchmark)
        if built is None:
            return None
        with self._lock:
            return built.image(benchmark, name)


def routes(read, demo: bool, files: PublicFiles | None = None) -> list[Route]:
    """The input routes; ``demo``: this is the embedded default, whose images the site makes."""
    files = files or PublicFiles(read)

    async def jsonl(request: Request) -> Response:
        built = await files.current(request.path_params["benchmark"])
        if built is None:
            return Response(NO_LIST, status_code=404)
        return built.jsonl.response(request, REVALIDATE)

    async def tsv(request: Request) -> Response:
        built = await files.current(request.path_params["benchmark"])
        if built is None:
            return Response(NO_LIST, status_code=404)
        if built.tsv is None:
            return Response(NO_TSV, status_code=404)
        return built.tsv.response(request, REVALIDATE)

    async def image(request: Request) -> Response:
        if not demo:
            return Response("Images are published by the benchmark; see the list's url fields.", status_code=404)
        png = await run_in_threadpool(files.image, request.path_params["benchmark"], request.path_params["name"])
        if png is None:
            return Response("No such image in the question list.", status_code=404)
        return Response(png, media_type="image/png", headers={"cache-control": "public, max-age=86400"})

    return [
        Route("/questions/{benchmark}.jsonl", jsonl, methods=["GET", "HEAD"]),
        Route("/questions/{benchmark}.tsv", tsv, methods=["GET", "HEAD"]),
        Route("/questions/{benchmark}/images/{name}", image, methods=["GET", "HEAD"]),
    ]
