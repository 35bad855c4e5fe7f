"""The rescore report in words: one wording for the CLI and the Maintainers tab, each of which
lays the lines out its own way (plain indented text, Markdown with escaped names)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

NOTHING_TO_RESCORE = "nothing to rescore: no benchmark has a gold yet"


@dataclass(frozen=True)
class ReportLine:
    text: str
    depth: int = 0  # 0: a benchmark's outcome; 1: what followed from it; 2: one rank change


def _plain(text: str) -> str:
    return text


def report_lines(
    report: Mapping[str, Mapping], name: Callable[[str], str] = _plain, version: Callable[[str], str] = _plain
) -> list[ReportLine]:
    """``Leaderboard.corrections.rescore``'s report as lines; ``name`` quotes team and model names, ``version``
    a gold version, for the medium (the CLI prints them as they are)."""
    if not report:
        return [ReportLine(NOTHING_TO_RESCORE)]
    lines: list[ReportLine] = []
    for benchmark, part in report.items():
        lines.append(ReportLine(_headline(benchmark, part, version)))
        if part.get("switched_to"):
            lines.append(ReportLine(f"the board now shows gold {version(part['switched_to'])}", 1))
        if part.get("still_staged"):
            lines.append(
                ReportLine(
                    f"gold {version(part['still_staged'])} stays staged: a submission still owes "
                    "a result (rescore again)",
                    1,
                )
            )
        if part.get("over_bound"):
            stopped = part["over_bound"]
            lines.append(
                ReportLine(
                    f"{len(stopped)} upload(s) ran past a job's bound while read: rejected, never read again: "
                    + ", ".join(stopped),
                    1,
                )
            )
        if part.get("left"):
            lines.append(ReportLine(f"{part['left']} submission(s) not reached by the deadline: rescore again", 1))
        lines.extend(_rows(part, name))
        changes = part["rank_changes"]
        if not changes:
            lines.append(ReportLine("no rank changed on the public board", 1))
            continue
        lines.append(ReportLine("rank changes on the public board (place before -> after; - is no row):", 1))
        lines.extend(
            ReportLine(f"{name(c.team)} / {name(c.model)}: rank {c.before or '-'} -> {c.after or '-'}", 2)
            for c in changes
        )
    return lines


def _headline(benchmark: str, part: Mapping, version: Callable[[str], str]) -> str:
    """What was scored and what was already there, in one line that agrees with what follows
    (a switch back to a gold scores nothing, and the board still changes)."""
    counts = part["counts"]
    done, kept = sum(counts.values()), part.get("kept")
    on = f" (gold {version(part['gold'])})" if part.get("gold") else ""
    if done:
        detail = ", ".join(f"{n:,} {status}" for status, n in counts.items())
        text = f"{benchmark}: rescored {done:,} submission(s): {detail}{on}"
        return text + (f"; {kept:,} already had their outcome on it (kept, not scored again)" if kept else "")
    if part["rank_changes"] or any(r.changed for r in part.get("rows", ())):
        return (
            f"{benchmark}: no submission needed scoring{on}: each already had its outcome on that gold "
            "(kept, not scored again); the board changed as listed below"
        )
    return f"{benchmark}: nothing needed rescoring (every submission already has its outcome on this gold)"


def _rows(part: Mapping, name: Callable[[str], str]) -> list[ReportLine]:
    """Rows of the public board whose figures or place changed, and those that left or came back
    with the reason."""
    rows = part.get("rows")
    if rows is None:
        return []
    changed = [r for r in rows if r.changed]
    left = [r for r in rows if r.before is not None and r.after is None]
    came = [r for r in rows if r.before is None and r.after is not None]
    out = [
        ReportLine(
            f"rows on the public board: {len(changed) - len(left) - len(came):,} changed, "
            f"{len(left):,} left, {len(came):,} came back",
            1,
        )
    ]
    for verb, group in (("left", left), ("came back", came)):
        out += [ReportLine(f"{name(r.team)} / {name(r.model)} {verb}: {r.reason}", 2) for r in group]
    return out
