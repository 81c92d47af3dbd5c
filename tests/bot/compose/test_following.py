"""What may be followed, from the settings: the allow-list, the caps, the access."""

from __future__ import annotations

import pytest

from bot.commands.following import Caps, allow_list
from bot.compose.following import caps
from config.settings import AppConfig, Settings, load_config
from digest.errors import ConfigError


def test_the_environment_list_wins_over_the_files_and_the_configured_repositories_join() -> None:
    """``VLLM_REPORT_ALLOWED_REPOS`` replaces the file's ``allowed_repos``; the default and
    the ``repos:`` repositories are on any list."""
    config = AppConfig.model_validate(
        {**load_config().model_dump(), "allowed_repos": ["file-owner/*"]}
    )
    from_file = allow_list(Settings(), config)
    assert from_file.allows("file-owner/x") and from_file.allows("vllm-project/vllm")
    assert not from_file.allows("env-owner/x")
    from_env = allow_list(Settings(allowed_repos="env-owner/*, sgl-project/sglang"), config)
    assert from_env.allows("env-owner/x") and from_env.allows("SGL-project/sglang")
    assert not from_env.allows("file-owner/x") and from_env.allows("vllm-project/vllm")


def test_without_a_list_every_repository_is_allowed() -> None:
    """No list anywhere: any repository (public, as GitHub says) may be followed."""
    assert not allow_list(Settings(), load_config()).restricted


def test_a_malformed_pattern_names_the_variable() -> None:
    """A bad pattern in the environment is a configuration error naming the variable."""
    with pytest.raises(ConfigError, match="VLLM_REPORT_ALLOWED_REPOS: 'evil' is neither"):
        allow_list(Settings(allowed_repos="vllm-project/*,evil"), load_config())


def test_a_malformed_pattern_in_the_file_is_refused() -> None:
    """The configuration file's ``allowed_repos`` is checked when it is read."""
    with pytest.raises(ValueError, match="neither owner/name nor owner/"):
        AppConfig.model_validate({"allowed_repos": ["*"]})


def test_the_caps_follow_the_settings() -> None:
    """The caps are the settings', with the documented defaults."""
    assert caps(Settings()) == Caps(per_channel=10, per_workspace=50, total=1000)
    assert caps(Settings(max_subscriptions_per_channel=2)).per_channel == 2
