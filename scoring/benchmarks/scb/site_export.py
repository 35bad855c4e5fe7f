"""SCB's row in the shape of its official leaderboard: the self-report JSON of
``seeingculture-benchmark.github.io`` (``index.html`` "Submit"; the rows of its ``data/leaderboard.js``):
``model``, ``group``, ``t1_acc`` ... ``t3_miou``, ``acc``, ``miou``, ``paper_or_repo``, ``contact``, plus
``date`` and ``source`` as the site's own rows carry them; ``source`` links back to the entry here, so the
authors can check each figure against the scored row.

Figures are rounded to 2 decimals as the site prints them; ``miou`` is ``null`` where the model gave no
grounding (the site's own convention). ``python -m leaderboard export`` prints it (the declaration's
``site_export``).
"""

from __future__ import annotations

from scoring.benchmarks.base import SiteRow, two_decimals

OFFICIAL_FIELDS = (
    "model",
    "group",
    "t1_acc",
    "t1_miou",
    "t2_acc",
    "t2_miou",
    "t3_acc",
    "t3_miou",
    "acc",
    "miou",
    "paper_or_repo",
    "contact",
    "date",
    "source",
)
"""The self-report JSON's fields in the site's order, then the two its rows add."""

GROUPS = {"open": "Open", "closed": "Closed", "api": "Closed"}
"""Model type here -> the site's ``group`` (it has only Open and Closed)."""


def official(
    result: dict, *, model: str, model_type: str, date: str, source: str, paper_or_repo: str = "", contact: str = ""
) -> dict:
    """The site's self-report record from a stored result record (its ``to_dict`` shape)."""
    types = result.get("type", {})
    row: dict = {"model": model, "group": GROUPS.get(model_type, "Open")}
    for t in ("1", "2", "3"):
        stats = types.get(t, {})
        row[f"t{t}_acc"] = two_decimals(stats.get("acc"))
        row[f"t{t}_miou"] = two_decimals(stats.get("miou"))
    row["acc"] = two_decimals(result["overall"].get("acc"))
    row["miou"] = two_decimals(result["overall"].get("miou"))
    row |= {"paper_or_repo": paper_or_repo, "contact": contact, "date": date[:7], "source": source}
    return {k: row[k] for k in OFFICIAL_FIELDS}


def site_export(result: dict, row: SiteRow) -> dict:
    """The declared export: the site's self-report record."""
    return official(
        result,
        model=row.model,
        model_type=row.model_type,
        date=row.date,
        source=row.source,
        paper_or_repo=row.paper_or_repo,
        contact=row.contact,
    )
