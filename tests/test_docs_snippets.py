"""Every code block a team or maintainer would copy from README.md, docs/*.md and the About tab's
pages (ui/docs/about/*.md) runs here, so an example can never drift from the code again (issue 22,
"Docs that run").

A fenced block tagged as shell or Python is *copyable*: it runs, unless the line right before its
fence is ``<!-- not run: <reason> -->`` (only for what cannot run here: ``make run``/``make test``,
benchmarks that take minutes, a deployment). Reference blocks (a synopsis with ``[--option]`` or
``A|B``) carry no language tag; a command block without one is refused unless it is such a synopsis.

- Shell blocks run under ``bash -euo pipefail`` in one folder of fixtures named as the docs name them,
  with ``python`` (and ``.venv/bin/python``) the test's interpreter, the repo on ``PYTHONPATH`` and
  ``LEADERBOARD_DATA_DIR`` a store seeded by ``python -m leaderboard demo``.
- Python blocks run against one real app (``app.py``, local mode, demo data); only the documented
  address and token placeholders are rewritten. A block that calls ``/submit`` must print the answer's
  status first: ``scored`` (``valid`` where the block passes ``validate_only=True``), so a call whose
  arguments land in the wrong parameters (``"private"`` in ``validate_only``) fails here instead of
  silently only validating.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import demo
from tests.support.app_server import ROOT, AppServer, seeded_copy
from tests.support.harness_files import FIXTURES, lmms_samples, written_name

ABOUT = ROOT / "ui" / "docs" / "about"  # the About tab, which teams copy from too
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(ABOUT.glob("*.md")))
SHELL = {"bash", "sh"}
PYTHON = {"python"}
COPYABLE = SHELL | PYTHON | {"shell", "console", "zsh", "py", "python3", "pycon"}  # the last ones: no runner
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)")
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(?P<reason>\S.*?)\s*-->$")
SYNOPSIS = re.compile(r"\[--?\w|\w\|\w| \| [A-Za-z]+ [A-Z]{2,}")  # [--option], csv|json, "list | show NAME"
COMMAND = re.compile(r"^(\.venv/bin/)?(python|make|git|pip|cat|curl|LEADERBOARD_\w+=|SHARED_DATA_DIR=)")
ADDRESSES = ("http://127.0.0.1:7860", "org/cultural-vlm-leaderboard")  # the documented Client addresses
TOKEN = '"hf_..."'  # the documented token placeholder; local mode takes any token
BLOCK_TIMEOUT = 300
VLMEVALKIT = FIXTURES / "vlmevalkit-0.0.20"


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    lang: str
    code: str
    not_run: str | None  # the reason given, if marked

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks_of(path: Path) -> list[Block]:
    lines = path.read_text().split("\n")
    found, i = [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence = len(opening["indent"]), opening["fence"]
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        code = "\n".join(line[indent:] for line in lines[i + 1 : end])
        marker = NOT_RUN.match(lines[i - 1].strip()) if i else None
        found.append(Block(path, i + 1, opening["lang"].lower(), code, marker["reason"] if marker else None))
        i = end + 1
    return found


BLOCKS = [block for path in DOCS for block in blocks_of(path)]
SHELL_BLOCKS = [b for b in BLOCKS if b.lang in SHELL and b.not_run is None]
PYTHON_BLOCKS = [b for b in BLOCKS if b.lang in PYTHON and b.not_run is None]


def commands(code: str) -> list[str]:
    return [line.strip() for line in code.splitlines() if line.strip() and not line.strip().startswith("#")]


# --- what the docs contain ---------------------------------------------------------------------


def test_the_docs_have_blocks_to_run():
    assert len(BLOCKS) > 30 and SHELL_BLOCKS and PYTHON_BLOCKS
    assert any(b.path.name == "README.md" for b in PYTHON_BLOCKS)


def test_every_copyable_block_is_run_or_marked_not_run():
    unaccounted = [
        f"{b.where} ({b.lang})"
        for b in BLOCKS
        if b.lang in COPYABLE and b.not_run is None and b.lang not in SHELL | PYTHON
    ]
    assert not unaccounted, (
        f"copyable blocks with no runner: tag them bash or python, or mark them not run: {unaccounted}"
    )


def test_copyable_blocks_are_concrete_not_synopses():
    synopses = [b.where for b in BLOCKS if b.lang in COPYABLE and any(SYNOPSIS.search(c) for c in commands(b.code))]
    assert not synopses, (
        f"a synopsis ([--option], A|B) is reference, not copy-paste: untag it or make it concrete: {synopses}"
    )


def test_untagged_command_blocks_are_synopses():
    """A command written without a language tag would escape the runner: it must be a reference synopsis."""
    hidden = [
        b.where
        for b in BLOCKS
        if not b.lang and any(COMMAND.match(c) for c in commands(b.code)) and not SYNOPSIS.search(b.code)
    ]
    assert not hidden, f"command blocks without a language tag (tag them bash, run or marked): {hidden}"


def test_not_run_marks_give_a_reason_and_cover_make_run():
    marked = [b for b in BLOCKS if b.not_run is not None]
    assert all(len(b.not_run) > 10 for b in marked), [b.where for b in marked]
    readme_setup = [b for b in marked if b.path.name == "README.md" and "make run" in b.code]
    assert readme_setup and "make test" in readme_setup[0].code


def test_extraction_reads_indented_fences_and_marks(tmp_path):
    page = tmp_path / "page.md"
    marked = "<!-- not run: it takes minutes to run -->\n```bash\nmake bench\n```\n"
    page.write_text("- item\n\n  ```python\n  print(1)\n  ```\n\n" + marked)
    first, second = blocks_of(page)
    assert (first.line, first.lang, first.code, first.not_run) == (3, "python", "print(1)", None)
    assert (second.line, second.lang, second.code, second.not_run) == (
        8,
        "bash",
        "make bench",
        "it takes minutes to run",
    )
    assert SYNOPSIS.search("python -m x [--json]") and SYNOPSIS.search("--format csv|json")
    assert not SYNOPSIS.search("cat a b | head -3")


# --- the shell blocks --------------------------------------------------------------------------


def base_env(tmp: Path) -> dict[str, str]:
    shims = tmp / "bin"
    shims.mkdir()
    shim = shims / "python"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}
    env |= {"HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONUNBUFFERED": "1"}
    for name in ("SPACE_ID", "LEADERBOARD_OAUTH", "LEADERBOARD_GOLD_REPO", "LEADERBOARD_ROLE", "HF_TOKEN"):
        env.pop(name, None)
    return env


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=BLOCK_TIMEOUT)


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    """One folder of fixtures under the docs' names and one demo store, for every shell block."""
    tmp = tmp_path_factory.mktemp("docs-shell")
    env = base_env(tmp) | {"LEADERBOARD_DATA_DIR": str(tmp / "store")}
    work = tmp / "work"
    files = {name: Path(path) for name, path in demo.write_demo(tmp / "demo").items()}
    work.mkdir()
    fixtures = {
        "GOLD.jsonl": files["scb_gold"],  # the demo SCB gold
        "scb-questions.jsonl": files["scb_questions"],  # its public question list
        "predictions.jsonl": files["scb_internvl3-8b"],  # a demo team's valid file, boxes in xyxy_1000
        "FILE.jsonl": files["scb_internvl3-8b"],
        "scb.eval": ROOT / "tests" / "fixtures" / "harness" / "inspect_ai-0.3.285" / "scb.eval",  # an Inspect log
    }
    for name, source in fixtures.items():
        shutil.copy(source, work / name)
    # docs/submitting.md's two lmms-eval stages: the files lmms-eval 0.7.3 wrote, under its own names,
    # in the working folder and where `--output_path logs/` with `--model_args model_version=toy` puts them
    (work / "logs" / "toy").mkdir(parents=True)
    for task in ("scb_stage1", "scb_stage2"):
        for folder in (work, work / "logs" / "toy"):
            (folder / written_name(task)).write_bytes(lmms_samples(task))
    # docs/submitting.md's VLMEvalKit files: what VLMEvalKit 0.0.20 wrote, where `python -m vlmevalkit.run` puts them
    (work / "outputs").mkdir()
    for written in VLMEVALKIT.glob("toy_*.xlsx"):
        shutil.copy(written, work / "outputs" / written.name)
    seeded_copy(env, tmp / "store", str(tmp / "store"))  # what `python -m leaderboard demo` writes, made once per run
    # docs/teams.md's transfer example presumes the team it moves: one earlier submission under its name
    team = 'submit --benchmark scb --file predictions.jsonl --model MyVLM-7B --team "Vision Lab" --user alice'
    earlier = run([sys.executable, "-m", "leaderboard", *shlex.split(team), "--bbox-format", "xyxy_1000"], work, env)
    assert earlier.returncode == 0, earlier.stdout + earlier.stderr
    return work, env


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=lambda b: b.where)
def test_shell_block_runs(block: Block, shell):
    work, env = shell
    code = block.code.replace(".venv/bin/python", "python")
    done = run(["bash", "-euo", "pipefail", "-c", code], work, env)
    assert done.returncode == 0, (
        f"{block.where} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )


# --- the Python blocks -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    # the default feedback policy (the Ladder), as deployed; room in the quota: every block submits
    server = AppServer(tmp_path_factory.mktemp("docs-app") / "data", LEADERBOARD_MAX_SCORED_PER_DAY="50").start()
    yield server
    server.stop()


def against(code: str, url: str) -> str:
    """The block as a reader would run it against this app: only its address and token differ."""
    for address in ADDRESSES:
        code = code.replace(f'"{address}"', repr(url))
    return code.replace(TOKEN, '"hf_docs_snippet_token"')


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=lambda b: b.where)
def test_python_block_runs_against_the_app(block: Block, app, tmp_path):
    code = against(block.code, app.url)
    assert code != block.code or "Client(" not in block.code, f"{block.where}: a Client address not in {ADDRESSES}"
    # a file of its own per block (the same file twice would be answered as a duplicate)
    seed = 1000 + PYTHON_BLOCKS.index(block)
    lines = demo.scb_submission(demo.scb_gold(0, options=True), 0.7, "bbox_good", seed, box_format="xyxy_1000")
    demo.write_jsonl(tmp_path / "predictions.jsonl", lines)
    done = run([sys.executable, "-c", code], tmp_path, base_env(tmp_path))
    assert done.returncode == 0, (
        f"{block.where} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    if 'api_name="/submit"' in block.code:  # a check only when it says so; else a scored file
        expected = "valid" if "validate_only=True" in block.code else "scored"
        printed = " ".join(line for line in done.stdout.splitlines() if not line.startswith("Loaded as API")).split()
        assert printed and printed[0] == expected, f"{block.where}: /submit answered {done.stdout[:500]!r}"
