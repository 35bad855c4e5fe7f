"""The leaderboard's benchmarks as VLMEvalKit dataset classes (its custom-dataset mechanism: an
``ImageBaseDataset`` subclass with its own ``build_prompt``), reading the TSV the site offers
(``/questions/{benchmark}.tsv``), so VLMEvalKit asks what the benchmark's declaration says; one class
per family, bound to a benchmark by its id (a dataset is named after the declaration's ``harness_name``):

- :class:`TwoStage1` (``{NAME}_LB``): "Image A:" and option A's image ... then the question and the
  instruction to answer with a letter.
- :class:`TwoStage2` (``{NAME}_LB_STAGE2``): per question, the option image the site reads from the
  model's stage-1 answer (VLMEvalKit's stage-1 prediction file), then the grounding prompt with the
  model family's output convention. Its prediction file carries both answers (``stage1_prediction``,
  ``prediction``) and the family (``grounding_format``): it is the one file to upload.
- :class:`MultipleChoice` (``{NAME}_LB``): the image, then the prompt, one column per answer letter.

``force_use_dataset_prompt`` makes VLMEvalKit send the declared prompts to every model, also to models
that bring their own MCQ prompt. The gold is hidden: :meth:`evaluate` scores nothing; the site does.

Images resolve from any folder: an ``image_path`` is a file under ``$LMUData/images/<dataset>/``
(where VLMEvalKit keeps a dataset's images; put the benchmark's images there when the site does not
serve them), an absolute path, or a URL (relative ones against the TSV's own address), fetched once
into that folder, each bounded in size and time. A TSV with VLMEvalKit's base64 ``image`` column
is decoded by VLMEvalKit's own code instead.
"""

from __future__ import annotations

import json
import os
import os.path as osp
import urllib.parse
import urllib.request

import pandas as pd
from vlmeval.dataset.image_base import ImageBaseDataset
from vlmeval.smp import LMUDataRoot, read_ok, toliststr

from scoring.benchmarks import declared
from scoring.harness.vlmevalkit import prompts

MAX_IMAGE_BYTES = 64 * 1024 * 1024
MAX_TSV_BYTES = 256 * 1024 * 1024
FETCH_TIMEOUT = 60  # seconds per image or TSV


def _is_url(ref: str) -> bool:
    return ref.startswith(("http://", "https://"))


def fetch(url: str, target: str, limit: int) -> str:
    """``url`` saved at ``target`` (written whole, then renamed), refusing more than ``limit`` bytes."""
    with urllib.request.urlopen(url, timeout=FETCH_TIMEOUT) as response:  # noqa: S310 (the leaderboard's or the benchmark's host)
        body = response.read(limit + 1)
    if len(body) > limit:
        raise ValueError(f"{url}: larger than {limit:,} bytes")
    os.makedirs(osp.dirname(target) or ".", exist_ok=True)
    partial = f"{target}.part"
    with open(partial, "wb") as f:
        f.write(body)
    os.replace(partial, target)
    return target


class LeaderboardDataset(ImageBaseDataset):
    """A leaderboard benchmark read from its TSV (``tsv``: a path or the site's URL; default
    ``$LMUData/<dataset>.tsv``)."""

    TYPE = "MCQ"
    MODALITY = "IMAGE"
    NAME = ""
    force_use_dataset_prompt = True

    def __init__(self, dataset: str | None = None, tsv: str | None = None, **_):
        name = dataset or self.NAME
        self.tsv = tsv or osp.join(LMUDataRoot(), f"{name}.tsv")
        super().__init__(dataset=name, skip_noimg=False)

    @classmethod
    def supported_datasets(cls):
        return [cls.NAME]

    def load_data(self, dataset):
        """The TSV as written: every cell a string (VLMEvalKit's ``load`` would read an option "None"
        as NaN and "007" as 7), ``image_path`` lists decoded as JSON (not evaluated)."""
        path = self.tsv
        if _is_url(path):
            path = fetch(path, osp.join(LMUDataRoot(), f"{dataset}.tsv"), MAX_TSV_BYTES)
        data = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
        if "image_path" in data:
            data["image_path"] = [json.loads(p) if p.startswith("[") else p for p in data["image_path"]]
        return data

    def image(self, ref: str) -> str:
        """The local file of one ``image_path`` reference (see the module doc for where it looks)."""
        name = osp.basename(urllib.parse.urlparse(ref).path) or ref
        target = osp.join(self.img_root, name)
        if read_ok(target):
            return target
        if osp.isabs(ref) and read_ok(ref):
            return ref
        url = ref if _is_url(ref) else urllib.parse.urljoin(self.tsv, ref) if _is_url(self.tsv) else None
        if url is None:
            beside = osp.join(osp.dirname(osp.abspath(self.tsv)), ref)
            if read_ok(beside):
                return beside
            raise FileNotFoundError(f"image {ref!r}: put it at {target} (or use the TSV's URL from the leaderboard)")
        try:
            return fetch(url, target, MAX_IMAGE_BYTES)
        except (OSError, ValueError) as e:  # a deployment whose site serves no images: the team puts them there
            raise FileNotFoundError(f"image {ref!r}: {url}: {e}; put the image at {target}") from e

    def dump_image(self, line):
        if "image" in line:  # VLMEvalKit's base64 convention: its own code decodes it
            return super().dump_image(line)
        return [self.image(ref) for ref in toliststr(line["image_path"])]

    def row(self, line):
        return self.data.iloc[line] if isinstance(line, int) else line

    def evaluate(self, eval_file, **judge_kwargs):
        """The gold is hidden: the leaderboard scores the file (upload it there)."""
        return {"scored_by": "the leaderboard", "upload": str(eval_file)}


