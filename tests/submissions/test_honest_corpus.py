"""The probe detector against honest iteration (issue 19): an honest-iteration corpus
(tests/support/honest.py: grounding-only ablations, prompt variants of a model that refuses,
checkpoints of one model, a few teams sending one open model's answers) is never held, while
probe series built the same ways (a few answers, a few boxes, refusals as padding) still are."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from leaderboard.service import Leaderboard
from submissions.probes import FLAG_AFTER, UNREAD
from submissions.records import Identity, Status
from submissions.request import SubmitRequest
from tests.support import honest
from tests.support.submissions import board, form, write_gold


def run(tmp_path: Path, series: honest.Series) -> tuple[Leaderboard, list]:
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"), max_scored_per_day=50)  # a week's work
    answers = []
    for i, (who, team, model, body) in enumerate(series):
        path = honest.write(tmp_path / f"f{i}.jsonl", body)
        answers.append(
            lb.submissions.submit(SubmitRequest("scb", path, form(model, team, visibility="private"), Identity(who)))
        )
    return lb, answers


CORPUS = list(honest.corpus())


@pytest.mark.parametrize(("name", "seed", "series"), CORPUS, ids=[f"{n}-{s}" for n, s, _ in CORPUS])
def test_the_honest_corpus_is_never_held(tmp_path: Path, name: str, seed: int, series: honest.Series) -> None:
    lb, answers = run(tmp_path, series)
    assert all(a.status is Status.SCORED for a in answers), [a.message for a in answers]
    held = [a.submission_id for a in answers if lb.moderation.is_held(a.submission_id)]
    assert held == [], [lb.catalog.get(s).moderation for s in held]
    assert lb.moderation.probe_report("scb") == []
    for a in answers:  # every answer says why it is shown or not
        assert a.reason is not None and a.reason.code in {"shown", "ladder_withheld"}, a.message


def test_refusals_count_as_answers_not_as_missing(tmp_path: Path) -> None:
    """An honest API model refusing 7 % of the questions is no partial file (review turn 3, #3)."""
    lb, answers = run(tmp_path, honest.refusals(0)[:1])
    (found,) = [p for p in lb.probes.report(lb.catalog.all("scb"), lb.golds.get("scb"), lb.moderation.is_held)] or [
        None
    ]
    state = lb.catalog.get(answers[0].submission_id)
    letters = lb.probes.answers(state, lb.golds.get("scb")).letters
    assert (letters == UNREAD).sum() > 0 and (letters == -1).sum() == 0
    assert answers[0].notes and answers[0].notes[0].code == "unparsed_lines"
    assert "counts as a wrong answer" in answers[0].notes[0].message


def probe_series(tmp_path: Path, make) -> tuple[Leaderboard, list]:
    """A base file and FLAG_AFTER + 1 probes of it from one account, each made by ``make(base, i)``."""
    body = honest.grounding(0)[0][3]
    probes = [("mallory", "M Lab", "M", make(body, i)) for i in range(FLAG_AFTER + 1)]
    series = [("mallory", "M Lab", "M", body), *probes]
    return run(tmp_path, series)


def test_a_probe_of_a_few_boxes_with_the_same_answers_is_still_flagged(tmp_path: Path) -> None:
    def move_one_box(body: list[dict], i: int) -> list[dict]:
        out = [dict(line) for line in body]
        x0, y0, x1, y1 = out[i]["bbox"]
        out[i]["bbox"] = [x0, y0, x0 + (x1 - x0) / 3, y0 + (y1 - y0) / 3]
        return out

    lb, answers = probe_series(tmp_path, move_one_box)
    (flag,) = lb.moderation.probe_report("scb")
    assert flag.flagged_at == FLAG_AFTER + 1 and all("boxes moved" in p.reasons[0] for p in flag.evidence)
    last = answers[-1]
    assert lb.moderation.is_held(last.submission_id) and last.reason.code == "held_for_review"
    assert "only a few boxes moved" in last.message


def test_answer_probes_with_jittered_boxes_are_still_flagged(tmp_path: Path) -> None:
    """Moving every box does not hide a file that also flips a few answers."""
    rng = np.random.default_rng(5)

    def flip_and_jitter(body: list[dict], i: int) -> list[dict]:
        out = [dict(line, bbox=[v * rng.uniform(0.5, 1.5) for v in line["bbox"]]) for line in body]
        letter = out[i].get("answer", "A")
        out[i]["answer"] = "B" if letter != "B" else "C"
        out[i].pop("response", None)
        return out

    lb, _answers = probe_series(tmp_path, flip_and_jitter)
    (flag,) = lb.moderation.probe_report("scb")
    assert all("differs from own" in p.reasons[0] for p in flag.evidence)


def test_refusals_as_padding_do_not_hide_a_partial_probe(tmp_path: Path) -> None:
    """The review's partial file, with refusals in place of the missing lines: no letter in most lines."""

    def refuse_all_but(body: list[dict], i: int) -> list[dict]:
        out = [{"question_id": line["question_id"], "response": honest.REFUSALS[0]} for line in body]
        out[i] = {"question_id": body[i]["question_id"], "answer": "A"}
        return out

    lb, answers = probe_series(tmp_path, refuse_all_but)
    (flag,) = lb.moderation.probe_report("scb")
    assert any("state no letter" in r for p in flag.evidence for r in p.reasons)
    assert lb.moderation.is_held(answers[-1].submission_id) and "most lines state no answer" in answers[-1].message
