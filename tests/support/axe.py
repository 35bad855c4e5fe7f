"""axe-core as the browser tests run it: the release ``scripts/install-axe.sh`` pins (``make axe``), not
the older one axe-playwright-python bundles (4.12), which misses what 4.14 finds (issue 44:
``label-content-name-mismatch`` on the chart points). Fetched on first use where ``make`` did not."""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

from axe_playwright_python.sync_playwright import Axe

ROOT = Path(__file__).resolve().parents[2]
AXE_VERSION = "4.14.1"  # scripts/install-axe.sh VERSION
AXE_FILE = ROOT / ".cache" / f"axe-core-{AXE_VERSION}" / "axe.min.js"


@cache
def axe() -> Axe:
    if not AXE_FILE.exists():
        subprocess.run(["bash", str(ROOT / "scripts" / "install-axe.sh")], check=True)
    engine = Axe.from_file(AXE_FILE)
    assert engine.axe_script.startswith(f"/*! axe v{AXE_VERSION}"), "not the pinned axe-core"
    return engine


GRAVE = ("serious", "critical")


def grave_findings(page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is, one line per node."""
    found = axe().run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {node['target']} {node['failureSummary'].splitlines()[-1].strip()}"
        for v in found
        if v["impact"] in GRAVE
        for node in v["nodes"]
    ]


def every_finding(page) -> list[str]:
    """axe-core's violations of every impact (moderate and minor too), one line per rule."""
    found = axe().run(page).response["violations"]
    return [f"{v['id']} ({v['impact']}): {[node['target'] for node in v['nodes']][:4]}" for v in found]
