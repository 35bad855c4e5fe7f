"""What a team runs its model on, one link from the board and from Submit: the public question
list as published (``/questions/{benchmark}.jsonl``, the lmms-eval tasks' dataset and the runner's
input), the same list as a VLMEvalKit custom MCQ TSV (``/questions/{benchmark}.tsv``), and, on the
embedded default only, its generated images (``/questions/{benchmark}/images/{name}``).

Everything here is already public (the results dataset holds the list; the demo images are made
from public ids and sizes, :mod:`leaderboard.demo.images`). A real deployment's images are where
the benchmark publishes them; its list's option ``url`` values say where.
"""

from __future__ import annotations

import json
from functools import lru_cache

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from leaderboard.demo.images import demo_image
from leaderboard.harness_inputs import vlmevalkit_tsv
from scoring.benchmarks import BENCHMARKS

KVISCUIT_DEMO_SIZE = (640, 480)
"""The size of the embedded default's K-Viscuit images (its list gives none)."""


def question_links(benchmark: str, prefix: str = "") -> str:
    """Markdown links to a benchmark's inputs (Submit's guide, About)."""
    base = f"{prefix}questions/{benchmark}"
    return f"[question list (JSONL)]({base}.jsonl) · [as a VLMEvalKit TSV]({base}.tsv)"


def _listed(read, benchmark: str) -> list[dict]:
    body = read.public_questions(benchmark)
    return [json.loads(line) for line in body.decode("utf-8").splitlines() if line.strip()]


@lru_cache(maxsize=4)
def _sizes(body: bytes) -> dict[str, tuple[int, int]]:
    """Image file name -> its public (width, height), from an SCB list's options."""
    out = {}
    for line in body.decode("utf-8").splitlines():
        for option in json.loads(line).get("options", []) if line.strip() else ():
            name = str(option.get("url", "")).rsplit("/", 1)[-1]
            out[name] = (int(option["width"]), int(option["height"]))
    return out


def routes(read, demo: bool) -> list[Route]:
    """The input routes; ``demo``: this is the embedded default, whose images the site makes."""

    def known(request: Request) -> str | None:
        benchmark = request.path_params["benchmark"]
        return benchmark if benchmark in BENCHMARKS and read.public_questions(benchmark) else None

    async def jsonl(request: Request) -> Response:
        benchmark = known(request)
        if benchmark is None:
            return Response("No question list for this benchmark.", status_code=404)
        return Response(read.public_questions(benchmark), media_type="application/jsonl; charset=utf-8",
                        headers={"cache-control": "no-cache"})  # fmt: skip

    async def tsv(request: Request) -> Response:
        benchmark = known(request)
        if benchmark is None:
            return Response("No question list for this benchmark.", status_code=404)
        body = vlmevalkit_tsv(benchmark, _listed(read, benchmark))
        return Response(body, media_type="text/tab-separated-values; charset=utf-8",
                        headers={"cache-control": "no-cache"})  # fmt: skip

    async def image(request: Request) -> Response:
        benchmark, name = known(request), request.path_params["name"]
        if not demo or benchmark is None:
            return Response("Images are published by the benchmark; see the list's url fields.", status_code=404)
        if benchmark == "scb":
            size = _sizes(read.public_questions(benchmark)).get(name)
        else:
            size = KVISCUIT_DEMO_SIZE if name.split(".")[0].isdigit() else None
        if size is None:
            return Response("No such image in the question list.", status_code=404)
        stem = name.rsplit(".", 1)[0]
        return Response(
            demo_image(stem, *size), media_type="image/png", headers={"cache-control": "public, max-age=86400"}
        )

    return [
        Route("/questions/{benchmark}.jsonl", jsonl, methods=["GET", "HEAD"]),
        Route("/questions/{benchmark}.tsv", tsv, methods=["GET", "HEAD"]),
        Route("/questions/{benchmark}/images/{name}", image, methods=["GET", "HEAD"]),
    ]
