"""A line's errors depend on public facts only (SPEC "Submission format"), under hostile input.

Red-team finding 1: a polygon's "outline too long" error printed 100 x (width + height) of the
hidden gold image, and other checks compared with the gold size. Here 10,000+ seeded random
hostile lines (boxes in every format, polygons, masks, ``bbox_ref_size``, huge and tiny numbers,
wrong and unreadable answers, guesses of the gold size) go through the validator, and:

- every message is searched for the numbers derived from that question's gold (sizes,
  multiples, mask area; :class:`GoldSecrets`), except the line's own echoed input and the public
  size of the option the line answered;
- the same lines are validated against a *twin* gold that differs only in what is hidden (the
  answer letter, hence the gold image size, and the mask): every issue must be identical, which
  catches a dependence that prints no number (an equality test, a threshold).

Both golds are checked: one with public option sizes (most options differ in size from the gold,
so the sizes would name the answer) and one in the older format without options.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from pycocotools import mask as coco_mask

import scoring
from scoring import SubmissionError
from scoring.answers import extract_answer, normalize_answer
from scoring.benchmarks.scb.declaration import SCB
from scoring.engine import validate_file
from scoring.errors import MAX_LISTED
from tests.hardening.secrets import GoldSecrets, numbers_in, size_numbers
from tests.support import demo
from tests.support.scoring import OTHER_OPTION_SIZES, rect_polygon, with_options

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")

LINES = 10_200
SCORER_CONSTANTS = numbers_in("1 1000 10,000 20,000 100,000 1,000,000 10,000,000 50")
"""Numbers the validator's messages may print whatever the gold is (its fixed limits)."""
FORMATS = ("xyxy", "xywh", "xyxy_norm", "xyxy_1000", "yxyx_1000")


@dataclass(frozen=True)
class Case:
    """A gold, its twin (same public side, other hidden side) and the finder of its secrets."""

    name: str
    records: list[dict]
    gold: scoring.Gold
    twin: scoring.Gold
    secrets: GoldSecrets
    twin_secrets: GoldSecrets


def twin_records(records: list[dict], seed: int) -> list[dict]:
    """Same questions and options, another answer: the gold image becomes that option (its
    size), or, without options, another size; the mask is a rectangle inside it."""
    rng = random.Random(seed)
    out = []
    for r in records:
        letter = rng.choice([x for x in "ABCD" if x != r["answer"]])
        if "options" in r:
            opt = r["options"]["ABCD".index(letter)]
            w, h, image_id = opt["width"], opt["height"], opt["image_id"]
        else:
            w, h = rng.choice([s for s in OTHER_OPTION_SIZES if s != (r["width"], r["height"])])
            image_id = r["image_id"]
        x0, y0 = rng.uniform(0, w / 2), rng.uniform(0, h / 2)
        polygon = rect_polygon(x0, y0, x0 + rng.uniform(10, w / 2), y0 + rng.uniform(10, h / 2))
        twin = {"answer": letter, "image_id": image_id, "width": w, "height": h, "segmentation": [polygon]}
        out.append(r | twin)
    return out


def build_case(name: str, records: list[dict], folder: Path) -> Case:
    twin = twin_records(records, seed=len(records))
    gold = scoring.load_gold("scb", demo.write_jsonl(folder / f"{name}.jsonl", records))
    twin_gold = scoring.load_gold("scb", demo.write_jsonl(folder / f"{name}-twin.jsonl", twin))
    assert twin_gold.version != gold.version
    return Case(name, records, gold, twin_gold, GoldSecrets.from_scb(records), GoldSecrets.from_scb(twin))


@pytest.fixture(scope="module")
def cases(tmp_path_factory) -> list[Case]:
    folder = tmp_path_factory.mktemp("geometry-secrecy")
    with_opts = with_options(demo.scb_gold(seed=3, sizes=(10, 10, 10)), seed=3, same_size=0.25)
    plain = demo.scb_gold(seed=4, sizes=(10, 10, 10))
    return [build_case("options", with_opts, folder), build_case("plain", plain, folder)]


# --------------------------------------------------------------------------- hostile lines


def number_pool(rng: random.Random, rec: dict) -> list[float]:
    """Numbers an attacker would try: edges of every range, huge and tiny ones, the public
    option sizes and guesses of the hidden gold size (which must then count as echoes)."""
    sizes = [(o["width"], o["height"]) for o in rec.get("options", [])] + [(rec["width"], rec["height"])]
    w, h = rng.choice(sizes)
    return [
        0, 1, -1, 0.5, 0.001, 1e-300, 1e300, 1e12, -1e12, 1e7, 999.9, 1000, 1001, 100_000,
        w, h, w - 1, h + 1, 2 * w, 100 * (w + h), rng.uniform(-50, 3000), rng.uniform(0, 1),
        rng.randint(0, 5000),
    ]  # fmt: skip


