"""The id census: a benchmark is one folder, so no product file outside ``scoring/benchmarks/<id>/``
names its id (STYLE, "A benchmark is a package folder"; issue 40). Run for every benchmark the tree
holds: the shipped ones and the example plugin ``toy``.

What counts as a **product file**: every file git tracks under the app and kit packages (``app.py``,
``ui/``, ``leaderboard/``, ``submissions/``, ``store/``, ``scoring/``) and the two ``pyproject.toml``
files: code (``.py``, ``.js``, ``.html``, ``.css``), shipped data and configuration (``.json``,
``.yaml``, ``.toml``, ``.bib``, ``.txt``), and extensionless templates. What does **not** count:
``tests/``, ``perf/``, ``scripts/``, ``docs/`` and every Markdown file (README, docs, the About page's
prose, the harness READMEs: documentation that tells a user to type ``--benchmark scb``), vendored
third-party code (``ui/static/vendor/``), and :mod:`scoring.benchmarks.shipped`, the one list that names
the shipped folders' modules, as ``LEADERBOARD_PLUGINS`` names a plugin's ("adding a benchmark is
adding a folder and naming it where plugins are named").

What counts as **naming the id** (an id position):

- in Python, a string literal that is not a docstring (prose) holding the id in lower case as a word
  of its own: the whole string (``"scb"``, ``bench == "scb"``), a path or URL segment
  (``"/questions/scb.jsonl"``, ``"scb/stage1"``), a command word (``"--benchmark scb"``) or the stem
  of a derived name (``"scb_stage1"``); or, in any case, the id joined to a name by ``_``
  (``"SCB_LB"``, ``"KViscuit_LB"``, ``"SCB_IMAGES"``);
- in Python, an identifier with the id as one of its ``_``- or CamelCase-words (``scb_stage1``,
  ``SCB_ANSWER_INSTRUCTION``, ``load_kviscuit``, ``ScbStage1``), since a name is a place the id is
  written into code;
- in every other product file, the same tests on the whole text (comments included).

Prose in docstrings and comments of Python may say "SCB" or "K-Viscuit" (a benchmark's name, not its
id). :func:`test_the_census_finds_an_offending_line` shows each kind of id position is caught.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
IDS = ("scb", "kviscuit", "toy")
"""Every benchmark folder in the tree (the test below checks the list is complete)."""
PRODUCT = ("app.py", "ui/", "leaderboard/", "submissions/", "store/", "scoring/", "pyproject.toml")
NOT_PRODUCT = ("ui/static/vendor/", "scoring/benchmarks/shipped.py")
DATA_SUFFIXES = {".js", ".html", ".css", ".json", ".yaml", ".yml", ".toml", ".bib", ".txt", ""}
KNOWN = {("scb", "scoring/readers/bundle.py")}
"""Offenders left for a change in flight: the bounded-reading branch rewrites how uploads are read
(``scoring/readers/bundle.py`` among them, whose message names two-stage task names), so this branch
only moved that file. Each entry must still offend (a stale one fails), so the list only shrinks."""


def tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [p for p in out.decode().split("\0") if p]


def product_files() -> list[str]:
    return [
        p
        for p in tracked()
        if p.startswith(PRODUCT)
        and not p.startswith(NOT_PRODUCT)
        and not p.endswith(".md")
        and (p.endswith(".py") or Path(p).suffix in DATA_SUFFIXES)
    ]


def word(bench: str) -> re.Pattern:
    """The lower-case id with no letter or digit on either side."""
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(bench)}(?![A-Za-z0-9])")


def joined(bench: str) -> re.Pattern:
    """The id in any case joined to a name by ``_`` (``SCB_LB``, ``KViscuit_LB``, ``X_SCB``)."""
    b = re.escape(bench)
    return re.compile(rf"(?i:(?<![A-Za-z0-9]){b}_|_{b}(?![A-Za-z0-9]))")


def in_text(bench: str, text: str) -> bool:
    return bool(word(bench).search(text) or joined(bench).search(text))


def in_identifier(bench: str, name: str) -> bool:
    """The id as one ``_``- or CamelCase-word of an identifier (``scb_stage1``, ``ScbStage1``, ``KViscuit``)."""
    for part in name.split("_"):
        low = part.lower()
        for start in (m.start() for m in re.finditer(re.escape(bench), low)):
            end = start + len(bench)
            after_ok = end == len(part) or part[end].isupper() or part[end].isdigit()
            before_ok = start == 0 or (part[start].isupper() and not part[start - 1].isupper())
            if after_ok and before_ok:
                return True
    return False


def _docstring_lines(source: str) -> set[int]:
    """The lines of every docstring (module, class, function), which are prose."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and body:
            first = body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines |= set(range(first.lineno, first.end_lineno + 1))
    return lines


