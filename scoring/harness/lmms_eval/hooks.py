"""The lmms-eval task functions of each benchmark family, bound to one benchmark's declaration.

Each family's ``utils.py`` (``multiple_choice/``, ``two_stage/``, copied into every benchmark's task
folder by :mod:`scoring.harness.lmms_eval.tasks`) hands each of lmms-eval's hooks (``doc_to_visual``,
``doc_to_text``, ``doc_to_messages``, ``doc_to_target``, ``process_results``, the metric's
aggregation) to the family's task class here (after lmms-eval's ``include:`` families: the family is
written once, a benchmark's yaml names what differs):

- :class:`ChoiceTask` (multiple choice): the prompt is the declaration's ``answer`` stage and the
  fields a document keeps its parts in are the family's. A document is a row of the benchmark's Hub
  dataset (with its answer and its image) or of its public question list (neither: the answers are
  hidden, so the target is empty and the task only predicts). The accuracy here is the harness's own
  view by the official rule (the stripped generation must be exactly one answer letter).
- :class:`TwoStageTask`: two tasks, ``{id}_stage1`` (pick the image) and ``{id}_stage2`` (ground in
  the image stage 1 chose, read as the site reads it), the prompts the declaration's ``stage1`` and
  ``stage2``, the model family's box convention one of the family's grounding presets. The gold is
  hidden: these only predict.

Settings, per benchmark: ``${ID}_IMAGES`` (``images`` of :mod:`scoring.harness.inputs`: a folder or an
address, default ``images``), ``${ID}_QUESTIONS`` (the public list, default ``{id}-questions.jsonl``)
and ``${ID}_STAGE1_SAMPLES`` (two stages: stage 1's samples file). A plugin benchmark loads from
``LEADERBOARD_PLUGINS`` as in the app. The site scores the samples files.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from scoring.benchmarks import Benchmark, declared, protocol
from scoring.benchmarks.families import MultipleChoice, TwoStage
from scoring.harness.inputs import image_bytes


def setting(bench: Benchmark, name: str, default: str) -> str:
    """A task's setting from the environment, named after its benchmark (``SCB_IMAGES``)."""
    return os.environ.get(f"{bench.id.upper()}_{name}", default)


def open_image(images: str, ref: str):
    """The image ``ref`` where ``images`` says (:func:`scoring.harness.inputs.locate`), as RGB."""
    from PIL import Image

    return Image.open(io.BytesIO(image_bytes(images, ref)[0])).convert("RGB")


def _image_items(images: Mapping[int, object] | list) -> Callable[[int], dict]:
    """lmms-eval's image item of a protocol's image part (its index into the question's images)."""
    return lambda index: {"type": "image", "url": images[index]}


@dataclass(frozen=True)
class ChoiceTask:
    """lmms-eval's hooks for one multiple-choice benchmark. A document is a row of the benchmark's
    data set: its image a PIL image in ``image`` (a Hugging Face dataset) or, in a public list, the
    family's image field, found where ``${ID}_IMAGES`` says (default ``images``)."""

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
        return [open_image(setting(self.bench, "IMAGES", "images"), self.family.image_of(doc))]

    def parts(self, doc: Mapping) -> tuple:
        return self.bench.protocol["answer"](str(doc[self.family.question]), self.family.option_texts(doc))

    def doc_to_text(self, doc: Mapping) -> str:
        """The text of the protocol's parts (the prompt; the image comes first, see doc_to_messages)."""
        return "\n".join(protocol.text_of(self.parts(doc)))

    def doc_to_messages(self, doc: Mapping) -> list[dict]:
        images = self.doc_to_visual(doc)
        return protocol.user_turn(self.parts(doc), _image_items(images))

    def doc_to_target(self, doc: Mapping) -> str:
        """The answer's letter where the document has one (a Hub dataset's row); "" on a public list,
        whose answers are hidden (lmms-eval asks every logged sample's target)."""
        answer = doc.get("answer")
        if answer is None or answer == "":
            return ""
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


