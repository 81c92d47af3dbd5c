"""The shipped .env.example, filled in for one platform, configures a bot that starts with it."""

from __future__ import annotations

import re

import pytest
import yaml

from bot.compose.front_ends import plan
from config.settings import Settings
from tests.deploy.test_dockerfile import final_stage, replay
from tests.support.paths import ROOT


def filled(tokens: dict[str, str]) -> str:
    """.env.example as an operator fills it in: the lines of ``tokens`` uncommented and set."""
    text = (ROOT / ".env.example").read_text("utf-8")
    for name, value in tokens.items():
        text, found = re.subn(rf"^#? ?{name}=.*$", f"{name}={value}", text, flags=re.M)
        assert found == 1, name
    return text


def env_file(text: str) -> dict[str, str]:
    """What ``env_file:`` hands the container: ``KEY=VALUE`` lines, comments and blanks skipped."""
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            out[key.strip()] = value
    return out


def container_environment(text: str) -> dict[str, str]:
    """The bot container's environment: the image's ENV, then ``env_file``, then ``environment``."""
    module = replay()
    env: dict[str, str] = {}
    for keyword, rest in final_stage():
        if keyword == "ENV":
            env.update(dict(module.env_pairs(rest)))
    env.update(env_file(text))
    bot = yaml.safe_load((ROOT / "compose.yaml").read_text("utf-8"))["services"]["bot"]
    env.update({key: str(value) for key, value in bot["environment"].items()})
    env.pop("PATH", None)
    return env


def settings_in(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Settings:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return Settings()


def test_discord_only_env_file_runs_discord_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only DISCORD_TOKEN filled in: serve runs Discord, with no Slack front end or complaint."""
    env = container_environment(filled({"DISCORD_TOKEN": "discord-token"}))
    chosen = plan(settings_in(env, monkeypatch))
    assert chosen.front_ends == ("discord",) and chosen.problems == ()


def test_slack_only_env_file_runs_slack_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the two Slack tokens filled in: serve runs Slack in Socket Mode and no Discord."""
    tokens = {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1"}
    env = container_environment(filled(tokens))
    chosen = plan(settings_in(env, monkeypatch))
    assert chosen.front_ends == ("slack-socket",) and chosen.problems == ()


def test_slack_http_env_file_runs_slack_over_http(monkeypatch: pytest.MonkeyPatch) -> None:
    """The HTTP-mode lines filled in: serve runs Slack over HTTP on SLACK_PORT."""
    tokens = {
        "SLACK_BOT_TOKEN": "xoxb-1",
        "SLACK_SIGNING_SECRET": "s3cret",
        "SLACK_MODE": "http",
        "SLACK_PORT": "3000",
    }
    settings = settings_in(container_environment(filled(tokens)), monkeypatch)
    assert plan(settings).front_ends == ("slack-http",) and settings.slack.port == 3000


def test_env_example_sets_nothing_as_shipped() -> None:
    """Unfilled, .env.example hands the container no variable at all (optional lines commented)."""
    assert env_file((ROOT / ".env.example").read_text("utf-8")) == {}
