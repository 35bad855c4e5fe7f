"""Scoring takes a file's path or its bytes alike, and compiled gold comes from the one cache."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import scoring
from scoring import SubmissionError
from scoring.cache import GoldCache
from scoring.jsonl import Limits
from tests.support import demo
from tests.support.scoring import write_lines


@pytest.mark.parametrize("bench_id", list(scoring.BENCHMARKS))
def test_bytes_score_and_fail_exactly_as_the_file_does(bench_id, tmp_path):
    gold = scoring.load_gold(bench_id, demo.write_jsonl(tmp_path / "gold.jsonl", demo.demo_of(bench_id).gold(0)))
    examples = list(scoring.get_benchmark(bench_id).example_lines)
    good = write_lines(tmp_path / "good.jsonl", examples)
    assert scoring.score_file(bench_id, gold, good.read_bytes()) == scoring.score_file(bench_id, gold, good)

    bad = write_lines(tmp_path / "bad.jsonl", [*examples, examples[0], "this is not JSON"])
    found = []
    for source in (bad, bad.read_bytes()):
        with pytest.raises(SubmissionError) as e:
            scoring.validate_file(bench_id, gold, source)
        found.append(([(i.code, i.line, i.field) for i in e.value.issues], e.value.total))
    assert found[0] == found[1] and found[0][1] == 2


def test_bytes_over_the_size_limit_are_refused_before_reading(kviscuit_demo_gold):
    with pytest.raises(SubmissionError) as e:
        scoring.validate_file("kviscuit", kviscuit_demo_gold, b"{}\n" * 100, limits=Limits(max_bytes=299))
    assert [(i.code, i.line) for i in e.value.issues] == [("file_too_large", 0)]


def _same_gold(a: scoring.Gold, b: scoring.Gold) -> bool:
    return a.version == b.version and a.keys == b.keys and np.array_equal(a.answers, b.answers)


def test_one_cache_entry_serves_a_path_and_the_same_bytes(scb_small_gold_path, tmp_path):
    cache = GoldCache(tmp_path / "cache")
    from_path = cache.load("scb", scb_small_gold_path)
    (entry,) = (tmp_path / "cache").glob("*.pickle")
    stamp = entry.stat().st_mtime_ns
    from_bytes = cache.load("scb", scb_small_gold_path.read_bytes(), ".jsonl")
    assert entry.stat().st_mtime_ns == stamp  # read, not compiled and written again
    assert _same_gold(from_path, from_bytes)
    assert _same_gold(from_path, scoring.load_gold("scb", scb_small_gold_path))


def test_an_unreadable_entry_is_compiled_again(scb_small_gold_path, tmp_path):
    cache = GoldCache(tmp_path / "cache")
    data = scb_small_gold_path.read_bytes()
    entry = cache.entry("scb", data, ".jsonl")
    entry.parent.mkdir()
    entry.write_bytes(pickle.dumps(["not", "gold"])[:5])
    assert _same_gold(cache.load("scb", data, ".jsonl"), scoring.load_gold("scb", scb_small_gold_path))
    assert isinstance(pickle.loads(entry.read_bytes()), scoring.Gold)


def test_no_folder_compiles_and_writes_nothing(scb_small_gold_path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    gold = GoldCache(None).load("scb", scb_small_gold_path.read_bytes(), ".jsonl")
    assert _same_gold(gold, scoring.load_gold("scb", scb_small_gold_path))
    assert list(tmp_path.iterdir()) == []
