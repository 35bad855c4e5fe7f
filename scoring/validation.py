"""Validate only: every check a scored submission passes, without scoring it.

One function serves the server's "validate only" mode and the offline validator
(``python -m scoring validate``): the same checks and codes, against the gold on the server or
against the public question list offline (a public gold, scoring/benchmarks). Nothing here reads
an answer or a mask, so a report says nothing about the gold. A partial file is accepted: the
leaderboard's minimum-coverage rule becomes a warning instead of an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scoring.benchmarks import Benchmark, get_benchmark
from scoring.engine import UnparsedLine, check_constant_box, check_coverage, check_grounding_present, validate_file
from scoring.errors import Issue
from scoring.gold import Gold
from scoring.jsonl import IssueLog, Limits


@dataclass(frozen=True)
class ValidationReport:
    """A file that passed validation: what was read, and warnings that do not stop it here."""

    benchmark: str
    questions: int
    answered: int
    unparsed: int
    lenient: int
    unparsed_lines: tuple[UnparsedLine, ...] = ()
    warnings: tuple[Issue, ...] = ()
    grounding_unparsed: int = 0  # grounding_response lines that name no box (IoU 0 where the answer is right)

    def summary(self) -> str:
        lines = [
            f"valid: the file answers {self.answered:,} of {self.questions:,} questions "
            f"({self.questions - self.answered:,} missing); nothing was scored."
        ]
        answers = [u for u in self.unparsed_lines if u.kind == "answer"]
        groundings = [u for u in self.unparsed_lines if u.kind == "grounding"]
        if self.unparsed:
            lines.append(f"{self.unparsed:,} response(s) state no letter and would count as wrong (unparsed):")
            lines += [f"  line {u.line}: {u.text!r}" for u in answers]
            if self.unparsed > len(answers):
                lines.append(f"  ... and {self.unparsed - len(answers):,} more")
        if self.grounding_unparsed:
            lines.append(
                f"{self.grounding_unparsed:,} grounding_response(s) name no box in the declared grounding_format "
                "and would score IoU 0 (unparsed grounding):"
            )
            lines += [f"  line {u.line}: {u.text!r}" for u in groundings]
            if self.grounding_unparsed > len(groundings):
                lines.append(f"  ... and {self.grounding_unparsed - len(groundings):,} more")
        if self.lenient:
            lines.append(f"{self.lenient:,} response(s) were read by a rule looser than the official one-letter rule.")
        lines += [f"warning: {w}" for w in self.warnings]
        return "\n".join(lines)


def check_file(
    benchmark: str | Benchmark,
    gold: Gold,
    source: str | Path | bytes,
    *,
    bbox_format: str = "xyxy",
    limits: Limits | None = None,
    min_coverage: float | None = None,
    confirm_box_format: bool = False,
    grounding_format: str = "",
) -> ValidationReport:
    """Run every check (ids, answers, grounding, box format, coverage) and report; raises
    SubmissionError with the line-numbered issues the server would give. A coverage below
    ``min_coverage`` is a warning here (the file can be checked, not scored)."""
    bench = get_benchmark(benchmark) if isinstance(benchmark, str) else benchmark
    predictions = validate_file(
        bench,
        gold,
        source,
        bbox_format=bbox_format,
        limits=limits,
        check_box_format=not confirm_box_format,
        grounding_format=grounding_format,
    )
    warnings = IssueLog()
    if min_coverage is not None:
        check_coverage(warnings, predictions.answered, gold.size, min_coverage)
    check_grounding_present(warnings, bench, predictions)
    check_constant_box(warnings, predictions)
    for note in predictions.notes:
        warnings.add_issue(note)
    return ValidationReport(
        bench.id,
        gold.size,
        predictions.answered,
        predictions.unparsed,
        predictions.lenient,
        predictions.unparsed_lines,
        tuple(warnings.listed),
        predictions.grounding_unparsed,
    )
