"""Score one submission file against compiled gold: the one way in for every caller.

``score_file`` streams the file, collects line-numbered issues (nothing is scored if there is
any), turns valid lines into per-question arrays and hands them to the metric reducers.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from scoring import batch, boxcheck
from scoring.answers import describe, normalize_answer, read_response
from scoring.benchmarks import Benchmark, get_benchmark
from scoring.benchmarks.base import Stat
from scoring.errors import MAX_LISTED, Issue, LineError, SubmissionError
from scoring.geometry import BOX_FORMATS
from scoring.gold import Gold
from scoring.grounding_formats import GroundingTally, describe_formats, known_format
from scoring.hints import key_hint
from scoring.jsonl import IssueLog, Limits, read_objects
from scoring.metrics import BOOTSTRAP_SEED, group_figures, question_stats
from scoring.readers import harness_files as harness

SCORER_VERSION = "1.4.0"
"""Bump when any figure could change: results are keyed by (submission, gold, scorer).
1.2: the response extractor reads more phrasings and option texts; counts gain ``lenient``.
1.3: bootstrap intervals come from exact sums (IoU on a 24-bit grid), the same on every machine;
only their last digits moved (at most ~1e-5 points).
1.4: the answer reader reads what models print (``Image C``, ``**C**``, ``<answer>C</answer>``,
``C\n\nExplanation``...: scoring/answers.py), so responses 1.3 left unparsed now count."""

MAX_UNPARSED_LISTED = 100
"""How many unparsed lines a result lists (line number and the start of the text)."""
UNPARSED_TEXT_CHARS = 200


@dataclass(frozen=True)
class UnparsedLine:
    """A line whose ``response`` states no letter (``kind`` "answer") or whose
    ``grounding_response`` names no box (``kind`` "grounding"): its line number and the start of
    that text (the submitter's own words; nothing of the gold, whatever the answer)."""

    line: int
    text: str
    kind: str = "answer"
    file: str = ""  # the file inside the upload ``line`` is a line of, for several files or a zip

    def to_api(self) -> dict:
        """``{"line", "text"}`` as before; a grounding's says ``"kind": "grounding"`` too, and a line
        of one of several files given names it (``"file"``)."""
        kind = {"kind": self.kind} if self.kind != "answer" else {}
        return {"line": self.line, "text": self.text} | kind | ({"file": self.file} if self.file else {})


@dataclass(frozen=True)
class ResultRecord:
    """Public aggregates of one scored submission (SPEC "Result record")."""

    benchmark: str
    gold_version: str
    scorer_version: str
    counts: dict[str, int]
    overall: dict
    groups: dict[str, dict[str, dict]] = field(default_factory=dict)
    unparsed_lines: tuple[UnparsedLine, ...] = ()
    """The first unparsed lines; kept beside the record (store/records.py), not in ``to_dict``."""

    def to_dict(self) -> dict:
        return {
            "benchmark": self.benchmark,
            "gold_version": self.gold_version,
            "scorer_version": self.scorer_version,
            "counts": self.counts,
            "overall": self.overall,
            **self.groups,
        }

    @classmethod
    def from_dict(cls, d: dict) -> ResultRecord:
        fixed = {"benchmark", "gold_version", "scorer_version", "counts", "overall"}
        return cls(
            d["benchmark"],
            d["gold_version"],
            d["scorer_version"],
            d["counts"],
            d["overall"],
            {k: v for k, v in d.items() if k not in fixed},
        )


def _declaration(benchmark: str | Benchmark) -> Benchmark:
    return get_benchmark(benchmark) if isinstance(benchmark, str) else benchmark


def _limits_for(gold: Gold, limits: Limits | None) -> Limits:
    """By default a file may have at most twice as many lines as there are questions (+1000)."""
    limits = limits or Limits()
    return Limits(limits.max_bytes, limits.max_line_bytes, min(limits.max_lines, 2 * gold.size + 1000))


@dataclass
class Predictions:
    """A validated submission as per-question arrays (row order of the gold)."""

    benchmark: str
    gold_version: str
    letters: np.ndarray  # int8 index into the benchmark's choices per row, -1 when missing or unparsed
    submitted: np.ndarray  # bool per row
    groundings: dict[int, object]  # row -> the benchmark's grounding object
    unparsed: int
    lenient: int = 0  # response lines read by a rule looser than the official one
    responses: int = 0  # lines that gave a response (and no answer)
    unparsed_lines: tuple[UnparsedLine, ...] = ()
    box_samples: tuple[boxcheck.BoxSample, ...] = ()  # boxes in the file's format, for the sanity check
    grounding_responses: int = 0  # lines that gave a grounding_response
    grounding_unparsed: int = 0  # of those, the ones whose text names no box
    grounding_hint: Issue | None = None  # another family reads most of them (scoring.grounding_formats)
    lenient_rows: tuple[int, ...] = ()  # rows whose response was read by a rule looser than the exact letter
    set_aside: tuple[int, ...] = ()  # line numbers answering retired questions (not scored, not an error)
    set_aside_keys: tuple = ()  # the keys those lines gave, in the same order
    line_of: np.ndarray | None = None  # per row, the line (record) that answered it (0: none)
    response_rows: tuple[int, ...] = ()  # rows answered by a response (not an answer)
    grounding_rows: tuple[int, ...] = ()  # rows with a grounding_response
    grounding_unparsed_rows: tuple[int, ...] = ()  # of those, the ones whose text names no box
    notes: tuple[Issue, ...] = ()  # what the reader set aside, said and not an error (another benchmark's files)

    @property
    def answered(self) -> int:
        return int(self.submitted.sum())


def score_file(
    benchmark: str | Benchmark,
    gold: Gold,
    source: str | Path | bytes,
    *,
    bbox_format: str = "xyxy",
    limits: Limits | None = None,
    min_coverage: float | None = None,
    grounding_format: str = "",
) -> ResultRecord:
    """Validate and score a JSONL submission (its path or its bytes); raises SubmissionError."""
    bench = _declaration(benchmark)
    predictions = validate_file(
        bench,
        gold,
        source,
        bbox_format=bbox_format,
        limits=limits,
        min_coverage=min_coverage,
        grounding_format=grounding_format,
    )
    return score_predictions(bench, gold, predictions)


def validate_file(
    benchmark: str | Benchmark,
    gold: Gold,
    source: str | Path | bytes,
    *,
    bbox_format: str = "xyxy",
    limits: Limits | None = None,
    min_coverage: float | None = None,
    check_box_format: bool = False,
    grounding_format: str = "",
) -> Predictions:
    """Stream and check the submission (its path or its bytes: a store need not write a temp
    file); raises SubmissionError listing line-numbered issues.

    ``min_coverage`` (a share, 0-1): a file answering fewer questions is a whole-file error
    (SPEC: the leaderboard's rule; the library applies it only when asked).
    ``check_box_format``: a box format the boxes do not fit (scoring/boxcheck.py) is an error;
    a file with other errors gets that advice as its first issue anyway.
    ``grounding_format``: the family ``grounding_response`` lines are read in ('' when none is
    declared; lines may name their own), scoring/grounding_formats.py.
    A line answering a question an earlier gold had and this one does not (``gold.retired``)
    is set aside (``Predictions.set_aside``), not an error: a file accepted on an earlier gold
    stays accepted when a correction removes questions."""
    bench = _declaration(benchmark)
    _check_settings(bench, gold, bbox_format, grounding_format, min_coverage)
    return finish(
        read_draft(bench, gold, source, bbox_format, limits, grounding_format), min_coverage, check_box_format
    )


@dataclass
class Draft:
    """One pass of the reader over a file, before the whole-file checks: its predictions as read
    (lines with issues left out), the issues of its lines, and what a harness file was converted
    from. :func:`finish` turns it into what :func:`validate_file` gives, as often as asked, each
    time with its own checks (the worker reads once and answers the pre-check, validate-only and
    scoring from one draft: scoring/reading.py)."""

    bench: Benchmark
    gold: Gold
    predictions: Predictions
    log: IssueLog
    bbox_format: str
    converted: harness.Converted | None = None
    shape_error: bool = False  # the file could not be read at all (one issue, nothing else added)
    lines: int = 0  # lines (records) read


def read_draft(
    bench: Benchmark,
    gold: Gold,
    source: str | Path | bytes,
    bbox_format: str = "xyxy",
    limits: Limits | None = None,
    grounding_format: str = "",
) -> Draft:
    """Read ``source`` once (the expensive part of :func:`validate_file`); raises nothing for the
    file's faults: they are in the draft's log (an unknown box or grounding format: only that)."""
    try:
        _check_settings(bench, gold, bbox_format, grounding_format, None)
    except SubmissionError as e:
        log = IssueLog(list(e.issues), e.total, Counter(i.code for i in e.issues))
        return Draft(bench, gold, _no_predictions(bench, gold), log, bbox_format, shape_error=True)
    log = IssueLog()
    limits = _limits_for(gold, limits)
    try:
        shaped = harness.as_submission(bench, gold, source, limits.max_bytes, limits.max_lines)
    except harness.ShapeError as e:
        log.add(e.code, 0, "", str(e))
        return Draft(bench, gold, _no_predictions(bench, gold), log, bbox_format, shape_error=True)
    converted = shaped if isinstance(shaped, harness.Converted) else None
    if converted is not None:
        source = converted.data  # the file sent was held to the byte limit; its lines to the line limit
        limits = replace(limits, max_bytes=max(limits.max_bytes, len(source)))
    plain = batch.read_plain(bench, gold, source, bbox_format, limits)
    if plain is not None:
        predictions, lines = _plain_predictions(bench, gold, plain), len(plain.rows)
    else:
        predictions, lines = _read_per_line(bench, gold, source, bbox_format, log, limits, grounding_format)
    return Draft(bench, gold, predictions, log, bbox_format, converted, lines=lines)


def finish(draft: Draft, min_coverage: float | None = None, check_box_format: bool = False) -> Predictions:
    """The draft's predictions, or SubmissionError with its issues and the whole-file ones asked
    for (``min_coverage``, ``check_box_format``: see :func:`validate_file`). The draft is not changed."""
    log = IssueLog(list(draft.log.listed), draft.log.total, Counter(draft.log.by_code))
    if draft.shape_error:
        log.raise_if_any()
    predictions = replace(draft.predictions)
    if min_coverage is not None:
        check_coverage(log, predictions.answered, draft.gold.size, min_coverage)
    if draft.bench.grounding and (log.total or check_box_format):  # the advice matters only then
        _add_format_advice(log, predictions, draft.bbox_format)
    if draft.converted is not None:
        _name_records(log, predictions, draft.converted)
    log.raise_if_any()
    return predictions


def _no_predictions(bench: Benchmark, gold: Gold) -> Predictions:
    letters = np.full(gold.size, -1, dtype=np.int8)
    return Predictions(bench.id, gold.version, letters, np.zeros(gold.size, dtype=bool), {}, 0)


def _check_settings(
    bench: Benchmark, gold: Gold, bbox_format: str, grounding_format: str, min_coverage: float | None
) -> None:
    """The call's own settings, before a line is read: a wrong gold or share is the caller's error
    (ValueError); an unknown box or grounding format is the submission's (one issue)."""
    if gold.benchmark != bench.id:
        raise ValueError(f"gold is for {gold.benchmark!r}, not {bench.id!r}")
    if min_coverage is not None and not 0 <= min_coverage <= 1:
        raise ValueError(f"min_coverage must be a share between 0 and 1, got {min_coverage!r}")
    log = IssueLog()
    if bench.grounding and bbox_format not in BOX_FORMATS:
        message = f"unknown box format {bbox_format!r}; known: {', '.join(BOX_FORMATS)}"
        log.add("unknown_bbox_format", 0, "bbox_format", message)
    elif bench.grounding and grounding_format and not known_format(grounding_format):
        message = f"unknown grounding format {grounding_format[:40]!r}; known: {describe_formats()}"
        log.add("unknown_grounding_format", 0, "grounding_format", message)
    log.raise_if_any()


def _add_format_advice(log: IssueLog, predictions: Predictions, bbox_format: str) -> None:
    """Whole-file hints, listed first: another Qwen2.5-VL preset, another grounding family, another box format."""
    advice = boxcheck.advice(predictions.box_samples, bbox_format)
    qwen = boxcheck.qwen_preset_advice(predictions.box_samples)
    for hint in (qwen, predictions.grounding_hint, advice):
        if hint is not None:
            log.add_first(hint)


def _name_records(log: IssueLog, predictions: Predictions, converted: harness.Converted) -> None:
    """Issues and unparsed lines of a converted file name the file's own records (a line of a
    samples file, a table row), not the lines it was converted into."""

    def placed(item, record: int):  # an issue or unparsed line, named by its file given and its line there
        file, line = converted.place(record)
        return replace(item, line=line, file=file)

    listed = [(converted.record(i.line), placed(i, converted.record(i.line))) if i.line else (0, i) for i in log.listed]
    for record, code, message in converted.issues:
        log.total += 1
        log.by_code[code] += 1
        listed.append((record, placed(Issue(code, record, "", message), record)))
    log.listed = [issue for _, issue in sorted(listed, key=lambda pair: pair[0])][:MAX_LISTED]
    predictions.unparsed_lines = tuple(placed(u, converted.record(u.line)) for u in predictions.unparsed_lines)
    predictions.notes = tuple(Issue("set_aside_files", 0, "", note) for note in converted.notes)


SHIFT_EXPLAINS = frozenset({"unknown_question_id", "duplicate_question_id", "id_mismatch"})
"""Line issues a ``shifted_question_ids`` issue explains (and replaces)."""


def _explain_missing_fields(bench: Benchmark, log: IssueLog, objects: int, fields: tuple[str, ...]) -> None:
    """When no line has the key, or none an answer or response, one issue naming the fields the
    lines do have (a harness's own shape, as-users.md #15), instead of one per line."""
    if objects < MAX_LISTED:  # a short file's line issues all show: they say more than one summary
        return
    have = ", ".join(repr(str(f)[:30]) for f in fields) or "none"
    for code, needed in (
        ("missing_question_id", f"{bench.key_field!r}"),
        ("missing_answer", f"'answer' ({describe(bench.choices)}) or 'response' (the model's text)"),
    ):
        if log.by_code.get(code, 0) == objects:
            message = (
                f"no line has {needed}; the first line's fields are {have}. Write one object a line with "
                f"{bench.key_field!r} and 'answer' or 'response' (docs/submitting.md), or send the harness's own file "
                "(lmms-eval samples, VLMEvalKit predictions)"
            )
            log.explain(Issue("missing_fields", 0, "", message), frozenset({code}))
            return


def _explain_wrapped_list(bench: Benchmark, log: IssueLog, objects: int, first: dict) -> None:
    """A file that is one object holding the predictions as a list (``{"predictions": [...]}``):
    one issue naming the key and asking for one object a line, instead of the lone line's issues."""
    if objects != 1 or not log.total:
        return
    for key, value in first.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            message = (
                f"the file is one object whose {str(key)[:30]!r} holds {len(value):,} entries: write one object a "
                f"line (JSON Lines), each with {bench.key_field!r} and 'answer' or 'response' (docs/submitting.md)"
            )
            log.explain(Issue("wrapped_list", 0, "", message), frozenset(log.by_code))
            return


def _explain_numbered_answers(bench: Benchmark, log: IssueLog, numbered: int, example: object) -> None:
    """Answers written as option numbers on every bad-answer line, more than are listed: one
    issue saying so and what to write, instead of one identical error a line."""
    bad = log.by_code.get("bad_answer", 0)
    if bad < MAX_LISTED or numbered != bad:
        return
    message = (
        f"the answers of {bad:,} lines are numbers (e.g. {example!r}), not letters {describe(bench.choices)}: "
        "write each option's letter, 'A' for the first option (0 or 1, whichever your numbers count from), "
        "'B' for the second, and so on"
    )
    log.explain(Issue("numbered_answers", 0, "answer", message), frozenset({"bad_answer"}))


def _read_per_line(
    bench: Benchmark,
    gold: Gold,
    source: str | Path | bytes,
    bbox_format: str,
    log: IssueLog,
    limits: Limits,
    grounding_format: str = "",
) -> tuple[Predictions, int]:
    """Read and check the file line by line, logging every issue (the reference path); with the
    number of its last line."""
    reader = _LineReader(bench, gold, bbox_format, log, grounding_format)
    objects, first, last = 0, {}, 0
    for line_no, obj in read_objects(source, log, limits):
        if not objects:
            first = obj
        objects += 1
        last = line_no
        reader.read(line_no, obj)
    reader.finish()
    _explain_missing_fields(bench, log, objects, tuple(first)[:12])
    _explain_wrapped_list(bench, log, objects, first)
    _explain_numbered_answers(bench, log, reader.numbered, reader.numbered_example)
    if bench.shifted_keys is not None and reader.keys_given:
        message = bench.shifted_keys(reader.keys_given, gold)
        if message is not None:
            log.explain(Issue("shifted_question_ids", 0, bench.key_field, message), SHIFT_EXPLAINS)
    return reader.predictions(), last


def _plain_predictions(bench: Benchmark, gold: Gold, plain: batch.PlainFile) -> Predictions:
    """The Predictions of a plain file (scoring/batch.py): what :class:`_LineReader` builds."""
    letters = np.full(gold.size, -1, dtype=np.int8)
    letters[plain.rows] = plain.letters
    submitted = np.zeros(gold.size, dtype=bool)
    submitted[plain.rows] = True
    line_of = np.zeros(gold.size, dtype=np.int64)
    line_of[plain.rows] = np.arange(1, len(plain.rows) + 1)
    return Predictions(
        bench.id, gold.version, letters, submitted, plain.groundings, 0, box_samples=plain.box_samples, line_of=line_of
    )


def _is_number(value: object) -> bool:
    """An option number: an int (not a bool) or a string of digits."""
    return (type(value) is int) or (type(value) is str and value.strip().isdigit())


class _LineReader:
    """Checks one line at a time and gathers the per-question arrays of :class:`Predictions`."""

    def __init__(
        self, bench: Benchmark, gold: Gold, bbox_format: str, log: IssueLog, grounding_format: str = ""
    ) -> None:
        self.bench, self.gold, self.bbox_format, self.log = bench, gold, bbox_format, log
        self.set_aside: list[int] = []  # lines answering retired questions
        self.set_aside_keys: list = []
        self.response_rows: list[int] = []
        self.grounding_rows: list[int] = []
        self.grounding_unparsed_rows: list[int] = []
        # grounding benchmarks' read_line takes the declared grounding_format (scoring/grounding_formats.py)
        self.line_options = {"grounding_format": grounding_format} if bench.grounding else {}
        self.raw = GroundingTally(grounding_format, MAX_UNPARSED_LISTED, UNPARSED_TEXT_CHARS)
        self.letters = [-1] * gold.size  # Python lists: a numpy element costs ~10x a list item per line
        self.first_line = [0] * gold.size
        self.answer_letters: dict[str, str | None] = {}  # an `answer` string -> its letter, worked out once
        self.index = {letter: k for k, letter in enumerate(bench.choices)}
        self.groundings: dict[int, object] = {}
        self.lenient_rows: list[int] = []
        self.keys_given: list[tuple[int, object, object]] = []  # for bench.shifted_keys
        self.unparsed_lines: list[UnparsedLine] = []
        self.unparsed = self.lenient = self.responses = 0
        self.box_samples: list[boxcheck.BoxSample] = []
        self.letters_text = describe(bench.choices)
        self.numbered, self.numbered_example = 0, None  # bad answers that are option numbers (one hint)

    def read(self, line_no: int, obj: dict) -> None:
        row = self._row(line_no, obj)
        if row is None:
            return
        found, letter = self._letter(line_no, obj, row)
        if not found:
            return
        if self.bench.box_sample is not None:
            sample = self.bench.box_sample(obj, self.gold, row, letter, **self.line_options)
            if sample is not None:
                self.box_samples.append(sample)
        if letter is not None:  # kept even if its grounding is refused: the file is then rejected, and
            self.letters[row] = self.index[letter]  # its reading still says what it answered (probes)
        try:
            grounding = self.bench.read_line(obj, self.gold, row, self.bbox_format, letter, **self.line_options)
        except LineError as e:
            if not self.raw.absorbs(e, line_no, obj.get("grounding_response")):  # one whole-file issue
                self.log.add(e.code, line_no, e.field, str(e))
            return
        if self.line_options:  # raw grounding: counted, an unparsed one scored as an empty region
            read = grounding
            grounding = self.raw.note(line_no, obj, grounding)
            if obj.get("grounding_response") is not None:
                self.grounding_rows.append(row)
                if grounding is not read:
                    self.grounding_unparsed_rows.append(row)
        if grounding is not None:
            self.groundings[row] = grounding

    def finish(self) -> None:
        """Whole-file issues found while reading: grounding_response lines with no format."""
        issue = self.raw.issue()
        if issue is not None:
            self.log.add_issue(issue)

    def _row(self, line_no: int, obj: dict) -> int | None:
        key_field, log = self.bench.key_field, self.log
        if key_field not in obj:
            log.add("missing_question_id", line_no, key_field, f"{key_field} is missing")
            return None
        key = self.bench.parse_key(obj[key_field])
        if key is not None and key in self.gold.retired and key not in self.gold.index:
            self.set_aside.append(line_no)  # a question an earlier gold had: not scored, not an error
            self.set_aside_keys.append(key)
            return None
        if self.bench.shifted_keys is not None:
            self.keys_given.append((line_no, key, obj.get(self.bench.key_echo) if self.bench.key_echo else None))
        row = self.gold.index.get(key) if key is not None else None
        if row is None:
            hint = key_hint(obj[key_field], self.gold.keys) if log.will_list else ""
            message = f"unknown {key_field} {str(obj[key_field])[:60]!r}" + (f"; {hint}" if hint else "")
            log.add("unknown_question_id", line_no, key_field, message)
            return None
        if self.first_line[row]:
            message = f"{key_field} {key!r} already given on line {self.first_line[row]}"
            log.add("duplicate_question_id", line_no, key_field, message)
            return None
        self.first_line[row] = line_no
        return row

    def _letter(self, line_no: int, obj: dict, row: int) -> tuple[bool, str | None]:
        """(whether the line is usable, its letter or None when its response is unparsed)."""
        if "answer" in obj:
            value = obj["answer"]
            if type(value) is str and len(value) <= 16:  # no more to memoise than normalize_answer reads
                letter = self.answer_letters.get(value, "")
                if letter == "":
                    letter = self.answer_letters[value] = normalize_answer(value, self.bench.choices)
            else:
                letter = normalize_answer(value, self.bench.choices)
            if letter is None:
                if _is_number(value):
                    self.numbered += 1
                    self.numbered_example = self.numbered_example if self.numbered > 1 else value
                got = str(obj["answer"])[:40]
                self.log.add(
                    "bad_answer", line_no, "answer", f"answer must be a letter {self.letters_text}, got {got!r}"
                )
            return letter is not None, letter
        if "response" not in obj:
            message = f"each line needs an answer ({self.letters_text}) or a response"
            self.log.add("missing_answer", line_no, "answer", message)
            return False, None
        if not isinstance(obj["response"], str):
            self.log.add("bad_response", line_no, "response", "response must be a string")
            return False, None
        options = self.gold.option_texts[row] if self.gold.option_texts is not None else None
        reading = read_response(obj["response"], self.bench.choices, options)
        self.responses += 1
        self.response_rows.append(row)
        if reading.letter is None:
            self.unparsed += 1
            if len(self.unparsed_lines) < MAX_UNPARSED_LISTED:
                self.unparsed_lines.append(UnparsedLine(line_no, obj["response"][:UNPARSED_TEXT_CHARS]))
        elif not reading.strict:
            self.lenient += 1
            self.lenient_rows.append(row)
        return True, reading.letter

    def predictions(self) -> Predictions:
        letters = np.array(self.letters, dtype=np.int8)
        submitted = np.array(self.first_line, dtype=np.int64) > 0
        groundings = [UnparsedLine(line, text, "grounding") for line, text in self.raw.unparsed_lines]
        return Predictions(
            self.bench.id,
            self.gold.version,
            letters,
            submitted,
            self.groundings,
            self.unparsed,
            self.lenient,
            self.responses,
            (*self.unparsed_lines, *groundings),
            tuple(self.box_samples),
            self.raw.responses,
            self.raw.unparsed,
            self.raw.hint(),
            tuple(self.lenient_rows),
            tuple(self.set_aside),
            tuple(self.set_aside_keys),
            np.array(self.first_line, dtype=np.int64),
            tuple(self.response_rows),
            tuple(self.grounding_rows),
            tuple(self.grounding_unparsed_rows),
        )


def check_coverage(log: IssueLog, submitted: int, questions: int, min_coverage: float) -> None:
    """``too_few_answers`` when fewer than ``min_coverage`` of the questions have a line; the
    counts are public (the question list is)."""
    needed = math.ceil(min_coverage * questions - 1e-9)
    if submitted < needed:
        log.add(
            "too_few_answers",
            0,
            "",
            f"the file answers {submitted:,} of {questions:,} questions, {questions - submitted:,} missing; "
            f"a scored file must answer at least {needed:,} ({min_coverage:.0%}). "
            "A partial file can still be checked with validate only.",
        )


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def check_grounding_present(log: IssueLog, bench: Benchmark, predictions: Predictions) -> None:
    """``no_grounding`` when a grounding benchmark's file answers questions and grounds none (an
    lmms-eval stage-1 samples file sent alone): its grounding metrics would count every question
    as 0. A warning, not an error: the answers score as they are."""
    grounded = [m.abbrev for m in bench.metrics if m.needs_grounding]
    if not grounded or not predictions.answered or predictions.groundings or predictions.grounding_responses:
        return
    log.add(
        "no_grounding",
        0,
        "",
        f"no line grounds its answer, so {_listed(grounded)} would count every question as 0. A harness "
        "that grounds in a second pass (lmms-eval's stage-2 task) writes a second file: send both files "
        "as one submission.",
    )


def check_constant_box(log: IssueLog, predictions: Predictions) -> None:
    """``constant_box`` when every sampled box is one box (scoring/boxcheck.py): a warning."""
    issue = boxcheck.constant_box(predictions.box_samples)
    if issue is not None:
        log.add_issue(issue)


def question_columns(benchmark: str | Benchmark, gold: Gold, predictions: Predictions) -> dict[Stat, np.ndarray]:
    """Per-question statistic columns (stage 1 for every question, stage 2 IoU for the correct
    ones): what every figure reduces. Secret (they say which answers are right): callers keep
    them server-side and publish only aggregates."""
    bench = _declaration(benchmark)
    if gold.public:
        raise ValueError("a public question list has no answers: it can validate a file, not score it")
    if predictions.gold_version != gold.version:
        raise ValueError("predictions were validated against another gold version")
    correct = predictions.letters == gold.answers
    inter = union = None
    if bench.overlap is not None and predictions.groundings:
        inter = np.zeros(gold.size, dtype=np.float64)
        union = np.zeros(gold.size, dtype=np.float64)
        rows = overlap_rows(predictions.groundings, correct)
        if bench.overlaps is not None:
            row_inter, row_union = bench.overlaps(predictions.groundings, gold, rows)
        else:
            pairs = [bench.overlap(predictions.groundings.get(row), gold, row) for row in rows.tolist()]
            row_inter, row_union = np.array(pairs, dtype=np.float64).reshape(-1, 2).T
        keep = correct[rows]  # selected after the work: the time a file takes says nothing of its answers
        inter[rows[keep]], union[rows[keep]] = np.asarray(row_inter)[keep], np.asarray(row_union)[keep]
    strict = None
    if any(Stat.CORRECT_STRICT in (m.numerator, m.denominator) for m in bench.metrics):
        strict = np.ones(gold.size, dtype=bool)
        strict[list(predictions.lenient_rows)] = False
    return question_stats(correct, inter, union, strict)


def overlap_rows(groundings: Mapping[int, object], correct: np.ndarray) -> np.ndarray:
    """The rows whose overlap with the gold mask is computed: every grounded row, right or wrong
    (a heavy polygon or mask costs the same either way, so scoring time tells nothing of which
    answers are right: attacks.md #11), and the correct rows without a grounding (their union is
    the gold area, no geometry). Only the correct rows' figures are kept."""
    grounded = np.fromiter(groundings, dtype=np.int64, count=len(groundings))
    return np.union1d(grounded, np.flatnonzero(correct))


def score_predictions(
    benchmark: str | Benchmark, gold: Gold, predictions: Predictions, *, seed: int = BOOTSTRAP_SEED
) -> ResultRecord:
    """Stage 1 (answers) for every question, stage 2 (IoU) for the correct ones, then figures
    (``seed`` seeds the bootstrap intervals: the leaderboard's is secret, see scoring.metrics)."""
    bench = _declaration(benchmark)
    submitted, groundings = predictions.submitted, predictions.groundings
    stats = question_columns(bench, gold, predictions)
    correct = stats[Stat.CORRECT] > 0
    figures = group_figures(stats, gold.groups, bench.metrics, seed)
    counts = {
        "questions": gold.size,
        "submitted": int(submitted.sum()),
        "missing": int(gold.size - submitted.sum()),
        "unparsed": predictions.unparsed,
    }
    if predictions.responses:
        counts["lenient"] = predictions.lenient
    if predictions.set_aside:
        counts["set_aside"] = len(predictions.set_aside)
    if predictions.grounding_responses:
        counts["grounding_unparsed"] = predictions.grounding_unparsed
    if bench.grounding:
        counts["grounded"] = int(np.count_nonzero(correct[np.fromiter(groundings, np.int64, len(groundings))]))
    overall = figures.pop("overall")[""]
    return ResultRecord(bench.id, gold.version, SCORER_VERSION, counts, overall, figures, predictions.unparsed_lines)
