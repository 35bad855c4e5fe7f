"""Shared fixtures for the scoring tests: generated golds, built once, named for what they hold.

Compiling the full 3,178-question SCB gold takes about a second, so golds are session-scoped;
submissions are written per test into ``tmp_path``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import scoring
from tests.support import demo
from tests.support.scoring import REAL_KVISCUIT, compile_gold, rect_polygon, scb_record, with_options


@pytest.fixture(scope="session")
def scb_full_records() -> list[dict]:
    """The demo SCB gold: 3,178 questions, type sizes 840/834/1504, polygon and RLE masks."""
    return demo.scb_gold()


@pytest.fixture(scope="session")
def scb_full_gold(scb_full_records, tmp_path_factory) -> scoring.Gold:
    return compile_gold("scb", tmp_path_factory.mktemp("scb-full") / "gold.jsonl", scb_full_records)


@pytest.fixture(scope="session")
def scb_small_records() -> list[dict]:
    """A 15-question demo SCB gold (5 per type), with at least one RLE mask."""
    return demo.scb_gold(seed=7, sizes=(5, 5, 5))


@pytest.fixture(scope="session")
def scb_small_gold_path(scb_small_records, tmp_path_factory) -> Path:
    return demo.write_jsonl(tmp_path_factory.mktemp("scb-small") / "gold.jsonl", scb_small_records)


@pytest.fixture(scope="session")
def scb_small_gold(scb_small_gold_path) -> scoring.Gold:
    return scoring.load_gold("scb", scb_small_gold_path)


@pytest.fixture(scope="session")
def scb_square_records() -> list[dict]:
    """Three questions on a 200 x 100 image whose gold is the square [10, 10]-[50, 50]
    (1,600 pixels); answers A, B, C; one question per type; four options of that same size."""
    records = [
        scb_record("q1", "A", 200, 100, [rect_polygon(10, 10, 50, 50)], type=1),
        scb_record("q2", "B", 200, 100, [rect_polygon(10, 10, 50, 50)], type=2),
        scb_record("q3", "C", 200, 100, [rect_polygon(10, 10, 50, 50)], type=3),
    ]
    return with_options(records, same_size=1.0)


@pytest.fixture(scope="session")
def scb_square_gold_path(scb_square_records, tmp_path_factory) -> Path:
    return demo.write_jsonl(tmp_path_factory.mktemp("scb-square") / "gold.jsonl", scb_square_records)


@pytest.fixture(scope="session")
def scb_square_gold(scb_square_gold_path) -> scoring.Gold:
    return scoring.load_gold("scb", scb_square_gold_path)


@pytest.fixture(scope="session")
def kviscuit_demo_records() -> list[dict]:
    """The demo K-Viscuit gold: 657 rows, real type/category counts, invented text."""
    return demo.kviscuit_gold()


@pytest.fixture(scope="session")
def kviscuit_demo_gold_path(kviscuit_demo_records, tmp_path_factory) -> Path:
    return demo.write_jsonl(tmp_path_factory.mktemp("kv-demo") / "annotations.jsonl", kviscuit_demo_records)


@pytest.fixture(scope="session")
def kviscuit_demo_gold(kviscuit_demo_gold_path) -> scoring.Gold:
    return scoring.load_gold("kviscuit", kviscuit_demo_gold_path)


@pytest.fixture(scope="session")
def kviscuit_real_records() -> list[dict]:
    """The official K-Viscuit annotations.jsonl (skips when the shared data folder is absent)."""
    if not REAL_KVISCUIT.is_file():
        pytest.skip(f"real K-Viscuit gold not found at {REAL_KVISCUIT}")
    return [json.loads(line) for line in REAL_KVISCUIT.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="session")
def kviscuit_real_gold(kviscuit_real_records) -> scoring.Gold:
    return scoring.load_gold("kviscuit", REAL_KVISCUIT)
