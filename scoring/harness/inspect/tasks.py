"""Each benchmark family's Inspect AI task, read from the benchmark's declaration
(:func:`multiple_choice_task`, :func:`two_stage_task`), with the question list and images from files or
addresses and the leaderboard's protocol turned into Inspect messages.

``questions`` and ``images`` mean what they mean for every harness (:mod:`scoring.harness.inputs`): the
public question list (the app's ``/questions/<benchmark>.jsonl``, or a downloaded copy), and a folder or
an address where each image is found by its file name (the app's ``/questions/<benchmark>/images`` on the
embedded default, or wherever the benchmark publishes its images).

The tasks are registered with Inspect by the package's entry point (:mod:`._registry`), one per
benchmark that declares a family: ``inspect eval scoring/<id> -T questions=... -T images=...``.
"""

from __future__ import annotations

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText, get_model
from inspect_ai.solver import Generate, TaskState, generate, solver
from inspect_ai.util import materialize_media

from scoring.benchmarks import Benchmark, declared
from scoring.benchmarks.families import MultipleChoice, TwoStage
from scoring.benchmarks.protocol import TextPart
from scoring.harness.inputs import locate, read_list
from scoring.readers.inspect_log import store_keys


def user_message(parts, image_refs: list[str] | dict[int, str]) -> ChatMessageUser:
    """The protocol's parts (text, image index) as one Inspect user message."""
    content = [
        ContentText(text=p.text) if isinstance(p, TextPart) else ContentImage(image=image_refs[p.index]) for p in parts
    ]
    return ChatMessageUser(content=content)


def _choice_sample(bench: Benchmark, question: dict, images: str) -> Sample:
    family = bench.family
    parts = bench.protocol["answer"](str(question[family.question]), family.option_texts(question))
    metadata = {bench.key_echo: question.get(bench.key_echo, "")} if bench.key_echo else {}
    return Sample(
        id=question[bench.key_field],
        input=[user_message(parts, [locate(images, family.image_of(question))])],
        metadata=metadata,
    )


def multiple_choice_task(benchmark: str, questions: str, images: str) -> Task:
    """A multiple-choice benchmark's task, from its declaration: the family's fields and prompt, one
    sample per question, its id the benchmark's key (plugins named in ``LEADERBOARD_PLUGINS`` load first)."""
    bench = declared(benchmark)
    if not isinstance(bench.family, MultipleChoice):
        raise ValueError(f"benchmark {benchmark!r} does not declare the multiple-choice family")
    dataset = MemoryDataset([_choice_sample(bench, q, images) for q in read_list(questions)], name=bench.id)
    return Task(dataset=dataset, solver=generate(), name=bench.id)


def _two_stage_sample(bench: Benchmark, question: dict, images: str) -> Sample:
    family = bench.family
    refs = [locate(images, ref) for ref in family.option_images(question)]
    return Sample(
        id=question[bench.key_field],
        input=[user_message(bench.protocol["stage1"](question.get(family.question, "")), refs)],
        metadata={"images": refs, "grounding_prompt": question.get(family.grounding_prompt, "")},
    )


def two_stages_of(bench: Benchmark):
    """The two-stage solver of ``bench``: stage 1 on the sample's input; stage 2 on the chosen image
    (read as the site reads the stage-1 answer), as its own request. Inspect logs a solver's
    arguments: only ``grounding_format`` is one, the declaration is this closure's."""
    family, letters, store = bench.family, bench.choices, store_keys(bench.id)

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
    bench = declared(benchmark)
    if not isinstance(bench.family, TwoStage):
        raise ValueError(f"benchmark {benchmark!r} does not declare the two-stage family")
    dataset = MemoryDataset([_two_stage_sample(bench, q, images) for q in read_list(questions)], name=bench.id)
    return Task(dataset=dataset, solver=two_stages_of(bench)(grounding_format), name=bench.id)
