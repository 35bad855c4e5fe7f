"""The public question list as the VLMEvalKit TSV the site serves (``/questions/{benchmark}.tsv``), in
the published order.

It sits with the families whose row shapes it writes, not in the harness adapters
(``scoring.harness``): the site serves it, and nothing of the app imports the adapters. The order is
the public list's, fixed per gold version: a harness's ``doc_id`` (lmms-eval) or ``index`` (VLMEvalKit)
is a position in it, which is how the site reads their output files back. (lmms-eval's tasks read the
list itself as JSONL.)

- VLMEvalKit: a TSV in its dataset convention (``index``, ``question``, one column per answer
  letter, ``image_path``, ``category``, ``l2-category``; no ``answer``), read by the leaderboard's
  dataset classes (``scoring.harness.vlmevalkit``), which send the benchmark's protocol. Its row shape is the
  benchmark family's (``scoring.benchmarks.families``): text options on one image, or the two-stage
  family's option images (each option cell an ``<image>`` placeholder, ``image_path`` the option images in letter
  order, ``grounding_prompt`` stage 2's prompt). An ``image_path`` resolves from any folder: an
  absolute URL as the list gives it, else the address where the site serves the image
  (``{benchmark}/images/{name}``), relative to the TSV's own (``/questions/{benchmark}.tsv``).
  A benchmark that declares no family has no TSV.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from scoring.benchmarks.base import Benchmark
from scoring.benchmarks.families import image_ref
from scoring.benchmarks.registry import get_benchmark

__all__ = ["NoHarnessShape", "has_tsv", "image_ref", "tsv_columns", "vlmevalkit_tsv"]


class NoHarnessShape(ValueError):
    """The benchmark declares no family, so there is no harness row shape to write."""


def has_tsv(benchmark: Benchmark | str) -> bool:
    """Whether the benchmark's declaration gives a VLMEvalKit row shape (a family)."""
    bench = benchmark if isinstance(benchmark, Benchmark) else get_benchmark(benchmark)
    return bench.family is not None


def tsv_columns(bench: Benchmark) -> tuple[str, ...]:
    if bench.family is None:
        raise NoHarnessShape(f"{bench.name} declares no benchmark family: it has no VLMEvalKit TSV")
    return bench.family.tsv_columns(bench.choices)


def vlmevalkit_tsv(benchmark: Benchmark | str, questions: Sequence[dict]) -> bytes:
    """The list as a VLMEvalKit custom MCQ TSV; ``index`` is the position in the published order."""
    bench = benchmark if isinstance(benchmark, Benchmark) else get_benchmark(benchmark)
    columns = tsv_columns(bench)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, delimiter="\t", lineterminator="\n")
    writer.writeheader()
    for position, q in enumerate(questions):
        writer.writerow(bench.family.tsv_row(bench.id, position, q, bench.choices))
    return out.getvalue().encode("utf-8")