STRINGS = (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1))
"""String tokens (a 3.12 f-string's text parts come as FSTRING_MIDDLE)."""


def python_offences(bench: str, source: str) -> list[tuple[int, str]]:
    """(line, token) of each id position in Python source: string literals but docstrings, identifiers."""
    prose = _docstring_lines(source)
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NAME and in_identifier(bench, tok.string):
            found.append((tok.start[0], tok.string))
        elif tok.type in STRINGS and tok.start[0] not in prose and in_text(bench, tok.string):
            found.append((tok.start[0], tok.string[:80]))
    return found


def text_offences(bench: str, text: str) -> list[tuple[int, str]]:
    return [(n, line.strip()[:80]) for n, line in enumerate(text.splitlines(), 1) if in_text(bench, line)]


def offences(bench: str, path: str, text: str) -> list[tuple[int, str]]:
    return python_offences(bench, text) if path.endswith(".py") else text_offences(bench, text)


def census(bench: str) -> dict[str, list[tuple[int, str]]]:
    own = f"scoring/benchmarks/{bench}/"
    found = {}
    for path in product_files():
        if path.startswith(own) or (bench, path) in KNOWN:
            continue
        hits = offences(bench, path, (ROOT / path).read_text(encoding="utf-8"))
        if hits:
            found[path] = hits
    return found


def test_the_census_covers_every_benchmark_folder():
    folders = {p.split("/")[2] for p in tracked() if re.fullmatch(r"scoring/benchmarks/[^/]+/__init__\.py", p)}
    assert folders == set(IDS)


@pytest.mark.parametrize("bench", IDS)
def test_no_product_file_outside_its_folder_names_the_id(bench):
    assert census(bench) == {}


def test_every_known_offender_still_offends():
    for bench, path in KNOWN:
        assert offences(bench, path, (ROOT / path).read_text(encoding="utf-8")), (
            f"{path} no longer names {bench}: drop it"
        )


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        ('x = "toy"\n', True),
        ('if bench == "toy":\n    pass\n', True),
        ('URL = f"/questions/toy.jsonl"\n', True),
        ('KEY = "toy/stage1"\n', True),
        ('TASK = "toy_stage1"\n', True),
        ('NAME = "TOY_LB"\n', True),
        ('CMD = "python -m scoring validate --benchmark toy"\n', True),
        ("def toy_prompt():\n    pass\n", True),
        ("class ToyStage1:\n    pass\n", True),
        ('"""The toy benchmark, prose in a docstring."""\n', False),
        ("# a comment about toy\nx = 1\n", False),
        ('x = "Toy (example benchmark)"\n', False),
        ('x = "toys and tomatoes"\n', False),
        ("def tokenize_toyota():\n    pass\n", False),
    ],
)
def test_the_census_finds_an_offending_line(source, caught):
    """Each kind of id position is caught, and prose is not (the census can fail)."""
    assert bool(python_offences("toy", source)) is caught


def test_the_census_reads_other_product_files_whole():
    assert text_offences("toy", 'fetch("/questions/toy.tsv")') and text_offences("toy", "// toy_LB")
    assert not text_offences("toy", "// Toy (example)")
