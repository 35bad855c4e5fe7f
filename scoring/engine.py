"""Score one submission file against compiled gold: the one way in for every caller.

``score_file`` streams the file, collects line-numbered issues (nothing is scored if there is
any), turns valid lines into per-question arrays and hands them to the metric reducers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scoring.answers import describe, extract_answer, normalize_answer
from scoring.benchmarks import Benchmark, get_benchmark
from scoring.errors import LineError
from scoring.geometry import BOX_FORMATS
from scoring.gold import Gold
from scoring.jsonl import IssueLog, Limits, read_objects
from scoring.metrics import BOOTSTRAP_SEED, group_figures, question_stats

SCORER_VERSION = "1.1.0"
"""Bump when any figure could change: results are keyed by (submission, gold, scorer)."""


@dataclass(frozen=True)
class ResultRecord:
    """Public aggregates of one scored submission (SPEC "Result record")."""

    benchmark: str
    gold_version: str
    scorer_version: str
    counts: dict[str, int]
    overall: dict
    groups: dict[str, dict[str, dict]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "benchmark": self.benchmark,
            "gold_version": self.gold_version,
            "scorer_version": self.scorer_version,
            "counts": self.counts,
            "overall": self.overall,
            **self.groups,
        }

    @classmethod
    def from_dict(cls, d: dict) -> ResultRecord:
        fixed = {"benchmark", "gold_version", "scorer_version", "counts", "overall"}
        return cls(
            d["benchmark"], d["gold_version"], d["scorer_version"], d["counts"], d["overall"],
            {k: v for k, v in d.items() if k not in fixed},
        )  # fmt: skip


def _declaration(benchmark: str | Benchmark) -> Benchmark:
    return get_benchmark(benchmark) if isinstance(benchmark, str) else benchmark


def _limits_for(gold: Gold, limits: Limits | None) -> Limits:
    """By default a file may have at most twice as many lines as there are questions (+1000)."""
    limits = limits or Limits()
    return Limits(limits.max_bytes, limits.max_line_bytes, min(limits.max_lines, 2 * gold.size + 1000))


@dataclass
class Predictions:
    """A validated submission as per-question arrays (row order of the gold)."""

    benchmark: str
    gold_version: str
    letters: np.ndarray  # int8 index into the benchmark's choices per row, -1 when missing or unparsed
    submitted: np.ndarray  # bool per row
    groundings: dict[int, object]  # row -> the benchmark's grounding object
    unparsed: int


def score_file(
    benchmark: str | Benchmark,
    gold: Gold,
    source: str | Path | bytes,
    *,
    bbox_format: str = "xyxy",
    limits: Limits | None = None,
    min_coverage: float | None = None,
) -> ResultRecord:
    """Validate and score a JSONL submission (its path or its bytes); raises SubmissionError."""
    bench = _declaration(benchmark)
    predictions = validate_file(bench, gold, source, bbox_format=bbox_format, limits=limits, min_coverage=min_coverage)
    return score_predictions(bench, gold, predictions)


def validate_file(
    benchmark: str | Benchmark,
    gold: Gold,
    source: str | Path | bytes,
    *,
    bbox_format: str = "xyxy",
    limits: Limits | None = None,
    min_coverage: float | None = None,
) -> Predictions:
    """Stream and check the submission (its path or its bytes: a store need not write a temp
    file); raises SubmissionError listing line-numbered issues.

    ``min_coverage`` (a share, 0-1): a file answering fewer questions is a whole-file error
    (SPEC: the leaderboard's rule; the library applies it only when asked)."""
    bench = _declaration(benchmark)
    if gold.benchmark != bench.id:
        raise ValueError(f"gold is for {gold.benchmark!r}, not {bench.id!r}")
    if min_coverage is not None and not 0 <= min_coverage <= 1:
        raise ValueError(f"min_coverage must be a share between 0 and 1, got {min_coverage!r}")
    log = IssueLog()
    if bench.grounding and bbox_format not in BOX_FORMATS:
        log.add(
            "unknown_bbox_format",
            0,
            "bbox_format",
            f"unknown box format {bbox_format!r}; known: {', '.join(BOX_FORMATS)}",
        )
        log.raise_if_any()
    n = gold.size
    letters = np.full(n, -1, dtype=np.int8)
    first_line = np.zeros(n, dtype=np.int64)
    groundings: dict[int, object] = {}
    unparsed = 0
    key_field = bench.key_field
    letters_text = describe(bench.choices)
    for line_no, obj in read_objects(source, log, _limits_for(gold, limits)):
        if key_field not in obj:
            log.add("missing_question_id", line_no, key_field, f"{key_field} is missing")
            continue
        key = bench.parse_key(obj[key_field])
        row = gold.index.get(key) if key is not None else None
        if row is None:
            log.add("unknown_question_id", line_no, key_field, f"unknown {key_field} {str(obj[key_field])[:60]!r}")
            continue
        if first_line[row]:
            log.add(
                "duplicate_question_id",
                line_no,
                key_field,
                f"{key_field} {key!r} already given on line {first_line[row]}",
            )
            continue
        first_line[row] = line_no
        if "answer" in obj:
            letter = normalize_answer(obj["answer"], bench.choices)
            if letter is None:
                got = str(obj["answer"])[:40]
                log.add("bad_answer", line_no, "answer", f"answer must be a letter {letters_text}, got {got!r}")
                continue
        elif "response" in obj:
            if not isinstance(obj["response"], str):
                log.add("bad_response", line_no, "response", "response must be a string")
                continue
            letter = extract_answer(obj["response"], bench.choices)
            unparsed += letter is None
        else:
            log.add("missing_answer", line_no, "answer", f"each line needs an answer ({letters_text}) or a response")
            continue
        try:
            grounding = bench.read_line(obj, gold, row, bbox_format, letter)
        except LineError as e:
            log.add(e.code, line_no, e.field, str(e))
            continue
        if letter is not None:
            letters[row] = bench.choices.index(letter)
        if grounding is not None:
            groundings[row] = grounding
    if min_coverage is not None:
        _check_coverage(log, int((first_line > 0).sum()), n, min_coverage)
    log.raise_if_any()
    return Predictions(bench.id, gold.version, letters, first_line > 0, groundings, unparsed)


def _check_coverage(log: IssueLog, submitted: int, questions: int, min_coverage: float) -> None:
    """``too_few_answers`` when fewer than ``min_coverage`` of the questions have a line; the
    counts are public (the question list is)."""
    needed = math.ceil(min_coverage * questions - 1e-9)
    if submitted < needed:
        log.add(
            "too_few_answers",
            0,
            "",
            f"the file answers {submitted:,} of {questions:,} questions, {questions - submitted:,} missing; "
            f"a scored file must answer at least {needed:,} ({min_coverage:.0%}). "
            "A partial file can still be checked with validate only.",
        )


def score_predictions(
    benchmark: str | Benchmark, gold: Gold, predictions: Predictions, *, seed: int = BOOTSTRAP_SEED
) -> ResultRecord:
    """Stage 1 (answers) for every question, stage 2 (IoU) for the correct ones, then figures
    (``seed`` seeds the bootstrap intervals: the leaderboard's is secret, see scoring.metrics)."""
    bench = _declaration(benchmark)
    if predictions.gold_version != gold.version:
        raise ValueError("predictions were validated against another gold version")
    letters, submitted, groundings = predictions.letters, predictions.submitted, predictions.groundings
    correct = letters == gold.answers
    inter = union = None
    if bench.overlap is not None and groundings:
        inter = np.zeros(gold.size, dtype=np.float64)
        union = np.zeros(gold.size, dtype=np.float64)
        for row in np.flatnonzero(correct).tolist():
            inter[row], union[row] = bench.overlap(groundings.get(row), gold, row)
    figures = group_figures(question_stats(correct, inter, union), gold.groups, bench.metrics, seed)
    counts = {
        "questions": gold.size,
        "submitted": int(submitted.sum()),
        "missing": int(gold.size - submitted.sum()),
        "unparsed": predictions.unparsed,
    }
    if bench.grounding:
        counts["grounded"] = sum(1 for row in groundings if correct[row])
    overall = figures.pop("overall")[""]
    return ResultRecord(bench.id, gold.version, SCORER_VERSION, counts, overall, figures)
