"""The Space's entry point (Hugging Face runs this file): wiring only.

Settings -> the leaderboard (or, as a reader, the published boards) -> background jobs -> the
board page and the Gradio app beside it (:mod:`ui`) -> serve.
Run locally with ``python app.py`` (http://127.0.0.1:7860).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from leaderboard.config import Settings
    from leaderboard.service import Leaderboard

# The rest is imported inside the functions: a spawned worker (scoring, checks, model facts) runs this
# file again as ``__mp_main__`` before its first job, and imported Gradio and the UI with it (~2 s of
# CPU and ~200 MB each) for code it never runs (tests/submissions/test_worker_imports.py).


def open_leaderboard(settings: Settings) -> Leaderboard:
    """The leaderboard on the configured store; an empty local store gets demo data first."""
    from leaderboard.service import Leaderboard

    leaderboard = Leaderboard(settings)
    if settings.demo and not settings.uses_hub:
        leaderboard.seed_demo()
    return leaderboard


def main() -> None:
    from ui.gradio_pin import skip_type_stubs

    skip_type_stubs()  # before anything loads Gradio: ~1 s of CPU less at each start
    from leaderboard.config import Settings
    from leaderboard.reader import PublishedLeaderboard
    from submissions.job_bounds import JobBounds
    from ui.app import build_app, launch
    from ui.jobs import start_jobs, start_reader_jobs
    from ui.origin import serving_port
    from ui.page import cap_malloc_arenas, quiet_analytics

    logging.basicConfig(level=logging.INFO)
    for chatty in ("apscheduler", "httpx"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    settings = Settings.from_env().serving_on(serving_port)  # the port found free, known to every layer
    quiet_analytics()
    cap_malloc_arenas()
    if settings.reader:  # the boards from the published results only (docs/topology.md)
        leaderboard = PublishedLeaderboard.open(settings)
        start_reader_jobs(leaderboard, settings.ui.refresh_seconds)
    else:
        leaderboard = open_leaderboard(settings)
        bounds = JobBounds(settings.job_seconds, settings.job_memory_mb)
        if settings.scoring_workers:
            leaderboard.use_scoring_pool(settings.scoring_workers, bounds)
        leaderboard.use_facts_pool(1)  # model repos' facts: bounded requests, off the web process
        start_jobs(leaderboard, settings.ui.refresh_seconds)
    launch(build_app(leaderboard, settings.ui), leaderboard, settings.ui, settings.max_upload_bytes)


if __name__ == "__main__":
    main()
