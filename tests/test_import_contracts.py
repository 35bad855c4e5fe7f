"""The import-linter contract ``acyclic_modules`` (scripts/import_contracts.py, run by ``make lint``):
it finds a circle through a package's own root, which ``acyclic_siblings`` does not see, and
counts a type-only import."""

from __future__ import annotations

import tomllib
from pathlib import Path

import grimp

from scripts.import_contracts import circles

ROOT = Path(__file__).resolve().parents[1]


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_a_module_importing_its_package_root_is_a_circle() -> None:
    graph = grimp.ImportGraph()
    graph.add_import(importer="kit", imported="kit.engine")
    graph.add_import(importer="kit.engine", imported="kit")
    graph.add_import(importer="kit.cli", imported="kit")  # the root does not import cli: no circle
    graph.add_import(importer="kit.engine", imported="numpy")
    assert circles(graph, ["kit"]) == [("kit", "kit.engine", "kit")]


def test_a_type_only_import_and_one_inside_a_function_close_circles(tmp_path: Path, monkeypatch) -> None:
    type_only = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from shop.service import Facade\n"
    write(
        tmp_path,
        {
            "shop/__init__.py": "",
            "shop/service.py": "from shop import helpers\nfrom shop.rooms import Room\n",
            "shop/rooms.py": type_only,
            "shop/helpers.py": "def later():\n    from shop import service\n",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("shop", exclude_type_checking_imports=False, cache_dir=None)
    lazy, typed = ("shop.helpers", "shop.service", "shop.helpers"), ("shop.rooms", "shop.service", "shop.rooms")
    assert circles(graph, ["shop"]) == [lazy, typed]
    without = grimp.build_graph("shop", exclude_type_checking_imports=True, cache_dir=None)
    assert circles(without, ["shop"]) == [lazy]


def test_the_project_counts_type_only_imports_and_checks_every_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    assert config["exclude_type_checking_imports"] is False
    by_type = {c["type"]: c for c in config["contracts"]}
    assert by_type["acyclic_modules"]["packages"] == config["root_packages"]
    assert by_type["acyclic_siblings"]["ancestors"] == config["root_packages"]
