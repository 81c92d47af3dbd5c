"""Configuration: defaults, YAML overrides and environment settings."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from bot.compose import load_settings
from config.settings import LimitSettings, Settings, load_config, unknown_variables
from digest.errors import ConfigError
from digest.models import Lang
from digest.state.limiter import Rate
from tests.support.settings import llm_configured


def test_default_config_has_vllm_and_the_rocm_topic() -> None:
    """With no file, the default repository is vLLM with the ROCm focus topic."""
    config = load_config()
    assert config.default_repo == "vllm-project/vllm"
    (topic,) = config.topics_for("vllm-project/vllm")
    assert topic.name == "rocm"
    assert "[ROCm]" in topic.tags and "MI300X" in topic.keywords


def test_yaml_overrides_and_adds(tmp_path: Path) -> None:
    """A YAML file adds topics and repositories on top of the defaults."""
    path = tmp_path / "c.yaml"
    path.write_text(
        "default_repo: pytorch/pytorch\n"
        "repos:\n  pytorch/pytorch: {timezone: Europe/Berlin, day_start: '09:00', topics: [tpu]}\n"
        "topics:\n  tpu: {title_en: TPU, title_zh: TPU 动态, keywords: [TPU]}\n",
        "utf-8",
    )
    config = load_config(path)
    assert config.default_repo == "pytorch/pytorch"
    assert [t.name for t in config.topics_for("pytorch/pytorch")] == ["tpu"]
    assert config.topic("rocm").name == "rocm"
    assert config.repo("PyTorch/PyTorch").timezone == "Europe/Berlin"


@pytest.mark.parametrize(
    "text", ["default_repo: [", "- a list", "unknown_key: 1", "default_repo: not-a-repo"]
)
def test_bad_config_files_are_clear_errors(tmp_path: Path, text: str) -> None:
    """Invalid YAML or schema violations raise ConfigError naming the file or field."""
    path = tmp_path / "bad.yaml"
    path.write_text(text, "utf-8")
    with pytest.raises(ConfigError):
        load_config(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "repos:\n  o/r: {timezone: Mars/Olympus}\n",
            "repos.o/r.timezone: unknown timezone 'Mars/Olympus'",
        ),
        ("repos:\n  o/r: {day_start: 7am}\n", "repos.o/r.day_start: bad day start '7am'"),
        (
            "subscriptions:\n  - {platform: slack, channel: C1, time: '25:00'}\n",
            "subscriptions.0.time: bad day start '25:00'",
        ),
        ("topics:\n  rocm: {keywords: ROCm}\n", "topics.rocm.keywords: Input should be"),
        ("default_lang: fr\n", "default_lang: Input should be 'zh' or 'en'"),
        (
            "subscriptions:\n  - {platform: slack, channel: C1, lang: ZH}\n",
            "subscriptions.0.lang: Input should be 'zh' or 'en'",
        ),
        ("scopes:\n  s: {repos: []}\n", "scopes.s.repos: List should have at least 1 item"),
        ("scopes:\n  s: {repos: [vllm]}\n", "scopes.s.repos: 'vllm' is neither owner/name"),
        (
            "scopes:\n  s: {repos: [a/b, A/B]}\n",
            "scopes.s.repos: a repository is listed twice",
        ),
        ("scopes:\n  s: {repos: ['amd/x/*']}\n", "'amd/x/*' is neither owner/name nor owner/*"),
        ("scopes:\n  s: {repos: ['amd/*'], owner_cap: 0}\n", "scopes.s.owner_cap: Input should"),
        (
            "scopes:\n  s: {repos: [a/b], topics: [tpu]}\n",
            "scope 's' names unknown topic 'tpu' (configured topics: rocm)",
        ),
        (
            "scopes:\n  s: {repos: [a/b], exclude: {titles: ['(bump']}}\n",
            "s: exclude.titles: '(bump' is not a regular expression",
        ),
        (
            "scopes:\n  s: {repos: [a/b], exclude: {label: [x]}}\n",
            "scopes.s.exclude.label: Extra inputs are not permitted",
        ),
        ("scopes:\n  'a b': {repos: [a/b]}\n", "'a b' is not a scope name"),
        ("scopes:\n  s: {repos: [a/b], timezone: Mars}\n", "scopes.s.timezone: unknown timezone"),
    ],
)
def test_bad_values_are_named_on_one_line(tmp_path: Path, text: str, message: str) -> None:
    """A bad timezone, cut-off or field type is refused at load, on one line naming the field."""
    path = tmp_path / "bad.yaml"
    path.write_text(text, "utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_the_default_language_is_a_language(tmp_path: Path) -> None:
    """`default_lang: zh` reads as Chinese; without it the default is English."""
    path = tmp_path / "zh.yaml"
    path.write_text("default_lang: zh\n", "utf-8")
    assert load_config(path).default_lang is Lang.ZH
    assert load_config().default_lang is Lang.EN


def test_a_scope_reads_as_its_repositories_and_filters(tmp_path: Path) -> None:
    """A configured scope: its repositories, day, topics and filters, found in any case; an
    unknown one names the configured ones."""
    path = tmp_path / "scopes.yaml"
    path.write_text(
        "scopes:\n"
        "  serving:\n"
        "    repos: [vllm-project/vllm, sgl-project/sglang]\n"
        "    day_start: '08:00'\n"
        "    topics: [rocm]\n"
        "    exclude: {labels: [dependencies], authors: ['*[bot]'], bots: true,\n"
        "              titles: ['^Bump ']}\n",
        "utf-8",
    )
    config = load_config(path)
    scope = config.scope("Serving")
    assert scope.name == "serving" and scope.repos == ("vllm-project/vllm", "sgl-project/sglang")
    assert scope.day_start == "08:00" and scope.timezone is None and scope.topics == ("rocm",)
    assert scope.filters.exclude_labels == ("dependencies",) and scope.filters.exclude_bots
    assert scope.filters.exclude_authors == ("*[bot]",)
    assert scope.filters.exclude_titles == ("^Bump ",)
    assert [t.name for t in config.scope_topics(scope)] == ["rocm"]
    with pytest.raises(ConfigError, match=r"unknown scope 'x' \(configured scopes: serving\)"):
        config.scope("x")


def test_unknown_topic_lists_the_configured_ones() -> None:
    """Asking for a topic that does not exist names the ones that do."""
    with pytest.raises(ConfigError, match="rocm"):
        load_config().topic("quantum")


def test_secrets_from_environment_never_print(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tokens are SecretStr: the settings' repr does not show them."""
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_supersecret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("LLM_MODEL", "m")
    settings = Settings()
    assert settings.github.token is not None
    assert settings.github.token.get_secret_value() == "ghp_supersecret"
    assert settings.llm.api_key is not None and llm_configured(settings.llm)
    assert "supersecret" not in repr(settings) and "sk-secret" not in repr(settings)


