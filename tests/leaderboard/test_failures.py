"""Where a model fails (issue 44), on hand-made figures with hand-computed answers: groups worst first,
the gap to the model's own overall with the conservative interval sqrt(h_g² + h_o²), the gap to the
board's median with the group's own interval, flags where an interval excludes 0, and SCB's split."""

from __future__ import annotations

import math

from leaderboard.failures import group_lines, split_metrics, split_of
from scoring.benchmarks import get_benchmark

SCB, KV = get_benchmark("scb"), get_benchmark("kviscuit")


def stats(acc, acc_half, miou, miou_half, gacc50, questions=454):
    return {
        "questions": questions,
        "acc": acc,
        "acc_ci": [acc - acc_half, acc + acc_half],
        "miou": miou,
        "miou_ci": [miou - miou_half, miou + miou_half],
        "gacc50": gacc50,
    }


RESULT = {
    "overall": stats(70.0, 2.0, 60.0, 1.5, 40.0, 3178),
    "country": {
        "Thailand": stats(40.0, 5.0, 50.0, 4.0, 20.0),  # acc far under: flagged
        "Cambodia": stats(71.0, 5.0, 61.0, 4.0, 45.0),  # within noise
    },
    "category": {"dance": stats(69.0, 4.0, 10.0, 3.0, 5.0, 636)},  # grounding collapses: flagged by mIoU
}
BOARD = [
    {"country": {"Thailand": {"acc": 80.0, "miou": 55.0}, "Cambodia": {"acc": 70.0}}},
    {"country": {"Thailand": {"acc": 60.004, "miou": 45.0}}},  # shown as 60.00
    {"overall": {"acc": 50.0}},  # no group figures: not counted
]


def test_groups_worst_first_with_hand_computed_gaps():
    lines = group_lines(SCB, RESULT, BOARD)
    assert [line.name for line in lines] == ["Category: Dance", "Country: Thailand", "Country: Cambodia"]
    dance, thailand, cambodia = lines
    acc = next(g for g in thailand.gaps if g.metric.name == "acc")
    assert acc.value == 40.0 and acc.half == 5.0
    assert acc.own.value == -30.0 and math.isclose(acc.own.half, math.sqrt(5.0**2 + 2.0**2)) and acc.own.flagged
    assert acc.board.reference == 70.0 and acc.board.value == -30.0 and acc.board.half == 5.0 and acc.board.flagged
    miou = next(g for g in dance.gaps if g.metric.name == "miou")
    assert miou.own.value == -50.0 and math.isclose(miou.own.half, math.sqrt(3.0**2 + 1.5**2))
    assert miou.board is None  # no board row has a dance mIoU
    assert dance.flagged and thailand.flagged and not cambodia.flagged
    c_acc = next(g for g in cambodia.gaps if g.metric.name == "acc")
    assert c_acc.own.value == 1.0 and not c_acc.own.flagged and c_acc.board.value == 1.0
    assert thailand.questions == 454 and dance.questions == 636


def test_the_split_adds_up_to_the_published_figures():
    assert split_metrics(SCB) is not None and split_metrics(KV) is None  # K-Viscuit grounds nothing
    thailand = split_of(SCB, RESULT["country"]["Thailand"])
    assert (thailand.wrong, thailand.missed, thailand.grounded) == (60.0, 20.0, 20.0)
    assert split_of(SCB, {"acc": 70.0}) is None  # no GAcc@0.5: no split


def test_kviscuit_has_lines_without_a_split():
    result = {
        "overall": {"acc": 80.0, "acc_ci": [78.0, 82.0]},
        "category": {"Religion": {"questions": 27, "acc": 60.0, "acc_ci": [47.0, 73.0]}},
    }
    (line,) = group_lines(KV, result)
    assert line.split is None and line.gaps[0].own.value == -20.0 and line.flagged
    assert line.gaps[0].board is None
