"""Fail when a production function is over 60 lines (DEVELOPERS.md, Style); run by ``make lint``.

A function's length is its lines from ``def`` to its last line, docstring and comments included
(as a reader scrolls it). Production is the app and the whole kit (``scoring/``: the benchmark folders,
the readers and the harness adapters), and the scripts that write the harness fixtures; tests,
``perf/`` and the other scripts are not.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCTION = ("scoring", "store", "submissions", "leaderboard", "ui", "app.py", "scripts/harness-fixtures")
LIMIT = 60
KNOWN = {}
"""Functions over the limit that another change in flight shortens; each must still be over it
(a stale entry fails too, so the list only shrinks)."""


def functions(tree: ast.AST, prefix: str = ""):
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield f"{prefix}{node.name}", node
            yield from functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from functions(node, f"{prefix}{node.name}.")


def long_functions(root: Path = ROOT, limit: int = LIMIT) -> dict[str, int]:
    """``{"path:Qualified.name": lines}`` for every production function over ``limit`` lines."""
    found = {}
    for top in PRODUCTION:
        paths = [root / top] if top.endswith(".py") else sorted((root / top).rglob("*.py"))
        for path in paths:
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for name, node in functions(tree):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    found[f"{path.relative_to(root).as_posix()}:{name}"] = lines
    return found


def main() -> int:
    found = long_functions()
    over = {name: n for name, n in found.items() if name not in KNOWN}
    stale = sorted(set(KNOWN) - set(found))
    for name, lines in sorted(over.items()):
        print(f"{name}: {lines} lines (at most {LIMIT}); split it into named steps")
    for name in stale:
        print(f"{name}: no longer over {LIMIT} lines; remove it from KNOWN in {Path(__file__).name}")
    return 1 if over or stale else 0


if __name__ == "__main__":
    sys.exit(main())