def test_redis_urls_and_password_are_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """``REDIS_URL`` may hold a password: it, the cache's URL and ``REDIS_PASSWORD`` never
    print."""
    monkeypatch.setenv("REDIS_URL", "redis://:hunter2@redis:6379/0")
    monkeypatch.setenv("REDIS_CACHE_URL", "redis://:hunter3@cache:6379/0")
    monkeypatch.setenv("REDIS_PASSWORD", "hunter4")
    settings = Settings()
    assert settings.redis.url is not None
    assert settings.redis.url.get_secret_value() == "redis://:hunter2@redis:6379/0"
    assert not any(word in repr(settings) for word in ("hunter2", "hunter3", "hunter4"))


def test_empty_values_are_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    """``SLACK_BOT_TOKEN=`` (an env file's empty line) is no token at all, like a missing one."""
    for name in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "DISCORD_TOKEN", "SLACK_PORT"):
        monkeypatch.setenv(name, "")
    settings = Settings()
    assert settings.slack.bot_token is None and settings.slack.app_token is None
    assert settings.discord.token is None and settings.slack.port == 3000


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("SLACK_PORT", "99999"),
        ("VLLM_REPORT_HTTP_PORT", "65536"),
        ("GITHUB_TIMEOUT", "0"),
        ("GITHUB_BACKFILL_DAYS", "0"),
        ("LLM_MAX_RETRIES", "-1"),
        ("VLLM_REPORT_SYNC_INTERVAL_MINUTES", "0"),
        ("VLLM_REPORT_SCHEDULE_GRACE_HOURS", "-2"),
    ],
)
def test_numbers_out_of_range_name_their_variable(
    name: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A port or number out of range is a configuration error naming the variable, on one line."""
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert f"({name})" in str(caught.value) and "\n" not in str(caught.value)


def test_unknown_variables_name_the_closest_setting() -> None:
    """Mistyped variables with our prefixes are found; GitHub Actions' own are left alone."""
    environ = {
        "SLACK_BOT_TOKN": "x",
        "VLLM_REPORT_HTTPPORT": "1",
        "DISCORD_TOKENS": "x",
        "REDIS_HOST": "x",
        "GITHUB_TOKN": "x",
        "GITHUB_SHA": "abc",
        "GITHUB_REPOSITORY": "o/r",
        "SLACK_BOT_TOKEN": "x",
        "OPENAI_API_KEY": "x",
        "HOME": "/root",
    }
    assert unknown_variables(environ) == [
        ("DISCORD_TOKENS", "DISCORD_TOKEN"),
        ("GITHUB_TOKN", "GITHUB_TOKEN"),
        ("REDIS_HOST", "REDIS_URL"),
        ("SLACK_BOT_TOKN", "SLACK_BOT_TOKEN"),
        ("VLLM_REPORT_HTTPPORT", "VLLM_REPORT_HTTP_PORT"),
    ]


def test_rate_limits_come_from_the_environment_then_the_file_then_the_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rate in ``limits:`` of the YAML replaces the default; ``VLLM_REPORT_LIMIT_*`` wins over
    both; ``off`` removes the rule; a malformed rate names its setting."""
    path = tmp_path / "c.yaml"
    path.write_text("limits:\n  digests_per_user: 3/m\n  questions_per_channel: 'off'\n")
    monkeypatch.setenv("VLLM_REPORT_LIMIT_DIGESTS_PER_CHANNEL", "5/h")
    rules = LimitSettings().rules(load_config(path).limits)
    assert rules[("digest", "user")] == Rate(3, timedelta(minutes=1))
    assert rules[("digest", "channel")] == Rate(5, timedelta(hours=1))
    assert rules[("question", "user")] == Rate(20, timedelta(minutes=10))
    assert ("question", "channel") not in rules
    monkeypatch.setenv("VLLM_REPORT_LIMIT_DIGESTS_PER_USER", "12/10m")
    assert LimitSettings().rules(load_config(path).limits)[("digest", "user")] == Rate(
        12, timedelta(minutes=10)
    )
    path.write_text("limits:\n  digests_per_user: lots\n")
    with pytest.raises(ConfigError, match="digests_per_user"):
        load_config(path)
