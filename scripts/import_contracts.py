"""An import-linter contract the library does not have, named in pyproject.toml
(``[tool.importlinter] contract_types``) and run by ``make lint`` (lint-imports).

``acyclic_modules``: no import circle among the modules of ``packages``, each package's own
``__init__`` counted as a module. The built-in ``acyclic_siblings`` contract compares only the
children of each package, so a module that imports its package's root while the root imports it
(``scoring.errors`` -> ``scoring`` -> ``scoring.errors``) passes it; this one does not. Every
import counts, inside a function or under ``if TYPE_CHECKING:`` alike (the graph keeps them:
``exclude_type_checking_imports = false`` in pyproject.toml).
"""

from __future__ import annotations

import grimp
from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck

SHOWN = 10
"""Circles printed when the contract is broken (each one's imports, with their lines)."""


def circles(graph: grimp.ImportGraph, packages: list[str]) -> list[tuple[str, ...]]:
    """One shortest circle through each import that lies on one, each circle once: its modules in
    import order, the first repeated at the end."""
    ours = {m for m in graph.modules if m.split(".")[0] in packages}
    found: dict[frozenset[str], tuple[str, ...]] = {}
    for importer in sorted(ours):
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & ours):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None and frozenset(back) not in found:
                found[frozenset(back)] = (importer, *back)
    return list(found.values())


class AcyclicModules(Contract):
    """See module doc."""

    type_name = "acyclic_modules"
    packages = fields.ListField(subfield=fields.StringField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        found = circles(graph, list(self.packages))  # type: ignore[arg-type]
        lines = [[self._line(graph, a, b) for a, b in zip(c, c[1:], strict=False)] for c in found]
        return ContractCheck(kept=not found, metadata={"circles": lines})

    @staticmethod
    def _line(graph: grimp.ImportGraph, importer: str, imported: str) -> str:
        details = graph.get_import_details(importer=importer, imported=imported)
        where = ", ".join(f"l.{d['line_number']}" for d in details)
        return f"{importer} -> {imported}" + (f" ({where})" if where else "")

    def render_broken_contract(self, check: ContractCheck) -> None:
        circles_found = check.metadata["circles"]
        output.print_error(f"{len(circles_found)} import circle(s) among the modules:")
        output.new_line()
        for circle in circles_found[:SHOWN]:
            for step in circle:
                output.indent_cursor()
                output.print_error(step, bold=False)
            output.new_line()
        if len(circles_found) > SHOWN:
            output.print_error(f"(and {len(circles_found) - SHOWN} more)")
