"""The analysis as one JSON object: what ``python -m leaderboard items --benchmark ID --json`` prints.

    {"benchmark": ..., "gold_version": ..., "submissions": S,
     "questions": [{"question_id", "n", "share_right", "difficulty", "discrimination",
                    "letters": {"A": n, ...}, "wrong_shares": {...}, "grounding": {...}?}, ...],
     "suspects": [{"question_id", "kind": "answer" | "mask", "score",
                   "suggestion": {"answer": "C"} | {"box": [x0, y0, x1, y1]}, "evidence": {...}}, ...]}

Questions in gold order; suspects most suspect first (docs/items.md). Maintainer-only: it holds
per-question correctness under the hidden gold.
"""

from __future__ import annotations

from dataclasses import asdict

from submissions.items.records import Grounding, ItemAnalysis, QuestionStats, Suspect

DIGITS = 4
BOX_DIGITS = 1


def _round(value: object, digits: int = DIGITS) -> object:
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, dict):
        return {k: _round(v, digits) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_round(v, digits) for v in value]
    return value


def _grounding(g: Grounding) -> dict:
    out = _round(asdict(g))
    out["consensus"] = _round(g.consensus, BOX_DIGITS)
    return out


def question_record(q: QuestionStats, choices: str) -> dict:
    out = {
        "question_id": q.question_id,
        "n": q.n,
        "share_right": _round(q.share_right),
        "difficulty": _round(q.difficulty),
        "discrimination": _round(q.discrimination),
        "letters": dict(zip(choices, q.letter_counts, strict=True)),
        "wrong_shares": _round(q.wrong_shares),
    }
    if q.grounding is not None:
        out["grounding"] = _grounding(q.grounding)
    return out


def suspect_record(s: Suspect) -> dict:
    suggestion = {"answer": s.suggestion} if s.kind == "answer" else {"box": _round(s.suggestion, BOX_DIGITS)}
    return {
        "question_id": s.question_id,
        "kind": s.kind,
        "score": _round(s.score),
        "suggestion": suggestion,
        "evidence": _round(asdict(s.evidence)),
    }


def items_json(analysis: ItemAnalysis, benchmark: str, gold_version: str, choices: str) -> dict:
    """The CLI's ``--json`` object (module doc); ``json.dumps`` takes it as it is."""
    return {
        "benchmark": benchmark,
        "gold_version": gold_version,
        "submissions": analysis.submissions,
        "questions": [question_record(q, choices) for q in analysis.questions],
        "suspects": [suspect_record(s) for s in analysis.suspects],
    }
