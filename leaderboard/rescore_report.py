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
    """``Leaderboard.rescore``'s report as lines; ``name`` quotes team and model names, ``version``
    a gold version, for the medium (the CLI prints them as they are)."""
    if not report:
        return [ReportLine(NOTHING_TO_RESCORE)]
    lines: list[ReportLine] = []
    for benchmark, part in report.items():
        counts = part["counts"]
        done = sum(counts.values())
        if done:
            detail = ", ".join(f"{n:,} {status}" for status, n in counts.items())
            lines.append(ReportLine(f"{benchmark}: rescored {done:,} submission(s): {detail}"))
        else:
            lines.append(
                ReportLine(
                    f"{benchmark}: nothing needed rescoring (every submission already has its outcome on this gold)"
                )
            )
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
