"""Where a model fails, as its team reads it: My submissions' panel and the Submit answer's lines.

The figures are :mod:`leaderboard.failures`' (the entry's own result as its team may see it, and
the board's public rows); this module only writes them out, as a list that stacks on a phone
(no table to wrap letter by letter), a split bar per group where the benchmark has one, and a
text equivalent of every bar.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from leaderboard.failures import Difference, Gap, GroupLine, Split, group_lines, split_of
from scoring.benchmarks import Benchmark
from ui.display import escape_markdown

FLAG = "⚑"
SPLIT_PARTS = (
    ("wrong", "wrong answer"),
    ("missed", "right answer, IoU < 0.5"),
    ("grounded", "grounded, IoU ≥ 0.5"),
)
HOW = (
    f"{FLAG} marks a gap whose 95% interval excludes 0. Against your overall: the group's figure minus "
    "your overall one, ± the root of the sum of the two squared half-widths (conservative: the group is part "
    "of the overall). Against the board: minus the median of the board's rows in that group, ± your group's "
    "half-width."
)


def signed(value: float, decimals: int) -> str:
    return f"{'+' if value >= 0 else '−'}{abs(value):.{decimals}f}"


def difference_text(d: Difference, decimals: int, against: str) -> str:
    interval = f" ± {d.half:.{decimals}f}" if d.half is not None else ""
    flag = f" {FLAG}" if d.flagged else ""
    return f"{signed(d.value, decimals)}{interval} against {against} ({d.reference:.{decimals}f}){flag}"


def gap_text(gap: Gap) -> str:
    """``Acc 39.43 ± 4.35: −30.90 ± 5.01 against your overall (70.33) ⚑; ...`` as plain text."""
    d = gap.metric.decimals
    figure = f"{gap.value:.{d}f}" + (f" ± {gap.half:.{d}f}" if gap.half is not None else "")
    parts = [difference_text(gap.own, d, "your overall")] if gap.own else []
    parts += [difference_text(gap.board, d, "the board's median")] if gap.board else []
    return f"{gap.metric.abbrev} {figure}: " + "; ".join(parts)


def split_text(split: Split) -> str:
    return " · ".join(f"{label} {getattr(split, key):.2f}%" for key, label in SPLIT_PARTS)


def split_legend(split: Split) -> str:
    """The split as text, each part after its colour's swatch (the bar itself is hidden from screen readers)."""
    return " · ".join(
        f'<span class="split-part"><span class="swatch split-{key}" aria-hidden="true"></span>'
        f"{html.escape(label)} {getattr(split, key):.2f}%</span>"
        for key, label in SPLIT_PARTS
    )


def split_bar(split: Split) -> str:
    """Three segments on a 0-100 track; the text beside it says the same (the bar is an image of it)."""
    segments = "".join(
        f'<span class="split-{key}" style="width:{max(0.0, getattr(split, key)):.2f}%"></span>'
        for key, _ in SPLIT_PARTS
    )
    return f'<div class="split-bar" aria-hidden="true">{segments}</div><p class="split-text">{split_legend(split)}</p>'


def line_html(line: GroupLine) -> str:
    n = f' <span class="fail-n">{line.questions:,} questions</span>' if line.questions else ""
    flag = f' <span class="fail-flag">{FLAG} weak spot</span>' if line.flagged else ""
    gaps = "".join(f"<li>{html.escape(gap_text(g))}</li>" for g in line.gaps)
    split = split_bar(line.split) if line.split else ""
    cls = "fail flagged" if line.flagged else "fail"
    name = f'<p class="fail-name"><b>{html.escape(line.name)}</b>{n}{flag}</p>'
    return f'<li class="{cls}">{name}<ul>{gaps}</ul>{split}</li>'


def failures_html(bench: Benchmark, result: Mapping | None, board: Sequence[Mapping] = ()) -> str:
    """My submissions' panel: every group worst first, the overall split first (or why nothing)."""
    if not result:
        return ""
    lines = group_lines(bench, result, board)
    if not lines:
        return ""
    overall = split_of(bench, result.get("overall") or {})
    head = '<h2 id="fails-title">Where it fails: groups, weakest first</h2>'
    weak = [line.name for line in lines if line.flagged]
    summary = f"Weak spots: {', '.join(weak)}." if weak else "No group is clearly below your overall figures."
    intro = f'<p class="fails-summary">{html.escape(summary)}</p>'
    whole = f'<p class="fail-name"><b>Overall</b></p>{split_bar(overall)}' if overall else ""
    items = "".join(line_html(line) for line in lines)
    how = f'<p class="fails-how">{html.escape(HOW)}</p>'
    body = f'{head}{intro}{whole}<ol class="fails-list">{items}</ol>{how}'
    return f'<section class="fails" aria-labelledby="fails-title">{body}</section>'


def failures_markdown(bench: Benchmark, result: Mapping | None, board: Sequence[Mapping] = (), limit: int = 3) -> str:
    """The Submit answer's lines: the ``limit`` weakest groups, flagged ones only (or a line saying none)."""
    if not result:
        return ""
    lines = [line for line in group_lines(bench, result, board) if line.flagged][:limit]
    if not lines:
        return "**Where it fails**: no group is clearly below your overall figures (My submissions lists them all)."
    out = [
        f"**Where it fails** (the weakest groups; {FLAG}: the gap's 95% interval excludes 0; all in My submissions):"
    ]
    for line in lines:
        parts = "; ".join(gap_text(g) for g in line.gaps)
        split = f" Split: {split_text(line.split)}." if line.split else ""
        out.append(
            f"- **{escape_markdown(line.name)}** ({line.questions or '-'} questions): {escape_markdown(parts)}.{split}"
        )
    return "\n".join(out)