def hostile_answer(rng: random.Random) -> dict:
    roll = rng.random()
    letter = rng.choice("ABCD")
    if roll < 0.6:
        return {"answer": rng.choice([letter, letter.lower(), f"({letter.lower()})", f"{letter}."])}
    if roll < 0.72:
        return {"response": f"The answer is ({letter})."}
    if roll < 0.84:
        return {"response": rng.choice(["I cannot tell.", "A or B?", "", "The answer is a drum."])}
    if roll < 0.92:
        return {"answer": rng.choice(["E", "AB", "", None, 3])}
    return {}


def hostile_size(rng: random.Random, rec: dict) -> object:
    """A mask size: the public options' and the hidden gold's (as [h, w] and swapped), odd ones."""
    opts = [(o["height"], o["width"]) for o in rec.get("options", [])] + [(rec["height"], rec["width"])]
    h, w = rng.choice(opts)
    return rng.choice([[h, w], [h, w], [w, h], [1, 1], [0, 5], [h, w, 1], "x", [h + 1, w], [1e300, 2]])


def hostile_mask(rng: random.Random, rec: dict) -> object:
    size = hostile_size(rng, rec)
    if rng.random() < 0.05:
        return rng.choice([[1, 2, 3], {"size": size}, "mask", {"counts": "01"}])
    ok = isinstance(size, list) and len(size) == 2 and all(isinstance(v, int) and 0 < v < 10_000 for v in size)
    area = size[0] * size[1] if ok else 100
    choices = [[0, area], [area], [5, area - 5], [0, area + 1], [-5, area + 5], [1e300, 5], "01", "\u00e9\u00e9"]
    counts = rng.choice(choices)
    if ok and rng.random() < 0.3:  # a valid compressed RLE of a box on that grid
        h, w = size
        box = np.array([[rng.uniform(0, w / 2), rng.uniform(0, h / 2), w / 3, h / 3]])
        rle = coco_mask.frPyObjects(box, h, w)[0]
        counts = rle["counts"].decode()
    return {"size": size, "counts": counts}


def hostile_polygon(rng: random.Random, pool: list[float]) -> object:
    roll = rng.random()
    if roll < 0.08:  # the red-team's probe: with bbox_ref_size [1, 100000] the outline is 2000 x width
        return [[0, 0, 1000, 0, 1000, 0.001]]
    if roll < 0.1:
        return [[float(i % 50), float(i % 37)] for i in range(20_001 + rng.randint(0, 5))]
    if roll < 0.13:
        return rng.choice(["x", [], [[0, 0, 10]], [[0, 0, "a", 0, 10, 10]], [[True, 0, 5, 5, 9, 0]]])
    parts = []
    for _ in range(rng.randint(1, 3)):
        n = rng.randint(2, 12)
        corner = [rng.uniform(-50, 3000), rng.uniform(-50, 3000)]
        pts = [[rng.choice(pool), rng.choice(pool)] if rng.random() < 0.3 else corner for _ in range(n)]
        pts = [[x + rng.uniform(0, 40), y + rng.uniform(0, 40)] if rng.random() < 0.7 else [x, y] for x, y in pts]
        parts.append(pts if rng.random() < 0.5 else [c for p in pts for c in p])
    return parts


def hostile_box(rng: random.Random, pool: list[float]) -> object:
    roll = rng.random()
    if roll < 0.05:
        return rng.choice(["0 0 5 5", [1, 2, 3], [1, 2, "3", 4], [True, 0, 5, 5]])
    values = [rng.choice(pool) for _ in range(4)]
    if roll < 0.6:  # mostly well ordered, so that the range checks are reached
        values = sorted(values[:2]) + sorted(values[2:])
        values = [values[0], values[2], values[1], values[3]] if rng.random() < 0.5 else values
    return values


