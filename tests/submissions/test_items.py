"""Item analysis (submissions/items): the 2PL fit and leave-one-out abilities against independent
computations, the answer ranking on hand-built questions (a wrong key is a suspect, a hard question
with an attractive distractor is not), box IoUs against pycocotools, mask suspects, the bound on
boxes read, and the CLI's JSON shape."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from pycocotools import mask as coco_mask

from scoring.geometry import MaskTable, Runs
from submissions.items import ItemGold, Responses, analyse, grounding, irt, items_json, letters

CHOICES = "ABCD"


def two_pl_answers(rng, ability, slope, difficulty):
    p = irt.sigmoid(slope * (ability[:, None] - difficulty))
    return (rng.random(p.shape) < p).astype(np.float64)


def test_the_2pl_fit_recovers_abilities_and_item_parameters():
    rng = np.random.default_rng(1)
    ability, slope, difficulty = rng.normal(0, 1, 80), rng.lognormal(0.2, 0.3, 300), rng.normal(0, 1, 300)
    right = two_pl_answers(rng, ability, slope, difficulty)
    fit = irt.fit_2pl(right, np.ones_like(right, dtype=bool))
    assert np.corrcoef(fit.ability, ability)[0, 1] > 0.95
    assert np.corrcoef(fit.intercept, -slope * difficulty)[0, 1] > 0.95
    assert np.corrcoef(-fit.intercept / fit.slope, difficulty)[0, 1] > 0.85  # b = -d / a: noisier
    assert np.corrcoef(fit.slope, slope)[0, 1] > 0.5


def exact_ability_without(fit: irt.Fit, right: np.ndarray, model: int, question: int) -> float:
    """Newton to convergence on one submission's log posterior without one question, item
    parameters held: what the leave-one-out step approximates."""
    keep = np.arange(right.shape[1]) != question
    a, d, y = fit.slope[keep], fit.intercept[keep], right[model, keep]
    theta = fit.ability[model]
    for _ in range(50):
        p = 1 / (1 + np.exp(-(a * theta + d)))
        theta += ((a * (y - p)).sum() - theta) / ((a * a * p * (1 - p)).sum() + 1)
    return theta


def test_leave_one_out_abilities_match_a_refit_without_the_question():
    rng = np.random.default_rng(2)
    ability, slope, difficulty = rng.normal(0, 1, 30), rng.lognormal(0.2, 0.3, 40), rng.normal(0, 1, 40)
    right = two_pl_answers(rng, ability, slope, difficulty)
    answered = np.ones_like(right, dtype=bool)
    fit = irt.fit_2pl(right, answered)
    loo = irt.loo_abilities(fit, right, answered)
    for model, question in [(0, 0), (3, 17), (29, 39), (11, 5)]:
        assert loo[model, question] == pytest.approx(exact_ability_without(fit, right, model, question), abs=0.02)
    assert np.abs(loo - fit.ability[:, None]).max() > 0.05  # leaving a question out does move abilities


def board(seed: int = 3, models: int = 30, questions: int = 200):
    """A 2PL board of right answers: the true letter (A) when known, else a uniform guess."""
    rng = np.random.default_rng(seed)
    ability = np.linspace(-2, 2, models)
    know = two_pl_answers(rng, ability, np.full(questions, 1.3), rng.normal(0, 1, questions)) > 0
    choices = np.where(know, 0, rng.integers(0, 4, (models, questions)))
    return rng, ability, choices


def test_a_wrong_key_is_a_suspect_and_a_hard_question_with_a_lure_is_not():
    rng, ability, choices = board()
    rank = np.argsort(np.argsort(-ability))  # 0 for the ablest
    wrong_key = np.where(ability > -0.4, 2, rng.integers(0, 4, ability.size))  # the able choose C
    lure = np.where(ability > 0.7, 1, np.where(rng.random(ability.size) < 0.8, 3, 1))  # weak drawn to D
    hard = np.where(rank < 3, 0, 1 + np.arange(ability.size) % 3)  # only the top 3 know it
    hard_lure = np.where(rank < 6, 1, 3)  # only the top 6 right: D outvotes the gold B
    extra = np.stack([wrong_key, lure, hard, hard_lure], axis=1)
    gold = ItemGold(list(range(204)), CHOICES, np.r_[np.zeros(200, int), 0, 1, 0, 1])
    result = analyse(gold, Responses(np.hstack([choices, extra])))
    suspects = {s.row: s for s in result.suspects}
    assert set(suspects) == {200}
    assert suspects[200].kind == "answer" and suspects[200].suggestion == "C"
    top = suspects[200].evidence.bands[0]
    assert top.name == "top" and top.chose_suggestion == top.answered == 10 and top.chose_gold == 0
    assert result.questions[201].share_right <= 0.5  # the lure's question is hard...
    assert result.questions[201].wrong_shares["D"] > 0.8  # ...and D draws its wrong answers
    assert result.questions[202].discrimination > 0  # the hard question separates the top 3
    # The hard lure: the accuracy-weighted votes favour D well past the listing score, but D
    # draws the weak (negative discrimination) and the top band keeps B: not a suspect.
    everything = np.hstack([choices, extra])
    right, answered = (everything == gold.answers).astype(float), everything >= 0
    loo = irt.loo_abilities(irt.fit_2pl(right, answered), right, answered)
    table = letters.letter_table(everything, right, loo, 4)
    rival, margin = letters._rivals(table, gold.answers)
    assert rival[203] == 3 and margin[203] > 2 * letters.ANSWER_MIN_SCORE
    assert result.questions[203].discrimination > 0


def test_the_answer_score_is_the_accuracy_weighted_vote_margin():
    """Independent of letters.py's arrays: loop over submissions, one-coin weights by hand."""
    _, _, choices = board(seed=4)
    choices[:15, 7] = 2  # the weaker half votes C on question 7, gold A
    gold = np.zeros(choices.shape[1], dtype=np.int64)
    right = (choices == 0).astype(float)
    table = letters.letter_table(choices, right, np.zeros(choices.shape, float), 4)
    by_hand = 0.0
    for m in range(choices.shape[0]):
        others = np.delete(right[m], 7)
        p = min(max(others.mean(), 0.25), 0.99)
        weight = math.log(3 * p / (1 - p))
        by_hand += weight * (int(choices[m, 7] == 2) - int(choices[m, 7] == 0))
    _, margin = letters._rivals(table, gold)
    assert margin[7] == pytest.approx(by_hand)


