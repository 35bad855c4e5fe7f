"""The test apps' shared demo seed (tests/support/app_server.py): apps whose settings differ only in
``NOT_SEEDING`` start from one seeded folder, so those settings must not change what is seeded.
Seeding with every one of them set away from its default gives the same stored submissions and
the same board rows as the default seed (intervals aside: their bootstrap differs seed to seed)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from scoring.benchmarks import BENCHMARKS
from tests.support.app_server import NOT_SEEDING, _seed_key, seed_environment, seeded_copy

AWAY_FROM_DEFAULT = {
    "LEADERBOARD_REFRESH_SECONDS": "2",
    "LEADERBOARD_FEEDBACK": "full",
    "LEADERBOARD_LOCAL_USER": "alice",
    "LEADERBOARD_ADMIN_TOKEN": "t",
    "GRADIO_TEMP_DIR": "/nonexistent-gradio-tmp",
    "LEADERBOARD_MAX_SCORED_PER_DAY": "1",
    "LEADERBOARD_MAX_ATTEMPTS_PER_DAY": "1",
    "LEADERBOARD_PUBLICATIONS_PER_WEEK": "1",
    "LEADERBOARD_MAINTAINERS": "somebody-else",
    "LEADERBOARD_PUBLIC_URL": "http://localhost:1",
    "LEADERBOARD_SESSION_CAPACITY": "1",
    "LEADERBOARD_SESSION_SECRET": "s" * 32,
    "LEADERBOARD_OAUTH": "0",
    "LEADERBOARD_CONTACT": "someone@example.org",
    "LEADERBOARD_TRUSTED_PROXIES": "10.0.0.0/8",
    "LEADERBOARD_COMPARE_WORKERS": "1",
    "LEADERBOARD_PUBLISH_SECONDS": "0",
    "LEADERBOARD_JOB_SECONDS": "1",
}
RANDOM_PER_SEED = ("rank", "rank_worst", "submitted", "row_id")


def what_was_seeded(folder: Path) -> tuple[Counter, dict]:
    """The stored files by kind and benchmark, and every board's rows without their intervals and
    the ranks that follow from them."""
    stored = Counter((p.relative_to(folder).parts[:2], p.name.split("-")[0]) for p in folder.rglob("*") if p.is_file())
    lb = Leaderboard(Settings(data_dir=folder, demo=False))
    boards = {}
    for bench in BENCHMARKS:
        table = lb.table(bench).drop(columns=list(RANDOM_PER_SEED), errors="ignore")
        table = table[[c for c in table.columns if not c.endswith("_ci")]].round(6)
        boards[bench] = sorted(map(repr, table.to_dict("records")))
    return stored, boards


def test_every_setting_the_seed_key_leaves_out_changes_nothing_seeded(tmp_path: Path) -> None:
    assert set(AWAY_FROM_DEFAULT) == set(NOT_SEEDING)
    default_env = {k: v for k, v in os.environ.items() if k not in NOT_SEEDING}
    seeded_copy(default_env, tmp_path / "default", str(tmp_path / "default"))
    away = Settings.from_env({**default_env, **AWAY_FROM_DEFAULT, "LEADERBOARD_DATA_DIR": str(tmp_path / "away")})
    assert Leaderboard(away).seed_demo()
    default, varied = what_was_seeded(tmp_path / "default"), what_was_seeded(tmp_path / "away")
    assert varied == default
    assert all(default[1].values())  # every board has rows: the comparison compared something


def test_a_path_put_there_for_the_app_alone_seeds_no_other_demo() -> None:
    """A sitecustomize on the app's path (tests/ui/test_gradio_pin.py, tests/ui/test_reader_app.py) is
    not the seed's: without plugins the seed runs without PYTHONPATH, so those apps share the default
    seed; with plugins the path is where they are imported from, and it counts."""
    base = {"LEADERBOARD_MAX_UPLOAD_MB": "6", "PYTHONPATH": "/somewhere/with/a/sitecustomize"}
    assert "PYTHONPATH" not in seed_environment(base)
    assert _seed_key(seed_environment(base)) == _seed_key(seed_environment({"LEADERBOARD_MAX_UPLOAD_MB": "6"}))
    plugin = {**base, "LEADERBOARD_PLUGINS": "scoring.benchmarks.toy"}
    assert seed_environment(plugin)["PYTHONPATH"] == base["PYTHONPATH"]
    assert _seed_key(seed_environment(plugin)) != _seed_key(seed_environment({**plugin, "PYTHONPATH": "/elsewhere"}))
