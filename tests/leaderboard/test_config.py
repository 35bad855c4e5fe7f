"""Settings.from_env: every documented variable is read here, and a bad value names its variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from leaderboard.config import ConfigError, Settings, UiSettings

OAUTH_APP = {
    "OAUTH_CLIENT_ID": "app-id",
    "OAUTH_CLIENT_SECRET": "app-secret",
    "OAUTH_SCOPES": "openid profile",
    "OPENID_PROVIDER_URL": "https://huggingface.co",
}
SESSION_SECRET = {"LEADERBOARD_SESSION_SECRET": "s" * 32}
REPOS = {
    "LEADERBOARD_GOLD_REPO": "org/gold",
    "LEADERBOARD_SUBMISSIONS_REPO": "org/subs",
    "LEADERBOARD_RESULTS_REPO": "org/results",
}


def test_defaults_with_an_empty_environment():
    settings = Settings.from_env({})
    assert settings == Settings()
    assert settings.data_dir == Path("data") and not settings.uses_hub and settings.demo
    assert (settings.max_scored_per_day, settings.max_attempts_per_day) == (5, 20)
    assert settings.max_upload_bytes == 50 * 1024 * 1024 and settings.row_rule == "latest"
    assert settings.ui == UiSettings(oauth=False, local_user="local-user", refresh_seconds=60, server_port=None)
    assert settings.ui.server_name == "127.0.0.1"


def test_every_documented_variable_is_read():
    env = {
        **REPOS,
        **OAUTH_APP,
        **SESSION_SECRET,
        "LEADERBOARD_DATA_DIR": "/srv/lb",
        "HF_TOKEN": "hf_x",
        "HF_ENDPOINT": "http://127.0.0.1:9",
        "LEADERBOARD_MAINTAINERS": " ann, bob ,,",
        "LEADERBOARD_ADMIN_TOKEN": "secret",
        "LEADERBOARD_LOCAL_USER": "me",
        "LEADERBOARD_OAUTH": "1",
        "LEADERBOARD_MAX_SCORED_PER_DAY": "7",
        "LEADERBOARD_MAX_ATTEMPTS_PER_DAY": "0",
        "LEADERBOARD_MAX_UPLOAD_MB": "2",
        "LEADERBOARD_ROW_RULE": "best",
        "LEADERBOARD_REFRESH_SECONDS": "3",
        "LEADERBOARD_DEMO": "no",
        "GRADIO_SERVER_NAME": "0.0.0.0",
        "GRADIO_SERVER_PORT": "7861",
        "LEADERBOARD_SESSION_CAPACITY": "40",
        "LEADERBOARD_PUBLIC_URL": "https://board.example.org/",
        "LEADERBOARD_SCORING_WORKERS": "2",
        "LEADERBOARD_COMPARE_WORKERS": "0",
        "LEADERBOARD_JOB_SECONDS": "20",
        "LEADERBOARD_JOB_MEMORY_MB": "512",
    }
    s = Settings.from_env(env)
    assert (s.scoring_workers, s.compare_workers) == (2, 0)
    assert (s.job_seconds, s.job_memory_mb) == (20, 512)
    assert s.data_dir == Path("/srv/lb") and dict(s.hub_repos) == {
        "gold": "org/gold",
        "submissions": "org/subs",
        "results": "org/results",
    }
    assert (s.hub_token, s.hub_endpoint) == ("hf_x", "http://127.0.0.1:9")
    assert (s.max_scored_per_day, s.max_attempts_per_day, s.max_upload_bytes) == (7, 0, 2 * 1024 * 1024)
    assert s.row_rule == "best" and s.demo is False and s.uses_hub
    assert s.ui == UiSettings(
        oauth=True,
        session_secret="s" * 32,
        maintainers=("ann", "bob"),
        admin_token="secret",
        local_user="me",
        refresh_seconds=3,
        server_name="0.0.0.0",
        server_port=7861,
        session_capacity=40,
        public_url="https://board.example.org",
    )


def test_a_space_turns_oauth_on():
    space = {"SPACE_ID": "org/space", "SYSTEM": "spaces", **OAUTH_APP}
    settings = UiSettings.from_env(space)
    assert settings.oauth and settings.on_space and settings.space_id == "org/space"
    assert settings.session_secret is None  # on a Space Gradio's key from the secret OAuth client secret will do
    assert not UiSettings.from_env({"LEADERBOARD_OAUTH": "0"}).oauth


def test_the_public_address_is_configured_never_guessed():
    assert UiSettings.from_env({}).public_url is None
    space = {"SPACE_ID": "org/space", "SYSTEM": "spaces", "SPACE_HOST": "org-space.hf.space", **OAUTH_APP}
    assert UiSettings.from_env(space).public_url == "https://org-space.hf.space"  # a Space's own host
    # SPACE_HOST is set only by a Space, and it is configuration, not a request header (ui.origin)
    assert UiSettings.from_env({"SPACE_HOST": "org-space.hf.space"}).public_url == "https://org-space.hf.space"
    assert UiSettings.from_env({**space, "LEADERBOARD_PUBLIC_URL": "https://x.org"}).public_url == "https://x.org"
    with pytest.raises(ConfigError, match="LEADERBOARD_PUBLIC_URL"):
        UiSettings.from_env({"LEADERBOARD_PUBLIC_URL": "board.example.org"})


def test_sign_in_needs_a_real_oauth_app():
    with pytest.raises(ConfigError, match="OAUTH_CLIENT_SECRET, OAUTH_SCOPES.*hf_oauth: true"):
        UiSettings.from_env({"SPACE_ID": "org/space", "SYSTEM": "spaces", "OAUTH_CLIENT_ID": "x"})
    with pytest.raises(ConfigError, match="OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET.*settings/applications"):
        UiSettings.from_env({"LEADERBOARD_OAUTH": "1"})


def test_off_a_space_sign_in_needs_a_long_session_secret():
    for env in ({"LEADERBOARD_OAUTH": "1"}, {"SPACE_ID": "org/space"}):  # SPACE_ID alone is not a Space
        with pytest.raises(ConfigError, match="LEADERBOARD_SESSION_SECRET"):
            UiSettings.from_env({**env, **OAUTH_APP})
        with pytest.raises(ConfigError, match="at least 32"):
            UiSettings.from_env({**env, **OAUTH_APP, "LEADERBOARD_SESSION_SECRET": "short"})
        assert UiSettings.from_env({**env, **OAUTH_APP, **SESSION_SECRET}).oauth


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("LEADERBOARD_MAX_SCORED_PER_DAY", "five"),
        ("LEADERBOARD_MAX_ATTEMPTS_PER_DAY", "-1"),
        ("LEADERBOARD_MAX_UPLOAD_MB", "0"),
        ("LEADERBOARD_MAX_UPLOAD_MB", "1.5"),
        ("LEADERBOARD_REFRESH_SECONDS", "0"),
        ("LEADERBOARD_ROW_RULE", "worst"),
        ("LEADERBOARD_DEMO", "maybe"),
        ("LEADERBOARD_OAUTH", "yes please"),
        ("GRADIO_SERVER_PORT", "http"),
        ("GRADIO_SERVER_PORT", "70000"),
        ("LEADERBOARD_SESSION_CAPACITY", "0"),
        ("LEADERBOARD_SESSION_CAPACITY", "many"),
        ("LEADERBOARD_COMPARE_WORKERS", "17"),
    ],
)
def test_a_bad_value_names_its_variable(variable, value):
    with pytest.raises(ConfigError, match=variable):
        Settings.from_env({variable: value})


def test_hub_repos_are_all_three_or_none():
    with pytest.raises(ConfigError, match="LEADERBOARD_RESULTS_REPO"):
        Settings.from_env({k: v for k, v in REPOS.items() if k != "LEADERBOARD_RESULTS_REPO"})


def test_flags_accept_the_usual_spellings():
    for value, expected in (("1", True), ("TRUE", True), ("on", True), ("0", False), ("False", False), ("off", False)):
        assert Settings.from_env({"LEADERBOARD_DEMO": value}).demo is expected


def test_settings_hold_no_mutable_mapping():
    repos = {"gold": "g", "submissions": "s", "results": "r"}
    settings = Settings(hub_repos=repos)
    repos["gold"] = "changed"  # the caller's dict is copied
    assert settings.hub_repos["gold"] == "g"
    with pytest.raises(TypeError):
        settings.hub_repos["gold"] = "x"  # type: ignore[index]


def test_reads_the_process_environment_by_default(monkeypatch):
    monkeypatch.setenv("LEADERBOARD_LOCAL_USER", "from-env")
    assert Settings.from_env().ui.local_user == "from-env"


def test_the_maintainers_contact_is_configured_else_the_spaces_discussions():
    """Every message that sends a team to the maintainers says where (issue 19)."""
    configured = Settings.from_env({"LEADERBOARD_CONTACT": "leaderboard@example.org"})
    assert configured.contact == "leaderboard@example.org"
    assert configured.contact_url == "mailto:leaderboard@example.org"
    assert "leaderboard@example.org" in configured.contact_line
    url = Settings.from_env({"LEADERBOARD_CONTACT": "https://github.com/org/lb/issues"})
    assert url.contact_url == "https://github.com/org/lb/issues"
    space = Settings.from_env({"SPACE_ID": "org/space", "SYSTEM": "spaces", **OAUTH_APP})
    assert space.contact_url == "https://huggingface.co/spaces/org/space/discussions"
    assert "https://huggingface.co/spaces/org/space/discussions" in space.contact_line
    nothing = Settings.from_env({})
    assert nothing.contact_url is None and "LEADERBOARD_CONTACT" in nothing.contact_line
