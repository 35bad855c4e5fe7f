"""Every registered benchmark through a known-good and a known-bad file (STYLE: one test for all).

The good file is the declaration's own ``example_lines`` (what the About page shows submitters),
scored against that benchmark's declared demo gold (its folder's ``demo.py``); the bad file is the
same lines plus a repeated first line and a line that is not JSON.
"""

from __future__ import annotations

import pytest

import scoring
from scoring import SubmissionError
from tests.support import demo
from tests.support.scoring import write_lines


@pytest.mark.parametrize("bench_id", list(scoring.BENCHMARKS))
def test_known_good_and_known_bad_file(bench_id, tmp_path):
    assert scoring.get_benchmark(bench_id).demo is not None, f"declare a demo (the demo= slot) for {bench_id}"
    bench = scoring.get_benchmark(bench_id)
    gold = scoring.load_gold(bench_id, demo.write_jsonl(tmp_path / "gold.jsonl", demo.demo_of(bench_id).gold(0)))
    examples = list(bench.example_lines)
    assert examples, f"{bench_id} declares no example lines"

    result = scoring.score_file(bench, gold, write_lines(tmp_path / "good.jsonl", examples))
    assert result.benchmark == bench_id and result.gold_version == gold.version
    assert result.counts["questions"] == gold.size
    assert result.counts["submitted"] == len(examples)
    assert result.counts["missing"] == gold.size - len(examples)
    assert set(result.groups) == {g.name for g in bench.groupings}
    for metric in bench.metrics:
        assert metric.name in result.overall
        if metric.ci:
            assert metric.ci in result.overall
    record = result.to_dict()
    assert scoring.ResultRecord.from_dict(record) == result

    bad = [*examples, examples[0], "this is not JSON"]
    with pytest.raises(SubmissionError) as e:
        scoring.score_file(bench, gold, write_lines(tmp_path / "bad.jsonl", bad))
    n = len(examples)
    assert [(i.code, i.line) for i in e.value.issues] == [("duplicate_question_id", n + 1), ("json_decode", n + 2)]
    assert e.value.total == 2


def test_unknown_benchmark_lists_the_known_ones():
    with pytest.raises(ValueError) as e:
        scoring.get_benchmark("nope")
    assert all(b in str(e.value) for b in scoring.BENCHMARKS)
