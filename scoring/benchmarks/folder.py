"""What a benchmark's folder holds beside its code: ``citation.bib``, ``about.md`` and ``baselines.json``
(package data, found the same way from a checkout or an install). A declaration reads them with
``Benchmark(..., **folder_files(__package__))``, so the About page, the results dataset's card and the
exports all show the folder's one copy; a file the folder lacks gives an empty slot."""

from __future__ import annotations

import json
from importlib import resources

CITATION, ABOUT, BASELINES = "citation.bib", "about.md", "baselines.json"


def folder_files(package: str) -> dict[str, object]:
    """The ``citation``, ``about`` and ``paper_rows`` slots of the benchmark whose folder is ``package``."""
    root = resources.files(package)

    def text(name: str) -> str:
        path = root.joinpath(name)
        return path.read_text(encoding="utf-8").strip() if path.is_file() else ""

    rows = text(BASELINES)
    return {"citation": text(CITATION), "about": text(ABOUT), "paper_rows": json.loads(rows) if rows else {}}
