"""What the Inspect AI tasks share: the question list and images, from files or URLs, the
leaderboard's protocol turned into Inspect messages, and each benchmark family's task, read from
the benchmark's declaration (:func:`multiple_choice_task`, :func:`two_stage_task`).

``questions``: the public question list as JSON Lines (the app's ``/questions/<benchmark>.jsonl``,
or a downloaded copy). ``images``: a folder, or an address to which an image's file name is
appended (the app's ``/questions/<benchmark>/images`` on the embedded default, or wherever the
benchmark publishes its images): an option's ``url`` (SCB) or ``image_path`` / ``image_url``
(K-Viscuit) is looked up there by its path, then by its file name.

The prompts are the leaderboard's own (the benchmark's declaration in ``scoring.benchmarks``, which
the runner and the other harnesses read), so Inspect's environment needs the leaderboard's scoring package:
``pip install ./scoring`` from a checkout. Without it the task stops and says so.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText, get_model
from inspect_ai.solver import Generate, TaskState, generate, solver
from inspect_ai.util import materialize_media

MAX_LIST_BYTES = 64 * 1024 * 1024  # a question list larger than this is not one of ours


def scoring(module: str):
    """``scoring.<module>`` of the leaderboard, or a clear instruction to install it."""
    try:
        return __import__(f"scoring.{module}", fromlist=[module])
    except ImportError as e:
        raise RuntimeError(
            "the Inspect tasks need the leaderboard's scoring package for the benchmark's prompts and to "
            "read answers as the site does: pip install ./scoring (from a checkout of the leaderboard)"
        ) from e


def _is_url(ref: str) -> bool:
    return ref.startswith(("http://", "https://"))


def read_questions(questions: str) -> list[dict]:
    """The question list's records, in its order (a file path or a URL)."""
    if _is_url(questions):
        with urllib.request.urlopen(questions, timeout=60) as answer:  # noqa: S310 (an http(s) address)
            data = answer.read(MAX_LIST_BYTES + 1)
    else:
        data = Path(questions).read_bytes()
    if len(data) > MAX_LIST_BYTES:
        raise ValueError(f"{questions}: more than {MAX_LIST_BYTES} bytes; not a question list")
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]


def image_ref(images: str, ref: str) -> str:
    """Where an image is: ``images``/ref (a folder holding it by its path, else by its name) or ``images``/name."""
    name = ref.rsplit("/", 1)[-1]
    if _is_url(images):
        return f"{images.rstrip('/')}/{name}"
    root = Path(images)
    return str(root / ref if (root / ref).is_file() else root / name)


def user_message(parts, image_refs: list[str] | dict[int, str]) -> ChatMessageUser:
    """The protocol's parts (text, image index) as one Inspect user message."""
    protocol = scoring("protocol")
    content = [
        ContentText(text=p.text) if isinstance(p, protocol.TextPart) else ContentImage(image=image_refs[p.index])
        for p in parts
    ]
    return ChatMessageUser(content=content)


def _choice_sample(bench, question: dict, images: str) -> Sample:
    family = bench.family
    parts = bench.protocol["answer"](str(question[family.question]), family.option_texts(question))
    metadata = {bench.key_echo: question.get(bench.key_echo, "")} if bench.key_echo else {}
    return Sample(
        id=question[bench.key_field],
        input=[user_message(parts, [image_ref(images, family.image_of(question))])],
        metadata=metadata,
    )


def multiple_choice_task(benchmark: str, questions: str, images: str) -> Task:
    """A multiple-choice benchmark's task, from its declaration: the family's fields and prompt, one
    sample per question, its id the benchmark's key (plugins named in ``LEADERBOARD_PLUGINS`` load first)."""
    bench = scoring("benchmarks.lmms_eval").declared(benchmark)
    if not isinstance(bench.family, scoring("benchmarks.families").MultipleChoice):
        raise ValueError(f"benchmark {benchmark!r} does not declare the multiple-choice family")
    dataset = MemoryDataset([_choice_sample(bench, q, images) for q in read_questions(questions)], name=bench.id)
    return Task(dataset=dataset, solver=generate(), name=bench.id)


def _two_stage_sample(bench, question: dict, images: str) -> Sample:
    family = bench.family
    refs = [image_ref(images, ref) for ref in family.option_images(question)]
    return Sample(
        id=question[bench.key_field],
        input=[user_message(bench.protocol["stage1"](question.get(family.question, "")), refs)],
        metadata={"images": refs, "grounding_prompt": question.get(family.grounding_prompt, "")},
    )


def two_stages_of(bench):
    """The two-stage solver of ``bench``: stage 1 on the sample's input; stage 2 on the chosen image
    (read as the site reads the stage-1 answer), as its own request. Inspect logs a solver's
    arguments: only ``grounding_format`` is one, the declaration is this closure's."""
    family, letters, store = bench.family, bench.choices, scoring("inspect_log").store_keys(bench.id)

    @solver(name="two_stages")
    def two_stages(grounding_format: str):
        family.grounding_preset(grounding_format)  # an unknown family stops the task here, naming the known

        async def solve(state: TaskState, generate: Generate) -> TaskState:
            state = await generate(state)
            first = state.output.completion
            chosen = family.chosen_index(family.chosen_letter(first, letters), letters)
            parts = bench.protocol["stage2"](state.metadata["grounding_prompt"], grounding_format, chosen)
            image = await materialize_media(state.metadata["images"][chosen])  # inspect inlines the input's; ours
            second = await get_model().generate([user_message(parts, {chosen: image})])
            state.store.set(store["stage1"], first)
            state.store.set(store["stage2"], second.completion)
            state.store.set(store["family"], grounding_format)
            state.output = second
            return state

        return solve

    return two_stages


def two_stage_task(benchmark: str, questions: str, images: str, grounding_format: str) -> Task:
    """A two-stage benchmark's task, from its declaration: both stages in one sample, its id the
    benchmark's key, stage 2 asked in the convention of ``grounding_format`` (one of the family's
    grounding presets); plugins named in ``LEADERBOARD_PLUGINS`` load first."""
    bench = scoring("benchmarks.lmms_eval").declared(benchmark)
    if not isinstance(bench.family, scoring("benchmarks.families").TwoStage):
        raise ValueError(f"benchmark {benchmark!r} does not declare the two-stage family")
    dataset = MemoryDataset([_two_stage_sample(bench, q, images) for q in read_questions(questions)], name=bench.id)
    return Task(dataset=dataset, solver=two_stages_of(bench)(grounding_format), name=bench.id)
