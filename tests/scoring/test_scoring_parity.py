"""Scoring speed work moves no figure and no message: the small corpus of perf/scoring_parity.py
(every box format, polygons, masks, responses, K-Viscuit, error files; three bootstrap seeds)
scores to the outputs the code before the speed work gave, pinned as sha256 digests.

Every figure is pinned, intervals included: since scorer 1.3 resampled sums are exact (scoring.metrics),
so the outputs are the same on every machine and thread count. The pins were regenerated for 1.3,
whose only changes are the version and the last digits of ``miou_ci`` (perf/scoring_parity.py
--against the code before reports each differing field and its largest difference).
Regenerate the digests only for a deliberate change of figures:
``perf/scoring_parity.py --small --pin tests/scoring/parity_digests.json``.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from tests.support.scoring import REPO_ROOT

DIGESTS = Path(__file__).with_name("parity_digests.json")


def _parity_module():
    spec = importlib.util.spec_from_file_location("scoring_parity", REPO_ROOT / "perf" / "scoring_parity.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_corpus_scores_to_the_pinned_outputs(tmp_path):
    parity = _parity_module()
    entries = parity.build_corpus(tmp_path / "corpus", None, parity.SMALL_SIZES)
    parity.score_corpus(entries, tmp_path / "out")
    got = parity.portable_digests(tmp_path / "out")
    pinned = json.loads(DIGESTS.read_text(encoding="utf-8"))
    assert got.keys() == pinned.keys()
    assert [name for name in got if got[name] != pinned[name]] == []
