"""Where every record lives in the three repos: the one place that spells paths.

gold (private)
    {benchmark}/{version}.{ext}              a gold file as the maintainer gave it
    {benchmark}/current.json                 {"version", "file", "added_at", "added_by"}
submissions (private)
    {benchmark}/{id}/submission.jsonl        the raw upload (immutable)
    {benchmark}/{id}/meta.json               SubmissionMeta (immutable)
    {benchmark}/{id}/validated-{gold}.json   passed validation against that gold
    {benchmark}/{id}/rejected-{gold}.json    format errors against that gold (immutable)
    {benchmark}/{id}/result-{gold}-{scorer}.json  a ResultRecord (immutable; rescoring adds)
    {benchmark}/{id}/failure-{gold}-{n}.json an internal error while scoring on that gold (retried)
    moderation/{id}.json                     {"hidden": bool, "by", "at"} (overwritten)
results (public)
    README.md, data/{benchmark}.parquet, data/{benchmark}.csv
    questions/{benchmark}.jsonl              the public side of the questions (no answers)
"""

from __future__ import annotations

GOLD_KEY = 16
"""Characters of the gold sha256 used in file names (64 bits: collisions are not a concern)."""


def gold_file(benchmark: str, version: str, ext: str) -> str:
    return f"{benchmark}/{version}{ext}"


def gold_current(benchmark: str) -> str:
    return f"{benchmark}/current.json"


def submission_dir(benchmark: str, sid: str) -> str:
    return f"{benchmark}/{sid}"


def raw(benchmark: str, sid: str) -> str:
    return f"{benchmark}/{sid}/submission.jsonl"


def meta(benchmark: str, sid: str) -> str:
    return f"{benchmark}/{sid}/meta.json"


def validated(benchmark: str, sid: str, gold_version: str) -> str:
    return f"{benchmark}/{sid}/validated-{gold_version[:GOLD_KEY]}.json"


def rejected(benchmark: str, sid: str, gold_version: str) -> str:
    return f"{benchmark}/{sid}/rejected-{gold_version[:GOLD_KEY]}.json"


def result(benchmark: str, sid: str, gold_version: str, scorer_version: str) -> str:
    return f"{benchmark}/{sid}/result-{gold_version[:GOLD_KEY]}-{scorer_version}.json"


def failure(benchmark: str, sid: str, gold_version: str, n: int) -> str:
    return f"{benchmark}/{sid}/failure-{gold_version[:GOLD_KEY]}-{n}.json"


def moderation(sid: str) -> str:
    return f"moderation/{sid}.json"


def public_table(benchmark: str, ext: str) -> str:
    return f"data/{benchmark}.{ext}"


def public_questions(benchmark: str) -> str:
    return f"questions/{benchmark}.jsonl"
