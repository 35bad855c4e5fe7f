"""Toy, the example of a third benchmark: one folder, loaded as a plugin
(``LEADERBOARD_PLUGINS=scoring.benchmarks.toy``), nothing outside it naming it. CVQA-like: multiple
choice over one image, its own field names (``qid``, ``prompt``, ``choices``, ``img``), per-country and
per-language groups, hidden answers with a public question list, a citation, no Hub dataset and no
paper rows. Loading it as a plugin registers ``BENCHMARK`` (with its demo); importing it registers nothing."""

from scoring.benchmarks.toy.declaration import TOY

BENCHMARK = TOY
