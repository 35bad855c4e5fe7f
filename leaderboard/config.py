"""Settings from environment variables: the one place that reads them (docs/configuration.md lists them).

A value the app cannot use raises :class:`ConfigError` naming its variable, so a misconfigured
Space stops at start with a message that says what to fix instead of a bare ``ValueError``.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from urllib.parse import urlsplit

HUB_REPO_VARIABLES = (
    ("gold", "LEADERBOARD_GOLD_REPO"),
    ("submissions", "LEADERBOARD_SUBMISSIONS_REPO"),
    ("results", "LEADERBOARD_RESULTS_REPO"),
)
ROW_RULES = ("latest", "best")
WRITER, READER = "writer", "reader"
ROLES = (WRITER, READER)  # LEADERBOARD_ROLE: the full app, or a read-only mirror of the published results
# Gradio's names for the OAuth app; a Space with ``hf_oauth: true`` injects them.
OAUTH_APP_VARIABLES = ("OAUTH_CLIENT_ID", "OAUTH_CLIENT_SECRET", "OAUTH_SCOPES", "OPENID_PROVIDER_URL")
PRIVATE_NETWORKS = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
"""Where a Space's own proxy talks to the app from (LEADERBOARD_TRUSTED_PROXIES' default on a Space);
no visitor reaches a Space from them."""
MIN_SESSION_SECRET = 32  # characters of LEADERBOARD_SESSION_SECRET
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

    def share(self, name: str, default: float) -> float:
        raw = self.text(name)
        if not raw:
            return default
        try:
            value = float(raw)
        except ValueError:
            raise ConfigError(f"{name} must be a share between 0 and 1, e.g. 0.95; got {raw!r}") from None
        if not 0 <= value <= 1:
            raise ConfigError(f"{name} must be a share between 0 and 1, e.g. 0.95; got {raw!r}")
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

    def networks(self, name: str, default: tuple[str, ...]) -> tuple[str, ...]:
        """Addresses or CIDR ranges, comma-separated (``private``: the private ranges; ``none``: no
        address); unset: ``default``."""
        if name not in self.environ:
            return default
        out: list[str] = []
        for item in self.names(name):
            if item.lower() in ("none", "private"):
                out += PRIVATE_NETWORKS if item.lower() == "private" else []
                continue
            try:
                out.append(str(ipaddress.ip_network(item, strict=False)))
            except ValueError:
                raise ConfigError(
                    f"{name} must list addresses or CIDR ranges (or private, none), got {item!r}"
                ) from None
        return tuple(out)

    def oauth_app(self, on_space: bool) -> None:
        """Sign-in needs a real OAuth app, and off a Space a session secret of our own: without
        them Gradio would sign everyone in as the machine's HF account, with cookies signed by a
        public constant."""
        missing = [name for name in OAUTH_APP_VARIABLES if not self.text(name)]
        if missing:
            where = (
                "set `hf_oauth: true` in the Space's README metadata"
                if on_space
                else "create an OAuth app at https://huggingface.co/settings/applications and set them"
            )
            raise ConfigError(f"Sign in with Hugging Face needs {', '.join(missing)}: {where}")
        secret = self.text("LEADERBOARD_SESSION_SECRET")
        if (secret or not on_space) and len(secret) < MIN_SESSION_SECRET:
            raise ConfigError(
                f"LEADERBOARD_SESSION_SECRET must be a random string of at least {MIN_SESSION_SECRET} characters "
                "to sign session cookies outside a Space "
                "(e.g. `python -c 'import secrets; print(secrets.token_hex(32))'`)"
            )

    def url(self, name: str) -> str | None:
        value = self.optional(name)
        if value is not None and not value.startswith(("https://", "http://")):
            raise ConfigError(
                f"{name} must be an http(s) address, e.g. https://huggingface.co/spaces/org/name; got {value!r}"
            )
        return value

    def public_url(self) -> str | None:
        """The address visitors use: ``LEADERBOARD_PUBLIC_URL``, else on a Space ``https://`` and the
        first of ``SPACE_HOST`` (a custom domain is listed after the hf.space one), else None (local).
        Only an origin and an optional path: no query, fragment or trailing slash."""
        value = self.url("LEADERBOARD_PUBLIC_URL")
        if value is None:
            host = self.text("SPACE_HOST").split(",")[0].strip()
            if not host:
                return None
            value = f"https://{host}"
        parts = urlsplit(value)
        if not parts.hostname or parts.query or parts.fragment or "@" in parts.netloc:
            raise ConfigError(
                f"LEADERBOARD_PUBLIC_URL (or SPACE_HOST) must be a plain address such as "
                f"https://org-leaderboard.hf.space; got {value!r}"
            )
        return value.rstrip("/")

    def reader_repos(self) -> dict[str, str]:
        """A reader reads the public results repo only: holding the private repos' names (and so,
        likely, a token for them) is the misconfiguration it exists to avoid."""
        private = [var for repo, var in HUB_REPO_VARIABLES if repo != "results" and self.text(var)]
        if private:
            raise ConfigError(
                f"LEADERBOARD_ROLE=reader reads only LEADERBOARD_RESULTS_REPO; unset {', '.join(private)} "
                "(a reader must not hold the private repos)"
            )
        results = self.text("LEADERBOARD_RESULTS_REPO")
        return {"results": results} if results else {}

    def hub_datasets(self, name: str) -> dict[str, str]:
        """``benchmark=owner/name,...``: the Hub dataset each benchmark is registered as, when it is
        not its declaration's (the authors'); a value without an owner is refused, as the Hub would."""
        out = {}
        for item in self.names(name):
            benchmark, _, dataset = item.partition("=")
            if not benchmark.strip() or dataset.strip().count("/") != 1 or dataset.strip().startswith("/"):
                raise ConfigError(f"{name} must be benchmark=owner/dataset pairs separated by commas, got {item!r}")
            out[benchmark.strip()] = dataset.strip()
        return out

    def hub_repos(self) -> dict[str, str]:
        repos = {repo: self.text(var) for repo, var in HUB_REPO_VARIABLES if self.text(var)}
        if repos and len(repos) != len(HUB_REPO_VARIABLES):
            missing = [var for repo, var in HUB_REPO_VARIABLES if repo not in repos]
            raise ConfigError(f"set all three Hub repos or none; missing {', '.join(missing)}")
        return repos


@dataclass(frozen=True)
class UiSettings:
    """What only the web app reads: who may act, how often boards redraw, where it listens."""

    oauth: bool = False  # Sign in with Hugging Face: on a Space, or asked for (with a real OAuth app)
    on_space: bool = False  # Gradio's own test: SYSTEM=spaces and SPACE_ID set
    space_id: str | None = None
    session_secret: str | None = field(default=None, repr=False)  # signs the session cookie; None: Gradio's
    maintainers: tuple[str, ...] = ()
    admin_token: str | None = None
    local_user: str = "local-user"
    refresh_seconds: int = 60
    server_name: str = "127.0.0.1"
    server_port: int | None = None  # None: Gradio's default (7860, or the next free port)
    role: str = WRITER  # READER: only the boards, from the published results (docs/topology.md)
    writer_url: str | None = None  # where a reader sends visitors who want to submit
    session_capacity: int | None = None  # sessions Gradio keeps in memory; None: ui.page.SESSION_CAPACITY
    public_url: str | None = None  # the page's root (ui.origin); None: local, the app's own address
    trusted_proxies: tuple[str, ...] = ()  # peers whose X-Forwarded-For is believed (ui.throttle.client_of)

    @property
    def reader(self) -> bool:
        return self.role == READER

    def served_root(self, port: int | None = None) -> str:
        """The address the app serves at, from configuration only (never a request's Host):
        ``public_url``, else ``http://`` the server name (127.0.0.1 for a wildcard) and ``port``, else
        the configured ``server_port``, else Gradio's default :data:`GRADIO_DEFAULT_PORT`. The app
        pins the port it found free into its settings at start (``app.py``), so this is the port it runs on."""
        if self.public_url:
            return self.public_url
        host = self.server_name if self.server_name not in WILDCARD_HOSTS else "127.0.0.1"
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port or self.server_port or GRADIO_DEFAULT_PORT}"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> UiSettings:
        env = _Env(os.environ if environ is None else environ)
        space_id = env.optional("SPACE_ID")
        on_space = bool(space_id) and env.text("SYSTEM") == "spaces"
        role = env.choice("LEADERBOARD_ROLE", WRITER, ROLES)
        oauth = role == WRITER and (bool(space_id) or env.flag("LEADERBOARD_OAUTH", False))  # a reader signs no one in
        if oauth:
            env.oauth_app(on_space)
        return cls(
            oauth=oauth,
            on_space=on_space,
            space_id=space_id,
            session_secret=env.optional("LEADERBOARD_SESSION_SECRET"),
            maintainers=env.names("LEADERBOARD_MAINTAINERS"),
            admin_token=env.optional("LEADERBOARD_ADMIN_TOKEN"),
            local_user=env.text("LEADERBOARD_LOCAL_USER", "local-user"),
            refresh_seconds=env.whole("LEADERBOARD_REFRESH_SECONDS", 60, minimum=1),
            server_name=env.text("GRADIO_SERVER_NAME", "127.0.0.1"),
            server_port=env.whole("GRADIO_SERVER_PORT", 0, minimum=1, maximum=65535) or None,
            role=role,
            writer_url=env.url("LEADERBOARD_WRITER_URL"),
            session_capacity=env.whole("LEADERBOARD_SESSION_CAPACITY", 0, minimum=1) or None,
            public_url=env.public_url(),
            trusted_proxies=env.networks("LEADERBOARD_TRUSTED_PROXIES", PRIVATE_NETWORKS if on_space else ()),
        )


GRADIO_DEFAULT_PORT = 7860
"""Gradio's port when GRADIO_SERVER_PORT is not set (it takes the next free one if that is taken)."""
WILDCARD_HOSTS = ("", "0.0.0.0", "::")
"""Server names that bind every address and so name none a visitor can use."""
FEEDBACK_POLICIES = ("full", "ladder")
REFRESH_AT_LEAST_EVERY = 5
"""Seconds: the app's refresh poll (LEADERBOARD_REFRESH_SECONDS) never runs more often (ui.jobs)."""


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
    min_coverage: float = 0.95  # a scored file answers at least this share of the questions (0 turns it off)
    demo: bool = True  # seed an empty local store with demo gold and submissions
    publish_seconds: int = 300  # the public tables are committed at most this often (maintainers: at once)
    push_seconds: int = 60  # derived files wait at most about this long to be pushed, batched, to the Hub
    ui: UiSettings = field(default_factory=UiSettings)
    plugins: tuple[str, ...] = ()  # modules that register more benchmarks (and their demos) on import
    scoring_workers: int = 1  # the app scores uploads in this many niced worker processes (0: in process)
    compare_workers: int = 1  # LEADERBOARD_COMPARE_WORKERS: read, no longer used (Compare is computed in the browser)
    job_seconds: int = 60  # a worker's job (a check, a scoring, a comparison) is stopped after this long
    job_memory_mb: int = 1024  # or once its worker holds this much more memory than when it began
    feedback: str = "ladder"  # "ladder": the Ladder rule per team (docs/integrity.md); "full": every result shown
    publications_per_week: int = 3  # submissions a team may newly make public per benchmark in 7 days (Ladder)
    auto_hold: bool = True  # hold further suspicious submissions of a flagged probe series for review
    bootstrap_secret: str | None = field(default=None, repr=False)  # seeds intervals; stored one if None
    results_dir: Path | None = None  # a local reader's published folder; None: data_dir / "results"
    contact: str | None = None  # where teams reach the maintainers (a URL or an e-mail address)
    hub_datasets: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # benchmark -> Hub dataset

    def __post_init__(self) -> None:
        object.__setattr__(self, "hub_repos", MappingProxyType(dict(self.hub_repos)))
        object.__setattr__(self, "hub_datasets", MappingProxyType(dict(self.hub_datasets)))

    @property
    def uses_hub(self) -> bool:
        return bool(self.hub_repos)

    def serving_on(self, port_of: Callable[[UiSettings], int]) -> Settings:
        """These settings with the port the app will serve on pinned (``port_of``: the configured one,
        else the first free one, ui.origin.serving_port), so every layer names the same address."""
        return replace(self, ui=replace(self.ui, server_port=port_of(self.ui)))

    @property
    def reader(self) -> bool:
        return self.ui.reader

    @property
    def contact_line(self) -> str:
        """Where a team reaches the maintainers, as a phrase for messages: ``LEADERBOARD_CONTACT``,
        else on a Space its community discussions, else a plain phrase (nothing configured)."""
        if self.contact:
            return f"the maintainers at {self.contact}"
        if self.ui.space_id:
            return f"the maintainers in the Space's discussions, https://huggingface.co/spaces/{self.ui.space_id}/discussions"
        return "the maintainers of this leaderboard (no contact is configured: LEADERBOARD_CONTACT)"

    @property
    def contact_url(self) -> str | None:
        """A link to the maintainers, or None when none is configured."""
        if self.contact:
            return self.contact if "://" in self.contact else f"mailto:{self.contact}"
        return f"https://huggingface.co/spaces/{self.ui.space_id}/discussions" if self.ui.space_id else None

    @property
    def published_folder(self) -> Path:
        """Where a local writer publishes, hence where a local reader reads."""
        return self.results_dir or self.data_dir / "results"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = _Env(os.environ if environ is None else environ)
        ui = UiSettings.from_env(environ)
        results_dir = env.optional("LEADERBOARD_RESULTS_DIR")
        return cls(
            data_dir=Path(env.text("LEADERBOARD_DATA_DIR", "data")),
            hub_repos=env.reader_repos() if ui.reader else env.hub_repos(),
            hub_token=env.optional("HF_TOKEN"),
            hub_endpoint=env.optional("HF_ENDPOINT"),
            max_scored_per_day=env.whole("LEADERBOARD_MAX_SCORED_PER_DAY", 5),
            max_attempts_per_day=env.whole("LEADERBOARD_MAX_ATTEMPTS_PER_DAY", 20),
            max_upload_bytes=env.whole("LEADERBOARD_MAX_UPLOAD_MB", 50, minimum=1) * 1024 * 1024,
            row_rule=env.choice("LEADERBOARD_ROW_RULE", "latest", ROW_RULES),
            min_coverage=env.share("LEADERBOARD_MIN_COVERAGE", 0.95),
            demo=env.flag("LEADERBOARD_DEMO", True),
            publish_seconds=env.whole("LEADERBOARD_PUBLISH_SECONDS", 300),
            push_seconds=env.whole("LEADERBOARD_PUSH_SECONDS", 60, minimum=1),
            ui=ui,
            plugins=env.names("LEADERBOARD_PLUGINS"),
            scoring_workers=env.whole("LEADERBOARD_SCORING_WORKERS", 1, maximum=64),
            compare_workers=env.whole("LEADERBOARD_COMPARE_WORKERS", 1, maximum=16),
            job_seconds=env.whole("LEADERBOARD_JOB_SECONDS", 60, minimum=1),
            job_memory_mb=env.whole("LEADERBOARD_JOB_MEMORY_MB", 1024, minimum=64),
            feedback=env.choice("LEADERBOARD_FEEDBACK", "ladder", FEEDBACK_POLICIES),
            publications_per_week=env.whole("LEADERBOARD_PUBLICATIONS_PER_WEEK", 3, minimum=1),
            auto_hold=env.flag("LEADERBOARD_AUTO_HOLD", True),
            bootstrap_secret=env.optional("LEADERBOARD_BOOTSTRAP_SECRET"),
            results_dir=Path(results_dir) if results_dir else None,
            contact=env.optional("LEADERBOARD_CONTACT"),
            hub_datasets=env.hub_datasets("LEADERBOARD_HUB_DATASETS"),
        )