def dataset_name(benchmark: str, stage: str = "") -> str:
    """VLMEvalKit's name of a benchmark's dataset (``{harness_name}_LB``, ``_STAGE2`` for stage 2): the
    name its prediction files carry."""
    return f"{declared(benchmark).harness_name}_LB{stage}"


class TwoStage1(LeaderboardDataset):
    """Stage 1 of a two-stage benchmark (``benchmark``: its id)."""

    def __init__(self, dataset=None, tsv=None, benchmark=None, **_):
        self.benchmark = benchmark or ""
        super().__init__(dataset=dataset or dataset_name(self.benchmark), tsv=tsv)

    def build_prompt(self, line):
        line = self.row(line)
        return prompts.stage1(self.benchmark, line["question"], self.dump_image(line))


class TwoStage2(LeaderboardDataset):
    """Stage 2 on the image stage 1 chose. ``stage1``: VLMEvalKit's prediction file of
    :class:`TwoStage1` (same TSV); ``grounding_format``: the model family (one of the benchmark's
    grounding presets), whose box convention is asked for and written on every row."""

    def __init__(self, dataset=None, tsv=None, benchmark=None, stage1=None, grounding_format=None, **_):
        self.benchmark = benchmark or ""
        if not stage1 or not grounding_format:
            raise ValueError(
                f"{dataset_name(self.benchmark, '_STAGE2')} needs stage1 (the stage-1 file) and grounding_format"
            )
        self.stage1, self.family = stage1, grounding_format
        prompts.grounding_columns(self.benchmark, grounding_format)  # an unknown family stops here, naming the known
        super().__init__(dataset=dataset or dataset_name(self.benchmark, "_STAGE2"), tsv=tsv)

    def post_build(self, dataset):
        answers = _stage1_predictions(self.stage1)
        answered = [str(i) in answers for i in self.data["index"]]
        if not any(answered):
            raise ValueError(f"{self.stage1} answers none of this TSV's questions: is it this TSV's stage-1 file?")
        self.data = self.data[answered].copy()  # a stage-1 run with --limit: stage 2 of the same questions
        self.data["stage1_prediction"] = [answers[str(i)] for i in self.data["index"]]
        for column, value in prompts.grounding_columns(self.benchmark, self.family).items():
            self.data[column] = value

    def build_prompt(self, line):
        line = self.row(line)
        chosen = prompts.chosen_option(self.benchmark, line["stage1_prediction"])
        chosen = 0 if chosen is None else chosen  # no letter: the site counts it wrong and ignores the box
        ref = toliststr(line["image_path"])[chosen]
        return prompts.stage2(self.benchmark, line["grounding_prompt"], self.family, chosen, {chosen: self.image(ref)})


def _stage1_predictions(path: str) -> dict[str, str]:
    """index -> stage-1 prediction text of a VLMEvalKit prediction file (.xlsx, .tsv or .json)."""
    from vlmeval.smp import load

    frame = load(path)
    return {str(i): "" if pd.isna(p) else str(p) for i, p in zip(frame["index"], frame["prediction"], strict=True)}


class MultipleChoice(LeaderboardDataset):
    """A multiple-choice benchmark's TSV (``benchmark``: its id)."""

    def __init__(self, dataset=None, tsv=None, benchmark=None, **_):
        self.benchmark = benchmark or ""
        self.letters = declared(self.benchmark).choices  # an unknown id stops here, naming the known
        super().__init__(dataset=dataset or dataset_name(self.benchmark), tsv=tsv)

    def build_prompt(self, line):
        line = self.row(line)
        (image,) = self.dump_image(line)
        return prompts.multiple_choice(self.benchmark, line["question"], [line[c] for c in self.letters], image)


CLASSES = (TwoStage1, TwoStage2, MultipleChoice)


def register() -> None:
    """Make the classes known to ``vlmeval.dataset`` by name, as VLMEvalKit's ``--config`` looks
    them up (``"class": "TwoStage1"``, with ``"benchmark"`` among its arguments)."""
    import vlmeval.dataset

    for cls in CLASSES:
        setattr(vlmeval.dataset, cls.__name__, cls)