def rectangle_mask(x0, y0, x1, y1, width=200, height=160) -> Runs:
    return Runs.from_polygons([[x0, y0, x1, y0, x1, y1, x0, y1]], height, width)


def test_box_ious_and_mask_extents_match_pycocotools():
    rng = np.random.default_rng(5)
    parts = [[20, 30, 120, 25, 150, 90, 60, 140, 25, 100], [10, 10, 60, 10, 60, 50]]
    masks = MaskTable.of(
        [
            Runs.from_polygons([parts[0]], 160, 200),
            Runs.from_polygons([parts[1], [100, 100, 180, 100, 140, 150]], 160, 200),
        ]
    )
    boxes = np.full((6, 2, 4), np.nan)
    corner = rng.uniform(0, 100, (6, 2, 2))
    boxes[..., :2], boxes[..., 2:] = corner, corner + rng.uniform(10, 90, (6, 2, 2))
    choices = np.zeros((6, 2), dtype=np.int64)
    slots = grounding.pickers(choices, np.zeros(2, dtype=np.int64), boxes, np.arange(6.0), 6)
    ious = grounding.gold_ious(masks, slots)
    extents, ceiling = grounding.mask_extents(masks)
    for q in range(2):
        rle = masks.rle(q)
        dense = coco_mask.decode(rle)
        ys, xs = np.nonzero(dense)
        assert extents[q].tolist() == [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
        assert ceiling[q] == pytest.approx(dense.sum() / ((np.ptp(xs) + 1) * (np.ptp(ys) + 1)))
        for s in range(6):
            m = slots.model[s, q]
            x0, y0, x1, y1 = boxes[m, q]
            box = coco_mask.frPyObjects(np.array([[x0, y0, x1 - x0, y1 - y0]]), 160, 200)
            assert ious[s, q] == pytest.approx(coco_mask.iou(box, [rle], [0])[0][0], abs=1e-12)


def grounding_board(rng, moved: int, scattered: int, precise=range(6)):
    """40 rectangles; 12 models choose the gold image and box near the true rectangle (two with an
    offset, the ``precise`` ones closer); question ``moved`` has its gold region moved away,
    ``scattered`` has scattered boxes."""
    questions, models = 40, 12
    x0, y0 = rng.uniform(10, 100, questions), rng.uniform(10, 70, questions)
    truth = np.stack([x0, y0, x0 + 60, y0 + 50], axis=1)
    seen = truth.copy()
    seen[moved] = [120 if x0[moved] < 60 else 5, 100, 180 if x0[moved] < 60 else 60, 150]
    masks = MaskTable.of(rectangle_mask(*box) for box in seen)
    noise = np.where(np.isin(np.arange(models), list(precise)), 2.0, 6.0)[:, None, None]
    boxes = truth[None] + rng.normal(0, 1, (models, questions, 4)) * noise
    boxes[[2, 9]] += [12, 0, 12, 0]  # systematic offsets
    boxes[:, scattered] = truth[scattered] + rng.normal(0, 40, (models, 4))
    boxes[..., 2:] = np.maximum(boxes[..., 2:], boxes[..., :2] + 5)
    choices = np.zeros((models, questions), dtype=np.int64)
    choices[rng.random(choices.shape) < 0.1] = 1
    gold = ItemGold([f"q{i}" for i in range(questions)], CHOICES, np.zeros(questions, int), masks)
    return gold, Responses(choices, boxes), truth


def test_a_moved_gold_region_is_a_mask_suspect_and_scattered_boxes_are_not():
    rng = np.random.default_rng(6)
    gold, responses, truth = grounding_board(rng, moved=7, scattered=9)
    result = analyse(gold, responses)
    masks = [s for s in result.suspects if s.kind == "mask"]
    assert [s.question_id for s in masks] == ["q7"]
    consensus = np.array(masks[0].suggestion)
    assert grounding.box_iou(consensus, truth[7]) > 0.8
    assert masks[0].evidence.against >= 3 and masks[0].evidence.consensus_iou == 0.0
    assert result.questions[9].grounding.agreement < 0.5
    assert result.questions[3].grounding.iou_quartiles[1] > 0.7


def test_a_question_suspected_of_a_wrong_key_is_not_also_a_mask_suspect():
    """Its gold-image pickers boxed an image that is likely not the right one: the answer comes
    first; the mask is judged again under the corrected gold."""
    rng = np.random.default_rng(9)
    gold, responses, _ = grounding_board(rng, moved=7, scattered=9, precise=range(6, 12))
    choices = responses.choices.copy()
    choices[:6] = 0  # the first six answer everything right...
    choices[6:] = np.where(rng.random((6, 40)) < 0.3, 1, 0)  # ...the others miss 30 %
    choices[:6, 7] = 2  # on question 7 the ablest choose C; the precise grounders keep A
    choices[6:, 7] = 0
    alone = analyse(gold, Responses(choices, responses.boxes), answer_min_score=1e9)
    assert [(s.question_id, s.kind) for s in alone.suspects] == [("q7", "mask")]  # a mask suspect by itself
    both = analyse(gold, Responses(choices, responses.boxes))
    assert [(s.question_id, s.kind, s.suggestion) for s in both.suspects] == [("q7", "answer", "C")]


def test_boxes_read_per_question_are_bounded_and_the_ablest_come_first():
    rng = np.random.default_rng(7)
    gold, responses, _ = grounding_board(rng, moved=0, scattered=1)
    choices = np.zeros_like(responses.choices)
    ability = np.arange(12.0)
    slots = grounding.pickers(choices, gold.answers, responses.boxes, ability, 4)
    assert slots.model.shape == (4, 40)
    assert (slots.model == np.array([[11], [10], [9], [8]])).all()
    result = analyse(gold, Responses(choices, responses.boxes), max_boxes=4)
    assert {q.grounding.boxes for q in result.questions} == {4}
    single = analyse(gold, Responses(choices.astype(np.int8), responses.boxes.astype(np.float32)), max_boxes=4)
    assert [s.question_id for s in single.suspects] == [s.question_id for s in result.suspects] == ["q0"]


def test_the_cli_json_object():
    rng = np.random.default_rng(8)
    gold, responses, _ = grounding_board(rng, moved=3, scattered=9)
    choices = responses.choices.copy()
    choices[:8, 5] = 2  # the ablest (by their other answers) choose C on question 5
    choices[8:, :] = np.where(rng.random((4, 40)) < 0.5, choices[8:, :], rng.integers(0, 4, (4, 40)))
    analysis = analyse(gold, Responses(choices, responses.boxes), answer_min_score=2.0)
    out = json.loads(json.dumps(items_json(analysis, "scb", "v1", CHOICES)))
    assert (out["benchmark"], out["gold_version"], out["submissions"]) == ("scb", "v1", 12)
    assert [q["question_id"] for q in out["questions"]] == [f"q{i}" for i in range(40)]
    assert {"question_id", "n", "difficulty", "discrimination", "letters", "grounding"} <= set(out["questions"][0])
    kinds = [(s["question_id"], s["kind"]) for s in out["suspects"]]
    assert kinds[:2] == [("q5", "answer"), ("q3", "mask")]  # each kind's first, in turns
    answer, mask = out["suspects"][:2]
    assert answer["suggestion"] == {"answer": "C"} and answer["evidence"]["gold"] == "A"
    assert len(mask["suggestion"]["box"]) == 4 and isinstance(mask["score"], float)


def test_bad_input_names_what_is_wrong():
    gold = ItemGold(["a", "b"], CHOICES, np.array([0, 3]))
    with pytest.raises(ValueError, match="choices: expected submissions x 2"):
        analyse(gold, Responses(np.zeros((3, 5), dtype=np.int8)))
    with pytest.raises(ValueError, match="letter index 0-3"):
        analyse(gold, Responses(np.full((3, 2), 4)))
    with pytest.raises(ValueError, match="no masks"):
        analyse(gold, Responses(np.zeros((3, 2), dtype=np.int8), np.zeros((3, 2, 4))))
    with pytest.raises(ValueError, match="gold answers"):
        ItemGold(["a"], CHOICES, np.array([4]))


def test_no_submissions_and_unanswered_questions_give_empty_statistics():
    gold = ItemGold(["a", "b"], CHOICES, np.array([0, 1]))
    empty = analyse(gold, Responses(np.zeros((0, 2), dtype=np.int8)))
    assert [q.n for q in empty.questions] == [0, 0] and empty.suspects == ()
    some = analyse(gold, Responses(np.array([[0, -1], [1, -1], [0, -1]])))
    assert some.questions[1].n == 0 and some.questions[1].share_right is None
    assert some.questions[1].difficulty is None and some.questions[1].discrimination is None
    assert some.questions[0].letter_counts == (2, 1, 0, 0) and some.questions[0].wrong_shares["B"] == 1.0