def hostile_line(rng: random.Random, rec: dict) -> dict:
    pool = number_pool(rng, rec)
    line: dict = {"question_id": rec["question_id"]} | hostile_answer(rng)
    kind = rng.choice(["none", "bbox", "bbox", "polygon", "polygon", "mask", "two"])
    if kind in ("bbox", "two"):
        line["bbox"] = hostile_box(rng, pool)
    if kind in ("polygon", "two"):
        line["polygon"] = hostile_polygon(rng, pool)
    if kind == "mask":
        line["mask"] = hostile_mask(rng, rec)
    if rng.random() < 0.5:
        line["bbox_format"] = rng.choice([*FORMATS, *FORMATS, "cxcywh", 7])
    if rng.random() < 0.45:
        sizes = [[o["width"], o["height"]] for o in rec.get("options", [])] + [[rec["width"], rec["height"]]]
        line["bbox_ref_size"] = rng.choice(
            [[1, 100_000], [100_000, 1], [rng.randint(1, 5000), rng.randint(1, 5000)], [0, 0], [1e-300, 5],
             rng.choice(sizes), [1.5, 2.5], "x", [1, 1]]
        )  # fmt: skip
    return line


# --------------------------------------------------------------------------- checking


def answered_letter(line: dict) -> str | None:
    """The letter the validator reads from a line (SPEC "answer", "response")."""
    if "answer" in line:
        return normalize_answer(line["answer"], SCB.choices)
    return extract_answer(line["response"], SCB.choices) if isinstance(line.get("response"), str) else None


def issues_of(gold: scoring.Gold, path: Path) -> list[tuple]:
    try:
        validate_file("scb", gold, path)
    except SubmissionError as e:
        assert e.total == len(e.issues) <= MAX_LISTED
        return [(i.code, i.line, i.field, i.message) for i in e.issues]
    return []


def public_numbers(rec: dict, line: dict) -> set[int]:
    """What a message about this line may print: fixed limits, the answered option's size."""
    letter = answered_letter(line)
    if letter is None or "options" not in rec:
        return set(SCORER_CONSTANTS)
    opt = rec["options"]["ABCD".index(letter)]
    return set(SCORER_CONSTANTS) | size_numbers(opt["width"], opt["height"])


def leaked(case: Case, rec: dict, line_text: str, message: str) -> list[int]:
    public = public_numbers(rec, json.loads(line_text))
    qid = rec["question_id"]
    found = case.secrets.numbers_leaked(message, qid, line_text, public)
    return found + case.twin_secrets.numbers_leaked(message, qid, line_text, public)


def test_hostile_lines_get_errors_that_do_not_depend_on_the_gold(cases, tmp_path):
    rng = random.Random(20240611)
    sent = 0
    codes: dict[str, int] = {}
    problems: list[str] = []
    path = tmp_path / "chunk.jsonl"
    while sent < LINES:
        case = cases[sent // MAX_LISTED % len(cases)]
        records = rng.sample(case.records, MAX_LISTED)  # one line per question, each line listed
        texts = [json.dumps(hostile_line(rng, rec), separators=(",", ":")) for rec in records]
        path.write_text("\n".join(texts) + "\n")
        sent += len(texts)
        found, in_twin = issues_of(case.gold, path), issues_of(case.twin, path)
        if found != in_twin:
            problems.append(f"{case.name}: the twin gold changes the errors: {found} != {in_twin}")
        for code, line_no, _field, message in found:
            codes[code] = codes.get(code, 0) + 1
            if line_no and (hits := leaked(case, records[line_no - 1], texts[line_no - 1], message)):
                problems.append(f"{case.name} {texts[line_no - 1][:200]} -> {message!r} holds gold numbers {hits}")
    assert problems == [], f"{len(problems)} problem(s), first ones:\n" + "\n".join(problems[:8])
    assert sent >= 10_000  # no wall-clock bound here: validation speed is perf/bench_precheck.py's to measure
    for code in ("polygon_too_complex", "coordinate_out_of_range", "mask_size_mismatch", "box_out_of_range"):
        assert codes.get(code, 0) >= 20, (code, codes)  # the generator reaches every gold-sensitive check


def test_the_number_finder_sees_the_red_team_message():
    rec = {"question_id": "scb-00385", "width": 2355, "height": 1794, "segmentation": [rect_polygon(0, 0, 10, 10)]}
    secrets = GoldSecrets.from_scb([rec | {"answer": "C"}])
    message = "polygon outline is 4710000 px long, more than 50x the image perimeter (414900 px)"
    assert secrets.numbers_leaked(message, "scb-00385") == [414900, 4710000]
    assert secrets.numbers_leaked("mask size differs from [1,794, 2,355]", "scb-00385") == [1794, 2355]
    assert secrets.numbers_leaked(message, "scb-00385", line_text="[4710000]") == [414900]
    assert secrets.numbers_leaked(message, "scb-00385", public=size_numbers(2355, 1794)) == []
    assert secrets.leaks("the image is [1794, 2355]") and secrets.leaks("2355 x 1794")