@dataclass(frozen=True)
class TwoStageTask:
    """lmms-eval's hooks for one two-stage benchmark. A document is a row of the benchmark's public
    question list (``${ID}_QUESTIONS``, default ``{id}-questions.jsonl``, the name About downloads), its
    option images found where ``${ID}_IMAGES`` says (default ``images``) by each option's address.
    Stage 2 reads the stage-1 samples file ``${ID}_STAGE1_SAMPLES`` (its ``doc_id`` the row
    of the same list) and the model family's ``grounding_format`` from ``lmms_eval_specific_kwargs``."""

    bench: Benchmark

    @classmethod
    def of(cls, benchmark_id: str) -> TwoStageTask:
        bench = declared(benchmark_id)
        if not isinstance(bench.family, TwoStage):
            raise RuntimeError(f"benchmark {benchmark_id!r} does not declare the two-stage family")
        return cls(bench)

    @property
    def family(self) -> TwoStage:
        assert isinstance(self.bench.family, TwoStage)
        return self.bench.family

    def task(self, stage: str) -> str:
        """lmms-eval's name of a stage's task (``scb_stage1``)."""
        return f"{self.bench.id}_{stage}"

    def image(self, ref: str):
        return open_image(setting(self.bench, "IMAGES", "images"), ref)

    def stage1_parts(self, doc: Mapping) -> tuple:
        return self.bench.protocol["stage1"](doc[self.family.question])

    def stage1_visual(self, doc: Mapping) -> list:
        return [self.image(ref) for ref in self.family.option_images(doc)]

    def stage1_text(self, doc: Mapping) -> str:
        return "\n".join(protocol.text_of(self.stage1_parts(doc)))

    def stage1_messages(self, doc: Mapping) -> list[dict]:
        return protocol.user_turn(self.stage1_parts(doc), _image_items(self.stage1_visual(doc)))

    def chosen_letters(self, samples_path: str) -> dict[int, str | None]:
        """``doc_id`` -> the letter the site reads from the stage-1 response (None: unparsed)."""
        return _stage1_letters(samples_path, _stamp(samples_path), self.bench.choices, self.family)

    def chosen(self, doc: Mapping) -> int:
        """The index of the option stage 1 chose for ``doc`` (option A's when it named none)."""
        samples = setting(self.bench, "STAGE1_SAMPLES", "")
        if not samples:
            variable = f"{self.bench.id.upper()}_STAGE1_SAMPLES"
            raise RuntimeError(f"{self.task('stage2')} needs {variable}: the samples file of {self.task('stage1')}")
        questions = setting(self.bench, "QUESTIONS", f"{self.bench.id}-questions.jsonl")
        row = _positions(questions, _stamp(questions), self.bench.key_field).get(doc[self.bench.key_field])
        letter = self.chosen_letters(samples).get(row) if row is not None else None
        return self.family.chosen_index(letter, self.bench.choices)

    def grounding_format(self, lmms_eval_specific_kwargs: Mapping | None) -> str:
        name = (lmms_eval_specific_kwargs or {}).get("grounding_format")
        if not name:
            raise RuntimeError(
                f"{self.task('stage2')} needs the model family's grounding_format (lmms_eval_specific_kwargs): "
                f"run a variant that names it, e.g. --tasks {self.task('stage2')}_plain "
                "(scoring/harness/lmms_eval/README.md)"
            )
        return name

    def stage2_parts(self, doc: Mapping, lmms_eval_specific_kwargs: Mapping | None) -> tuple:
        grounding_format = self.grounding_format(lmms_eval_specific_kwargs)
        prompt = doc.get(self.family.grounding_prompt) or ""
        return self.bench.protocol["stage2"](prompt, grounding_format, self.chosen(doc))

    def stage2_visual(self, doc: Mapping) -> list:
        return [self.image(self.family.option_images(doc)[self.chosen(doc)])]

    def stage2_text(self, doc: Mapping, lmms_eval_specific_kwargs: Mapping | None = None) -> str:
        return "\n".join(protocol.text_of(self.stage2_parts(doc, lmms_eval_specific_kwargs)))

    def stage2_messages(self, doc: Mapping, lmms_eval_specific_kwargs: Mapping | None = None) -> list[dict]:
        parts = self.stage2_parts(doc, lmms_eval_specific_kwargs)
        return protocol.user_turn(parts, _image_items({self.chosen(doc): self.stage2_visual(doc)[0]}))

    @property
    def metric(self) -> str:
        """The name of both stages' metric in their yaml (``{id}_bypass``): nothing is scored here."""
        return f"{self.bench.id}_bypass"

    def process_results(self, doc: Mapping, results: list) -> dict:
        return {self.metric: 0.0}


def aggregate_nothing(results: list) -> float:
    """A predict-only task's aggregate: the gold is hidden, the site scores the samples files."""
    return 0.0


def _stamp(path: str) -> tuple[int, int]:
    """A file's version for the caches below (a rewritten file is read again)."""
    stat = Path(path).stat()
    return stat.st_mtime_ns, stat.st_size


def _response(sample: Mapping) -> str:
    value = sample.get("filtered_resps", sample.get("resps"))
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else ""


@lru_cache(maxsize=4)
def _stage1_letters(samples_path: str, stamp: tuple, letters: str, family: TwoStage) -> dict[int, str | None]:
    out = {}
    with open(samples_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                sample = json.loads(line)
                out[int(sample["doc_id"])] = family.chosen_letter(_response(sample), letters)
    return out


@lru_cache(maxsize=4)
def _positions(questions_path: str, stamp: tuple, key_field: str) -> dict:
    """Question key -> its row in the public list (stage 1's ``doc_id``)."""
    lines = Path(questions_path).read_text(encoding="utf-8").splitlines()
    return {json.loads(line)[key_field]: row for row, line in enumerate(x for x in lines if x.strip())}
