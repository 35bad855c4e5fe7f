"""Small generated fixtures shared by the submission, service, table, CLI and Hub tests.

A 140-question SCB gold (``demo.scb_gold(sizes=(40, 40, 60))``) keeps every scoring call in
the milliseconds; submissions come from ``demo.scb_submission`` so their accuracy is known.
Module-level helpers only: spawned child processes import this module too.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from leaderboard.table import SCORED_SOURCE
from store import layout
from store.base import Store
from submissions.records import Identity, SubmissionForm
from tests.support import demo

SIZES = (40, 40, 60)
N_QUESTIONS = sum(SIZES)
ALICE = Identity("alice")
MAINTAINER = Identity("maintainer", is_maintainer=True)
LEAK_KEYS = ("answer", "segmentation", "width", "height")


@lru_cache(maxsize=4)
def _gold(seed: int) -> tuple[str, ...]:
    return tuple(json.dumps(r) for r in demo.scb_gold(seed=seed, sizes=SIZES))


def small_gold(seed: int = 0) -> list[dict]:
    """A fresh (mutable) copy of the small SCB gold."""
    return [json.loads(r) for r in _gold(seed)]


def write_gold(path: Path, records: list[dict] | None = None) -> Path:
    return demo.write_jsonl(Path(path), small_gold() if records is None else records)


def write_submission(
    path: Path,
    gold: list[dict] | None = None,
    accuracy: float = 0.5,
    grounding: str = "none",
    seed: int = 1,
    box_format: str = "xyxy",
) -> Path:
    gold = small_gold() if gold is None else gold
    return demo.write_jsonl(Path(path), demo.scb_submission(gold, accuracy, grounding, seed, box_format))


def write_broken(path: Path, tag: str = "") -> Path:
    """Four lines: a valid one, bad JSON (line 2), an unknown id (line 3), a bad answer (line 4)."""
    qid = small_gold()[0]["question_id"]
    lines = [
        json.dumps({"question_id": qid, "answer": "A"}),
        "{not json" + tag,
        json.dumps({"question_id": "scb-99999", "answer": "B"}),
        json.dumps({"question_id": small_gold()[1]["question_id"], "answer": "Z"}),
    ]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Path(path)


def form(model: str = "Model", team: str = "Team", **kw: str) -> SubmissionForm:
    return SubmissionForm.of(model=model, team=team, **kw)  # a later field (model_repo=...) goes to info


def settings(data_dir: Path, **kw: object) -> Settings:
    return Settings(data_dir=Path(data_dir), demo=False, **kw)


def board(data_dir: Path, gold_path: Path | None = None, store: Store | None = None, **kw: object) -> Leaderboard:
    """A Leaderboard on ``data_dir``; with ``gold_path``, that SCB gold added (if not yet current)."""
    lb = Leaderboard(settings(data_dir, **kw), store=store)
    if gold_path is not None:
        lb.corrections.add_gold("scb", gold_path, "maintainer")
    return lb


def scored(lb: Leaderboard, benchmark: str = "scb", view: str = "overall"):
    """The table rows scored here (no paper rows)."""
    df = lb.table(benchmark, view)
    return df[df["source"] == SCORED_SOURCE]


def submission_ids(store: Store, benchmark: str = "scb") -> list[str]:
    files = (layout.SubmissionFile.parse(p) for p in store.list("submissions", benchmark))
    return sorted({f.sid for f in files if f is not None and f.kind is layout.Kind.META})


def files_of(store: Store, benchmark: str, sid: str, prefix: str = "") -> list[str]:
    """Names of the files of one submission starting with ``prefix`` (e.g. "result-")."""
    folder = layout.submission_dir(benchmark, sid)
    names = [p.rsplit("/", 1)[1] for p in store.list("submissions", folder)]
    return [n for n in names if n.startswith(prefix)]


def snapshot(store: Store, repo: str = "submissions") -> dict[str, bytes]:
    return {p: store.read(repo, p) for p in store.list(repo)}


def flipped_gold(gold: list[dict], better: list[dict], worse: list[dict], k: int) -> list[dict]:
    """A new gold version where ``k`` questions that ``worse`` got right and ``better`` got wrong
    now take ``better``'s answer: ``better`` gains k, ``worse`` loses k."""
    b = {line["question_id"]: line.get("answer") for line in better}
    w = {line["question_id"]: line.get("answer") for line in worse}
    out, flipped = [], 0
    for r in gold:
        r = dict(r)
        qid = r["question_id"]
        if flipped < k and w.get(qid) == r["answer"] and b.get(qid) not in (None, r["answer"]):
            r["answer"] = b[qid]
            flipped += 1
        out.append(r)
    assert flipped == k, f"only {flipped} questions could be flipped"
    return out
