"""Settings.from_env: every documented variable is read here, and a bad value names its variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from leaderboard.config import ConfigError, Settings, UiSettings

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
    }
    s = Settings.from_env(env)
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
        maintainers=("ann", "bob"),
        admin_token="secret",
        local_user="me",
        refresh_seconds=3,
        server_name="0.0.0.0",
        server_port=7861,
    )


def test_a_space_turns_oauth_on():
    assert UiSettings.from_env({"SPACE_ID": "org/space"}).oauth
    assert not UiSettings.from_env({"LEADERBOARD_OAUTH": "0"}).oauth


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
