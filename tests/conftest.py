"""Test-wide settings. The Hub client reads its constants at import: set them first."""

import gc
import os
import re
import tempfile
from pathlib import Path

import pytest

os.environ["HF_HUB_DISABLE_XET"] = "1"
os.environ.setdefault("HF_TOKEN", "hf_test_dummy_token")
os.environ["HF_HOME"] = tempfile.mkdtemp(prefix="hf-home-")
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"

from ui.gradio_pin import skip_type_stubs  # noqa: E402 (after the settings above; it loads no Gradio)

skip_type_stubs()  # as app.py does: each test process loads Gradio ~1 s sooner

GC_THRESHOLDS = (50_000, 20, 20)
"""A test worker lives for the whole run and keeps what its session fixtures built (golds of 3,178
questions: 10^5 and more objects the cyclic GC tracks). At CPython's default (700, 10, 10) it walks
them again and again while a test allocates: 12,000 collections while the geometry-secrecy test
parses its 10,200 hostile lines, which took 9.9 s of CPU after one other module instead of 6.6 s
alone. Young collections every 50,000 allocations, and what exists once the tests are collected
(modules, test items) frozen out of the GC's walk: user CPU of five heavy modules in one process
43-45 -> 36 s. Cyclic garbage is still collected; no test depends on when."""


def pytest_configure(config) -> None:
    gc.set_threshold(*GC_THRESHOLDS)


def pytest_collection_finish(session) -> None:
    gc.collect()
    gc.freeze()  # imported modules and the collected items stay for the run: not walked again


pytest_plugins = ["tests.support.hub_fixture"]


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium per test process, for every module that drives a page: a module's own
    Playwright driver and browser cost 1.37 s of CPU, a context in this one 0.52 s
    (``perf/browser_context_cost.py --launches 6`` at 3860df9). Each module still makes its own contexts
    (cookies, storage, cache).
    Playwright's sync API keeps its event loop set on this thread from here on: a test that runs
    its own loop does it in a thread of its own (``tests.support.own_loop.run``)."""
    from tests.support.app_server import CHROMIUM, CHROMIUM_ARGS

    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


SLOWEST_FIRST = (
    "tests/ui/test_browser_a11y.py",  # 140 s
    "tests/ui/test_browser_teams.py",  # 110 s
    "tests/ui/test_browser_board.py",  # 83 s
    "tests/test_docs_snippets.py",  # 81 s
    "tests/ui/test_browser_items.py",  # 64 s
    "tests/ui/test_browser_culture.py",  # 51 s
    "tests/hardening/test_app_faults.py",  # 47 s
    "tests/ui/test_browser_harness_upload.py",  # 47 s
    "tests/hardening/test_gold_secrecy_app.py",  # 44 s
    "tests/harness/test_end_to_end.py",  # 42 s
    "tests/leaderboard/test_hub_durability.py",  # 40 s
    "tests/hardening/test_identity_app.py",  # 39 s
    "tests/ui/test_browser_context.py",  # 38 s
    "tests/ui/test_browser_fairness.py",  # 37 s
    "tests/ui/test_browser_charts.py",  # 34 s
    "tests/submissions/test_job_bounds.py",  # 31 s
    "tests/ui/test_browser_fields.py",  # 31 s
    "tests/ui/test_gradio_pin.py",  # 30 s
    "tests/hardening/test_hub_app.py",  # 29 s
    "tests/ui/test_browser_compare.py",  # 29 s
    "tests/scoring/test_inspect_logs.py",  # 29 s
    "tests/ui/test_api.py",  # 28 s
    "tests/scoring/test_lmms_eval_files.py",  # 26 s
    "tests/ui/test_reader_app.py",  # 26 s
    "tests/ui/test_browser_details.py",  # 25 s
    "tests/ui/test_browser.py",  # 24 s
    "tests/ui/test_browser_grounding.py",  # 23 s
    "tests/hardening/test_uploads.py",  # 22 s
    "tests/store/test_storage_contract.py",  # 20 s
    "tests/leaderboard/test_cli.py",  # 20 s
    "tests/ui/test_teams_app.py",  # 19 s
    "tests/scoring/test_grounding_plausibility.py",  # 19 s
    "tests/ui/test_browser_filters.py",  # 18 s
    "tests/leaderboard/test_items.py",  # 18 s
    "tests/harness/test_runner.py",  # 18 s
    "tests/scoring/test_linear_readers.py",  # 17 s
    "tests/leaderboard/test_harness_upload.py",  # 17 s
    "tests/store/test_hub_store_limits.py",  # 16 s
    "tests/submissions/test_concurrency.py",  # 16 s
)
"""Modules measured slowest (their tests' ``pytest --durations=0`` summed, at 1697c02 on 2 quiet cores:
the seconds beside each), in that order. Under ``make test``'s workers (pytest-xdist, a module to one
worker) a long module dealt last keeps one worker busy while the others idle: the slowest go first, then every
module that starts the app, then the rest in their usual order to fill the gaps."""


USES_BROWSER = re.compile(r"def \w+\([^)]*\b(browser|server)\b")  # a browser, or an app (tests/ui/conftest.py)


def _module_weight(path: str, starts_app: dict[str, bool]) -> tuple[int, int]:
    if path in SLOWEST_FIRST:
        return (0, SLOWEST_FIRST.index(path))
    if path not in starts_app:
        source = (Path(__file__).parent.parent / path).read_text(errors="replace") if path.endswith(".py") else ""
        starts_app[path] = any(f"{call}(" in source for call in ("start_app", "app_fixture", "AppServer")) or bool(
            USES_BROWSER.search(source)
        )
    return (1, 0) if starts_app[path] else (2, 0)


def pytest_collection_modifyitems(config, items) -> None:
    """Under xdist only, deal the slowest modules first (a stable sort: tests keep their order
    within a module); a plain ``pytest`` run keeps the usual order."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    starts_app: dict[str, bool] = {}
    items.sort(key=lambda item: _module_weight(item.nodeid.split("::")[0], starts_app))
