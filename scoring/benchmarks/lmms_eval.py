"""The lmms-eval task functions of the multiple-choice family, bound to one benchmark's declaration.

A shipped task's ``utils.py`` is a few lines that name its benchmark and hand each of lmms-eval's
hooks (``doc_to_visual``, ``doc_to_text``, ``doc_to_messages``, ``doc_to_target``,
``process_results``, the metric's aggregation) to :class:`ChoiceTask` (after lmms-eval's
``include:`` families: the family is written once, a task names what differs). The prompt is the
declaration's ``answer`` stage and the fields a document keeps its parts in are the family's, so a
new multiple-choice benchmark's task is its yaml plus that short file.

lmms-eval's environment has only this package: a plugin benchmark registers when the module named
in ``LEADERBOARD_PLUGINS`` imports. The accuracy here is the harness's own view by the official
rule (the stripped generation must be exactly one answer letter); the site scores the samples file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from scoring import protocol
from scoring.benchmarks import Benchmark, get_benchmark, load_plugins
from scoring.benchmarks.families import MultipleChoice


def declared(benchmark_id: str) -> Benchmark:
    """The benchmark's declaration, after loading the plugins ``LEADERBOARD_PLUGINS`` names."""
    load_plugins(m.strip() for m in os.environ.get("LEADERBOARD_PLUGINS", "").split(",") if m.strip())
    return get_benchmark(benchmark_id)


@dataclass(frozen=True)
class ChoiceTask:
    """lmms-eval's hooks for one multiple-choice benchmark. A document is a row of the benchmark's
    data set: its image a PIL image in ``image`` (a Hugging Face dataset) or, in a public list, the
    family's image field, a file under ``${ID}_IMAGES`` (default ``images``)."""

    bench: Benchmark

    @classmethod
    def of(cls, benchmark_id: str) -> ChoiceTask:
        bench = declared(benchmark_id)
        if not isinstance(bench.family, MultipleChoice):
            raise RuntimeError(f"benchmark {benchmark_id!r} does not declare the multiple-choice family")
        return cls(bench)

    @property
    def family(self) -> MultipleChoice:
        assert isinstance(self.bench.family, MultipleChoice)
        return self.bench.family

    def doc_to_visual(self, doc: Mapping) -> list:
        image = doc.get("image")
        if hasattr(image, "convert"):
            return [image.convert("RGB")]
        from PIL import Image

        root = Path(os.environ.get(f"{self.bench.id.upper()}_IMAGES", "images"))
        ref = self.family.image_of(doc)
        path = root / ref if (root / ref).is_file() else root / Path(ref).name
        return [Image.open(path).convert("RGB")]

    def parts(self, doc: Mapping) -> tuple:
        return self.bench.protocol["answer"](str(doc[self.family.question]), self.family.option_texts(doc))

    def doc_to_text(self, doc: Mapping) -> str:
        """The text of the protocol's parts (the prompt; the image comes first, see doc_to_messages)."""
        return "\n".join(protocol.text_of(self.parts(doc)))

    def doc_to_messages(self, doc: Mapping) -> list[dict]:
        images = self.doc_to_visual(doc)
        return protocol.user_turn(self.parts(doc), lambda index: {"type": "image", "url": images[index]})

    def doc_to_target(self, doc: Mapping) -> str:
        answer = doc["answer"]
        return self.bench.choices[int(answer)] if str(answer).isdigit() else str(answer)

    @property
    def metric(self) -> str:
        """The name of the task's metric in its yaml (``{id}_acc``)."""
        return f"{self.bench.id}_acc"

    def process_results(self, doc: Mapping, results: list) -> dict:
        generation = results[0].strip()
        category = doc.get(self.family.category)
        return {self.metric: {"pred": generation, "answer": self.doc_to_target(doc), "category": category}}


def aggregate_accuracy(results: list[dict]) -> float:
    """The share of exact-letter answers, in points (the official rule)."""
    if not results:
        return 0.0
    return 100.0 * sum(r["pred"] == r["answer"] for r in results) / len(results)
