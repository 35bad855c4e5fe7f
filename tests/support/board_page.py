"""What a visitor's browser gets from the board page (:mod:`ui.board_page`), for the secrecy tests.

Every view of the board, its CSV download and the model page are computed in the browser from
the one baked page and the JSON data in it, so what the page serves is everything a visitor can
see there. :func:`served` bakes the page from a read side (the writer's ``Leaderboard`` or a
``PublishedLeaderboard``) and GETs it as a browser does; :func:`model_page_row` is the row the
page's script shows on ``?bench=..&model=<row id>`` (``board.js``: the first row of the benchmark
with that ``row_id``, else the board).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.testclient import TestClient

from leaderboard.config import UiSettings
from leaderboard.table import BoardRow
from submissions import fields
from ui.board_data import ReadSide
from ui.board_page import BoardBaker, routes
from ui.display import TYPE_FILTERS

DATA = re.compile(r'<script type="application/json" id="board-data">(.*?)</script>', re.S)


@dataclass(frozen=True)
class ServedPage:
    body: str  # the page's HTML, its data included
    data: dict  # the data as the page's script parses it
    client: TestClient

    def text(self) -> str:
        """The page and its data as text (:func:`as_text`)."""
        return self.body + as_text(self.data)

    def model_link(self, bench: str, row_id: str) -> str:
        """What the server answers to the model page's address: the same page for every id
        (the page holds no per-row rendering), checked by the caller."""
        response = self.client.get("/", params={"bench": bench, "model": row_id})
        assert response.status_code == 200, response.status_code
        return response.text


def served(read: ReadSide, settings: UiSettings | None = None) -> ServedPage:
    baker = BoardBaker(read, settings or UiSettings(), at_most_every=0)
    assert baker.refresh(), "the page bakes"
    client = TestClient(Starlette(routes=routes(baker)))
    response = client.get("/")
    assert response.status_code == 200, response.status_code
    found = DATA.search(response.text)
    assert found, "the page carries its data"
    return ServedPage(response.text, json.loads(found.group(1)), client)


def benchmark(data: dict, bench: str) -> dict:
    return next(b for b in data["benchmarks"] if b["id"] == bench)


def model_page_row(data: dict, bench: str, row_id: str) -> dict | None:
    """The row the model page of ``row_id`` shows, or None (the page then shows the board)."""
    return next((r for r in benchmark(data, bench)["rows"] if r["row_id"] == row_id), None)


def as_text(value: object) -> str:
    """Data as text, with every number in it also as the board prints figures (2 decimals): a
    figure is looked for as it would show, not only as stored (50.7 shows as 50.70)."""
    numbers = " ".join(f"{n:.2f}" for n in _numbers(value))
    return json.dumps(value, ensure_ascii=False) + " " + numbers


def row_text(row: dict | None) -> str:
    """A model page's row as text; no row is an empty page (the script then shows the board)."""
    return "" if row is None else as_text(row)


def _numbers(value) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [float(value)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return []


def search_terms(query: str | None) -> list[str]:
    """``"qwen; gpt"`` -> ``["qwen", "gpt"]``: terms separated by ``;``, any of which may match."""
    return [t.strip().casefold() for t in (query or "").split(";") if t.strip()]


def wanted_types(model_types: Iterable[str] | None) -> set[str] | None:
    """The stored model types a choice of ``TYPE_FILTERS`` keeps (None: all); unknown choices keep themselves."""
    if model_types is None:
        return None
    return {t for choice in model_types for t in TYPE_FILTERS.get(str(choice).lower(), (str(choice).lower(),))}


def row_filter(
    model_types: Iterable[str] | None,
    sources: Iterable[str] | None,
    query: str = "",
    sizes: Iterable[str] | None = None,
):
    """A predicate on board rows, for ``table(..., keep)``: model type, source and size bucket
    (submissions.fields.SIZE_CHOICES) among those chosen, and model or team containing any search
    term (case-insensitive). The board ranks the rows it keeps."""
    types = wanted_types(model_types)
    kept_sources = None if sources is None else set(sources)
    kept_sizes = None if sizes is None else set(sizes)
    terms = search_terms(query)

    def keep(row: BoardRow) -> bool:
        if types is not None and str(row.model_type).lower() not in types:
            return False
        if kept_sources is not None and row.source not in kept_sources:
            return False
        if kept_sizes is not None and fields.size_bucket(row.value(fields.SIZE_FIELD)) not in kept_sizes:
            return False
        hay = f"{row.model} {row.team}".casefold()
        return not terms or any(t in hay for t in terms)

    return keep
