"""Typed application-command options mapped onto the shared grammar, and autocomplete choices."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.commands import grammar
from bot.commands.grammar import (
    AskCommand,
    DigestCommand,
    SettingsCommand,
    SubscribeCommand,
    UnsubscribeCommand,
    command_options,
)
from config.settings import AppConfig
from digest.windows import parse_day_start, zone

WINDOWS = ("today", "yesterday", "week", "3d", "7d", "14d")
MAX_CHOICES = 25


def _given(value: str | None) -> str | None:
    """A typed option's value, or None when left empty."""
    return value.strip() if value is not None and value.strip() else None


def digest_command(
    window: str | None = None,
    topic: str | None = None,
    language: str | None = None,
    repository: str | None = None,
    private: bool = False,
) -> DigestCommand:
    """The ``DigestCommand`` of ``/vllm-report``'s options, each validated by the grammar."""
    opts = command_options(_given(repository), _given(language), private)
    return grammar.digest_command(_given(window), _given(topic), None, opts)


def ask_command(
    question: str, language: str | None = None, repository: str | None = None
) -> AskCommand:
    """The ``AskCommand`` of ``/vllm-ask``'s options."""
    opts = command_options(_given(repository), _given(language))
    return grammar.ask_command(question, opts)


def subscribe_command(
    time: str | None = None,
    timezone: str | None = None,
    topics: str | None = None,
    language: str | None = None,
    repository: str | None = None,
    writer: str | None = None,
    schedule: str | None = None,
    day: str | None = None,
) -> SubscribeCommand:
    """The ``SubscribeCommand`` of ``/vllm-subscribe``'s options."""
    opts = command_options(_given(repository), _given(language))
    return grammar.subscribe_command(
        _given(time),
        _given(timezone),
        _given(topics),
        _given(writer),
        opts,
        _given(schedule),
        _given(day),
    )


def settings_command(
    scope: str | None = None,
    language: str | None = None,
    timezone: str | None = None,
    repository: str | None = None,
    topics: str | None = None,
    reset: bool = False,
) -> SettingsCommand:
    """The ``SettingsCommand`` of ``/vllm-settings``'s options, through the shared grammar."""
    opts = command_options(_given(repository), _given(language))
    return grammar.settings_command(
        scope or "channel", _given(timezone), _given(topics), reset, opts
    )


def unsubscribe_command(repository: str | None = None) -> UnsubscribeCommand:
    """The ``UnsubscribeCommand`` of ``/vllm-unsubscribe``'s options."""
    return UnsubscribeCommand(command_options(_given(repository)))


def recent_dates(now: datetime, timezone: str, day_start: str, count: int = 7) -> list[str]:
    """The last ``count`` complete local days (newest first), as ``YYYY-MM-DD``."""
    local = now.astimezone(zone(timezone))
    latest = local.date() - timedelta(days=1 if local.time() >= parse_day_start(day_start) else 2)
    return [(latest - timedelta(days=i)).isoformat() for i in range(count)]


def _matching(candidates: list[str], current: str) -> list[str]:
    text = current.strip().lower()
    found = [c for c in dict.fromkeys(candidates) if text in c.lower()]
    return found[:MAX_CHOICES]


def window_choices(
    current: str, *, now: datetime, config: AppConfig, repo: str | None = None
) -> list[str]:
    """Window suggestions: relative windows, then the last complete days of the repository."""
    conf = config.repo(repo or config.default_repo)
    return _matching([*WINDOWS, *recent_dates(now, conf.timezone, conf.day_start)], current)


def topic_choices(current: str, config: AppConfig) -> list[str]:
    """Configured topic names matching ``current``."""
    return _matching(sorted(config.topics), current)


def repo_choices(current: str, config: AppConfig) -> list[str]:
    """Configured repositories (the default first) matching ``current``."""
    return _matching([config.default_repo, *sorted(config.repos)], current)
