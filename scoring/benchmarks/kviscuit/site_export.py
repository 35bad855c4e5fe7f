"""K-Viscuit's row in the shape of its paper: Tables 2 and 3 (type columns then overall; the ten
categories as the paper prints them), as one record and one Markdown table row. The paper's rows
follow the exact-letter rule: a row with responses read by a looser rule is marked † (as on the
board) with a note giving the count and the overall by the paper's rule, so it cannot pass for a
paper-table row. Figures are rounded to 2 decimals as the paper prints them.

The functions take the category grouping as an argument (the declaration binds it when it names
:func:`site_export`), so this module does not import the declaration back.
"""

from __future__ import annotations

from scoring.benchmarks.base import Grouping, SiteRow, two_decimals

TYPES = (("1", "Visual Recognition"), ("2", "Visual Reasoning"))
LENIENT_MARK = "†"
"""The board's mark of a row read leniently (ui.display.LENIENT_MARK)."""


def paper(categories: Grouping, result: dict, *, model: str, source: str) -> dict:
    """The figures in the paper's layout: Table 2 (per type, overall), Table 3 (per category)."""
    by_type = result.get("type", {})
    by_category = result.get("category", {})
    return {
        "model": model,
        "table2": {name: two_decimals(by_type.get(t, {}).get("acc")) for t, name in TYPES}
        | {"Overall": two_decimals(result["overall"].get("acc"))},
        "table3": {categories.show(c): two_decimals(by_category.get(c, {}).get("acc")) for c in categories.order},
        "lenient": int(result.get("counts", {}).get("lenient") or 0),
        "strict_overall": two_decimals(result["overall"].get("acc_strict")),
        "source": source,
    }


def markdown(figures: dict) -> str:
    """The header and the row of both tables, as Markdown (a paper's or README's table)."""
    columns = list(figures["table2"]) + list(figures["table3"])
    cells = [*figures["table2"].values(), *figures["table3"].values()]
    head = "| Model | " + " | ".join(columns) + " |"
    rule = "|---|" + "---:|" * len(columns)
    lenient = figures.get("lenient", 0)
    model = f"{figures['model']} {LENIENT_MARK}" if lenient else figures["model"]
    row = f"| {model} | " + " | ".join("-" if v is None else f"{v:.2f}" for v in cells) + " |"
    if not lenient:
        return "\n".join((head, rule, row))
    strict = figures.get("strict_overall")
    note = (
        f"{LENIENT_MARK} {lenient:,} responses read by rules looser than the paper's exact-letter protocol; "
        f"by that protocol the Overall is {'-' if strict is None else f'{strict:.2f}'}."
    )
    return "\n".join((head, rule, row, note))


def site_export(categories: Grouping, result: dict, row: SiteRow) -> dict | str:
    """The declared export: the paper's tables as a record, or as Markdown with ``markdown``."""
    figures = paper(categories, result, model=row.model, source=row.source)
    return markdown(figures) if row.markdown else figures
