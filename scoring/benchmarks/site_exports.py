"""A scored result in the shapes the benchmarks' own sites take, filled from verified figures.

- SCB: the official leaderboard's self-report JSON (``seeingculture-benchmark.github.io``,
  ``index.html`` "Submit"; the rows of its ``data/leaderboard.js``): ``model``, ``group``,
  ``t1_acc`` ... ``t3_miou``, ``acc``, ``miou``, ``paper_or_repo``, ``contact``, plus ``date`` and
  ``source`` as the site's own rows carry them; ``source`` links back to the entry here, so the
  authors can check each figure against the scored row.
- K-Viscuit: the paper's Tables 2 and 3 (type columns then overall; the ten categories as the paper
  prints them), as one record and one Markdown table row. The paper's rows follow the exact-letter
  rule: a row with responses read by a looser rule is marked † (as on the board) with a note giving
  the count and the overall by the paper's rule, so it cannot pass for a paper-table row.

Figures are rounded to 2 decimals as both sites print them; ``miou`` is ``null`` where the model
gave no grounding (the SCB site's own convention).

Each declaration names its shape (``Benchmark.site_export``, a ``(result, SiteRow) -> record or
text`` function), which ``python -m leaderboard export`` prints; a benchmark without one has none.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SiteRow:
    """What an export needs beside the figures: the row's public facts and the command's options."""

    model: str
    model_type: str = ""
    date: str = ""
    source: str = ""
    paper_or_repo: str = ""
    contact: str = ""
    markdown: bool = False


SCB_OFFICIAL_FIELDS = (
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

SCB_GROUPS = {"open": "Open", "closed": "Closed", "api": "Closed"}
"""Model type here -> the SCB site's ``group`` (it has only Open and Closed)."""

KVISCUIT_TYPES = (("1", "Visual Recognition"), ("2", "Visual Reasoning"))


def _two(value: float | None) -> float | None:
    return None if value is None else round(float(value), 2)


def scb_official(
    result: dict, *, model: str, model_type: str, date: str, source: str, paper_or_repo: str = "", contact: str = ""
) -> dict:
    """The SCB site's self-report record from a stored result record (its ``to_dict`` shape)."""
    types = result.get("type", {})
    row: dict = {"model": model, "group": SCB_GROUPS.get(model_type, "Open")}
    for t in ("1", "2", "3"):
        stats = types.get(t, {})
        row[f"t{t}_acc"] = _two(stats.get("acc"))
        row[f"t{t}_miou"] = _two(stats.get("miou"))
    row["acc"] = _two(result["overall"].get("acc"))
    row["miou"] = _two(result["overall"].get("miou"))
    row |= {"paper_or_repo": paper_or_repo, "contact": contact, "date": date[:7], "source": source}
    return {k: row[k] for k in SCB_OFFICIAL_FIELDS}


def kviscuit_paper(result: dict, *, model: str, source: str) -> dict:
    """K-Viscuit's figures in the paper's layout: Table 2 (per type, overall), Table 3 (per category)."""
    from scoring.benchmarks.kviscuit import KVISCUIT  # the declaration imports this module

    categories = KVISCUIT.grouping("category")
    by_type = result.get("type", {})
    by_category = result.get("category", {})
    return {
        "model": model,
        "table2": {name: _two(by_type.get(t, {}).get("acc")) for t, name in KVISCUIT_TYPES}
        | {"Overall": _two(result["overall"].get("acc"))},
        "table3": {categories.show(c): _two(by_category.get(c, {}).get("acc")) for c in categories.order},
        "lenient": int(result.get("counts", {}).get("lenient") or 0),
        "strict_overall": _two(result["overall"].get("acc_strict")),
        "source": source,
    }


LENIENT_MARK = "†"
"""The board's mark of a row read leniently (ui.display.LENIENT_MARK)."""


def kviscuit_markdown(paper: dict) -> str:
    """The header and the row of both tables, as Markdown (a paper's or README's table)."""
    columns = list(paper["table2"]) + list(paper["table3"])
    cells = [*paper["table2"].values(), *paper["table3"].values()]
    head = "| Model | " + " | ".join(columns) + " |"
    rule = "|---|" + "---:|" * len(columns)
    lenient = paper.get("lenient", 0)
    model = f"{paper['model']} {LENIENT_MARK}" if lenient else paper["model"]
    row = f"| {model} | " + " | ".join("-" if v is None else f"{v:.2f}" for v in cells) + " |"
    if not lenient:
        return "\n".join((head, rule, row))
    strict = paper.get("strict_overall")
    note = (
        f"{LENIENT_MARK} {lenient:,} responses read by rules looser than the paper's exact-letter protocol; "
        f"by that protocol the Overall is {'-' if strict is None else f'{strict:.2f}'}."
    )
    return "\n".join((head, rule, row, note))


def scb_site(result: dict, row: SiteRow) -> dict:
    """SCB's declared export: the site's self-report record."""
    return scb_official(
        result,
        model=row.model,
        model_type=row.model_type,
        date=row.date,
        source=row.source,
        paper_or_repo=row.paper_or_repo,
        contact=row.contact,
    )


def kviscuit_site(result: dict, row: SiteRow) -> dict | str:
    """K-Viscuit's declared export: the paper's tables as a record, or as Markdown with ``markdown``."""
    paper = kviscuit_paper(result, model=row.model, source=row.source)
    return kviscuit_markdown(paper) if row.markdown else paper
