"""Settings from environment variables: the one place that reads them (README lists every one).

A value the app cannot use raises :class:`ConfigError` naming its variable, so a misconfigured
Space stops at start with a message that says what to fix instead of a bare ``ValueError``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

HUB_REPO_VARIABLES = (
    ("gold", "LEADERBOARD_GOLD_REPO"),
    ("submissions", "LEADERBOARD_SUBMISSIONS_REPO"),
    ("results", "LEADERBOARD_RESULTS_REPO"),
)
ROW_RULES = ("latest", "best")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


class ConfigError(ValueError):
    """A setting holds a value the app cannot use; the message names the variable."""


class _Env:
    """Typed reads of one environment mapping; every refusal names the variable."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ

    def text(self, name: str, default: str = "") -> str:
        return self.environ.get(name, "").strip() or default

    def optional(self, name: str) -> str | None:
        return self.text(name) or None

    def whole(self, name: str, default: int, minimum: int = 0, maximum: int | None = None) -> int:
        raw = self.text(name)
        if not raw:
            return default
        try:
            value = int(raw)
        except ValueError:
            raise ConfigError(f"{name} must be a whole number, got {raw!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            bounds = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
            raise ConfigError(f"{name} must be {bounds}, got {value}")
        return value

    def flag(self, name: str, default: bool) -> bool:
        raw = self.text(name).lower()
        if not raw:
            return default
        if raw in _TRUE or raw in _FALSE:
            return raw in _TRUE
        raise ConfigError(f"{name} must be one of {', '.join(_TRUE + _FALSE)}, got {raw!r}")

    def choice(self, name: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.text(name, default)
        if value not in choices:
            raise ConfigError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
        return value

    def names(self, name: str) -> tuple[str, ...]:
        return tuple(v.strip() for v in self.environ.get(name, "").split(",") if v.strip())

    def hub_repos(self) -> dict[str, str]:
        repos = {repo: self.text(var) for repo, var in HUB_REPO_VARIABLES if self.text(var)}
        if repos and len(repos) != len(HUB_REPO_VARIABLES):
            missing = [var for repo, var in HUB_REPO_VARIABLES if repo not in repos]
            raise ConfigError(f"set all three Hub repos or none; missing {', '.join(missing)}")
        return repos


@dataclass(frozen=True)
class UiSettings:
    """What only the web app reads: who may act, how often boards redraw, where it listens."""

    oauth: bool = False  # Sign in with Hugging Face: on a Space, or asked for (offline it would crash)
    maintainers: tuple[str, ...] = ()
    admin_token: str | None = None
    local_user: str = "local-user"
    refresh_seconds: int = 60
    server_name: str = "127.0.0.1"
    server_port: int | None = None  # None: Gradio's default (7860, or the next free port)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> UiSettings:
        env = _Env(os.environ if environ is None else environ)
        return cls(
            oauth=bool(env.text("SPACE_ID")) or env.flag("LEADERBOARD_OAUTH", False),
            maintainers=env.names("LEADERBOARD_MAINTAINERS"),
            admin_token=env.optional("LEADERBOARD_ADMIN_TOKEN"),
            local_user=env.text("LEADERBOARD_LOCAL_USER", "local-user"),
            refresh_seconds=env.whole("LEADERBOARD_REFRESH_SECONDS", 60, minimum=1),
            server_name=env.text("GRADIO_SERVER_NAME", "127.0.0.1"),
            server_port=env.whole("GRADIO_SERVER_PORT", 0, minimum=1, maximum=65535) or None,
        )


@dataclass(frozen=True)
class Settings:
    """Everything configurable. ``from_env`` reads the documented variables.

    Store and quota knobs stay flat (the facade and the store read them by these names); what
    only the web app reads is grouped in ``ui``. ``hub_repos`` is a read-only mapping.
    """

    data_dir: Path = Path("data")
    hub_repos: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # repo -> Hub repo id
    hub_token: str | None = None
    hub_endpoint: str | None = None
    max_scored_per_day: int = 5
    max_attempts_per_day: int = 20
    max_upload_bytes: int = 50 * 1024 * 1024
    row_rule: str = "latest"  # or "best": which submission of a (team, model) is its row
    demo: bool = True  # seed an empty local store with demo gold and submissions
    ui: UiSettings = field(default_factory=UiSettings)
    plugins: tuple[str, ...] = ()  # modules that register more benchmarks (and their demos) on import
    bootstrap_secret: str | None = field(default=None, repr=False)  # seeds intervals; stored one if None

    def __post_init__(self) -> None:
        object.__setattr__(self, "hub_repos", MappingProxyType(dict(self.hub_repos)))

    @property
    def uses_hub(self) -> bool:
        return bool(self.hub_repos)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = _Env(os.environ if environ is None else environ)
        return cls(
            data_dir=Path(env.text("LEADERBOARD_DATA_DIR", "data")),
            hub_repos=env.hub_repos(),
            hub_token=env.optional("HF_TOKEN"),
            hub_endpoint=env.optional("HF_ENDPOINT"),
            max_scored_per_day=env.whole("LEADERBOARD_MAX_SCORED_PER_DAY", 5),
            max_attempts_per_day=env.whole("LEADERBOARD_MAX_ATTEMPTS_PER_DAY", 20),
            max_upload_bytes=env.whole("LEADERBOARD_MAX_UPLOAD_MB", 50, minimum=1) * 1024 * 1024,
            row_rule=env.choice("LEADERBOARD_ROW_RULE", "latest", ROW_RULES),
            demo=env.flag("LEADERBOARD_DEMO", True),
            ui=UiSettings.from_env(environ),
            plugins=env.names("LEADERBOARD_PLUGINS"),
            bootstrap_secret=env.optional("LEADERBOARD_BOOTSTRAP_SECRET"),
        )
