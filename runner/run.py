"""One run: every question not yet in the output file, a bounded number at a time.

The model is anything with an OpenAI-compatible ``/chat/completions`` (vLLM, TGI, SGLang, OpenAI,
Gemini's OpenAI-compatible API). Retries with exponential backoff on 408/409/429/5xx and connection
errors (honouring ``Retry-After``) are the ``openai`` client's own; a question that still fails is
left out of the file and reported, so ``--resume`` asks it again.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from runner import protocol
from runner.images import Images
from runner.outfile import LineWriter, finished
from runner.questions import ChoiceQuestion, ScbQuestion
from scoring.answers import read_response
from scoring.benchmarks import Benchmark


@dataclass(frozen=True)
class Endpoint:
    """How to reach the model: the OpenAI client's settings and the generation settings."""

    base_url: str
    model: str
    api_key: str
    max_retries: int = 6
    timeout: float = 300.0
    max_tokens: int = 512
    temperature: float = 0.0

    def client(self):
        from openai import OpenAI  # the official client: retries, backoff and Retry-After done right

        return OpenAI(base_url=self.base_url, api_key=self.api_key, max_retries=self.max_retries, timeout=self.timeout)


Chat = Callable[[list[dict]], str]


def chat_with(endpoint: Endpoint) -> Chat:
    """``POST /chat/completions`` through the client's ``post`` (its retries, backoff, errors and
    response model), with the request body as given: ``chat.completions.create`` first walks every
    message part against the SDK's typed-dict declarations, about half the runner's CPU for a question
    with four inline images (``perf/runner_cost.py``), to send the same JSON."""
    from openai.types.chat import ChatCompletion

    client = endpoint.client()

    def chat(messages: list[dict]) -> str:
        body = {
            "model": endpoint.model,
            "messages": messages,
            "max_tokens": endpoint.max_tokens,
            "temperature": endpoint.temperature,
        }
        reply = client.post("/chat/completions", body=body, cast_to=ChatCompletion)
        return reply.choices[0].message.content or ""

    return chat


def scb_line(question: ScbQuestion, chat: Chat, images: Images, preset: protocol.GroundingPreset) -> dict:
    """Stage 1, then stage 2 on the chosen image; no stage 2 when stage 1 names no letter. Each
    option image is read (or fetched) once: stage 2 sends the part stage 1 sent."""
    parts = [images.part(o.ref) for o in question.options]
    response = chat(protocol.scb_stage1(question, parts))
    line = {"question_id": question.question_id, "response": response}
    letter = read_response(response, protocol.LETTERS).letter
    if letter is not None:
        chosen = parts[protocol.LETTERS.index(letter)]  # question.option(letter)'s
        line["grounding_response"] = chat(protocol.scb_stage2(question, chosen, preset))
        line |= protocol.grounding_fields(preset)
    return line


def choice_line(question: ChoiceQuestion, chat: Chat, images: Images, bench: Benchmark) -> dict:
    """A multiple-choice question: the model's response under the benchmark's key field."""
    return {
        bench.key_field: question.question_id,
        "response": chat(protocol.choice(question, images.part(question.image_ref), bench)),
    }


@dataclass
class Outcome:
    written: int = 0
    skipped: int = 0
    failed: dict[str, str] = field(default_factory=dict)  # question_id -> the last error


def run(
    questions: Iterable,
    answer: Callable[[object], dict],
    out: Path,
    *,
    resume: bool,
    concurrency: int,
    progress: bool = True,
    key: str = "question_id",
) -> Outcome:
    """Answer every question not in ``out`` (all of them unless ``resume``), ``concurrency`` at a time;
    ``key``: the field of a line that names its question."""
    done = finished(out, key) if resume else {}
    todo = [q for q in questions if str(q.question_id) not in done]
    outcome = Outcome(skipped=len(done))
    writer = LineWriter(out, fresh=not resume)
    bar = _bar(len(todo) + len(done), len(done), progress)
    try:
        with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            pending: dict[Future, object] = {}
            queue = iter(todo)
            for q in _take(queue, concurrency * 2):
                pending[pool.submit(answer, q)] = q
            while pending:
                ready, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in ready:
                    q = pending.pop(future)
                    try:
                        writer.write(future.result())
                        outcome.written += 1
                    except Exception as e:  # noqa: BLE001 (a failed question is reported, the run goes on)
                        outcome.failed[str(q.question_id)] = f"{type(e).__name__}: {e}"
                    bar.update(1)
                    for nxt in _take(queue, 1):
                        pending[pool.submit(answer, nxt)] = nxt
    finally:
        writer.close()
        bar.close()
    return outcome


def _take(it, n: int) -> list:
    out = []
    for _ in range(n):
        try:
            out.append(next(it))
        except StopIteration:
            break
    return out


def _bar(total: int, initial: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="q", file=sys.stderr, disable=not enabled, dynamic_ncols=True)
