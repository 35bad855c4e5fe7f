"""Settings from environment variables: one place that documents every knob (README lists them)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


def _int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


def _list(name: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in os.environ.get(name, "").split(",") if v.strip())


@dataclass(frozen=True)
class Settings:
    """Everything configurable. ``from_env`` reads the documented variables."""

    data_dir: Path = Path("data")
    hub_repos: dict[str, str] = field(default_factory=dict)  # gold/submissions/results -> repo id
    hub_token: str | None = None
    hub_endpoint: str | None = None
    max_scored_per_day: int = 5
    max_attempts_per_day: int = 20
    max_upload_bytes: int = 50 * 1024 * 1024
    row_rule: str = "latest"  # or "best": which submission of a (team, model) is its row
    maintainers: tuple[str, ...] = ()
    admin_token: str | None = None
    local_user: str = "local-user"
    demo: bool = True  # seed an empty local store with demo gold and submissions
    refresh_seconds: int = 60
    plugins: tuple[str, ...] = ()  # modules that register more benchmarks (and their demos) on import

    @property
    def uses_hub(self) -> bool:
        return bool(self.hub_repos)

    @classmethod
    def from_env(cls) -> Settings:
        repos = {
            repo: os.environ[var]
            for repo, var in (
                ("gold", "LEADERBOARD_GOLD_REPO"),
                ("submissions", "LEADERBOARD_SUBMISSIONS_REPO"),
                ("results", "LEADERBOARD_RESULTS_REPO"),
            )
            if os.environ.get(var)
        }
        if repos and len(repos) != 3:
            raise ValueError(
                "set all three of LEADERBOARD_GOLD_REPO, LEADERBOARD_SUBMISSIONS_REPO, LEADERBOARD_RESULTS_REPO"
            )
        row_rule = os.environ.get("LEADERBOARD_ROW_RULE", "latest")
        if row_rule not in ("latest", "best"):
            raise ValueError("LEADERBOARD_ROW_RULE must be 'latest' or 'best'")
        return cls(
            data_dir=Path(os.environ.get("LEADERBOARD_DATA_DIR", "data")),
            hub_repos=repos,
            hub_token=os.environ.get("HF_TOKEN") or None,
            hub_endpoint=os.environ.get("HF_ENDPOINT") or None,
            max_scored_per_day=_int("LEADERBOARD_MAX_SCORED_PER_DAY", 5),
            max_attempts_per_day=_int("LEADERBOARD_MAX_ATTEMPTS_PER_DAY", 20),
            max_upload_bytes=_int("LEADERBOARD_MAX_UPLOAD_MB", 50) * 1024 * 1024,
            row_rule=row_rule,
            maintainers=_list("LEADERBOARD_MAINTAINERS"),
            admin_token=os.environ.get("LEADERBOARD_ADMIN_TOKEN") or None,
            local_user=os.environ.get("LEADERBOARD_LOCAL_USER", "local-user"),
            demo=os.environ.get("LEADERBOARD_DEMO", "1") not in ("0", "false", "no"),
            refresh_seconds=_int("LEADERBOARD_REFRESH_SECONDS", 60),
            plugins=_list("LEADERBOARD_PLUGINS"),
        )
