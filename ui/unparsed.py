"""How a submission's unparsed responses are shown to their submitter (My submissions)."""

from __future__ import annotations

from collections.abc import Sequence

from scoring.engine import UnparsedLine
from ui import display

CELL_LINES = 10
"""Lines listed in one table cell; the rest are counted."""


def unparsed_cell(lines: Sequence[UnparsedLine], total: int | None = None) -> str:
    """``line 12: "Image C shows it."; line 40: ...`` (the submitter's own text, in full), or "-".

    >>> unparsed_cell([UnparsedLine(12, "I cannot tell."), UnparsedLine(40, "A or B?")], total=5)
    'line 12: "I cannot tell."; line 40: "A or B?"; and 3 more'
    >>> unparsed_cell([])
    '-'
    """
    if not lines:
        return "-"
    shown = [
        f'{display.line_place(u.line, u.file)}{" (grounding)" if u.kind == "grounding" else ""}: "{u.text}"'
        for u in lines[:CELL_LINES]
    ]
    rest = (total if total is not None else len(lines)) - len(shown)
    return "; ".join(shown + ([f"and {rest} more"] if rest > 0 else []))


def unparsed_markdown(lines: list[tuple[int, str] | tuple[int, str, str]], kind: str = "answer") -> str:
    """Responses that state no letter (they count as wrong), or grounding responses that name no
    box (``kind`` "grounding": IoU 0 where the answer is right), by line number (and by the file given,
    a third item, when several were)."""
    if not lines:
        return ""
    rows = "\n".join(
        f"- {display.escape_markdown(display.line_place(n, (*file, '')[0]))}: {display.escape_markdown(text)}"
        for n, text, *file in lines
    )
    if kind == "grounding":
        why = "no box in the declared grounding format, IoU 0"
        return f"**Unparsed groundings** ({why}; first {len(lines)} listed):\n{rows}"
    return f"**Unparsed responses** (counted as wrong; first {len(lines)} listed):\n{rows}"
