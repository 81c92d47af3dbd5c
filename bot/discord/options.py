"""Typed application-command options mapped onto the shared grammar, and autocomplete choices."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.commands import grammar
from bot.commands.grammar import (
    AskCommand,
    DigestCommand,
    Options,
    SettingsCommand,
    SubscribeCommand,
    UnsubscribeCommand,
    command_options,
)
from config.settings import AppConfig
from digest.windows import parse_day_start, zone

WINDOWS = ("today", "yesterday", "week", "3d", "7d", "14d")
MAX_CHOICES = 25
MAX_CHOICE = 100  # characters of a choice's value


def _given(value: str | None) -> str | None:
    """A typed option's value, or None when left empty."""
    return value.strip() if value is not None and value.strip() else None


SCOPE_MARK = "scope:"  # a repository option of ``scope:NAME`` names a configured scope


def subject_options(
    repository: str | None, language: str | None = None, private: bool = False
) -> Options:
    """The options of a command's ``repository`` option: ``owner/name``, ``a/b,c/d`` or
    ``scope:NAME`` (as the autocomplete offers them), validated by the grammar."""
    given = _given(repository)
    if given is not None and given.lower().startswith(SCOPE_MARK):
        return command_options(None, _given(language), private, given[len(SCOPE_MARK) :])
    return command_options(given, _given(language), private)


def digest_command(
    window: str | None = None,
    topic: str | None = None,
    language: str | None = None,
    repository: str | None = None,
    private: bool = False,
) -> DigestCommand:
    """The ``DigestCommand`` of ``/vllm-report``'s options, each validated by the grammar."""
    opts = subject_options(repository, language, private)
    return grammar.digest_command(_given(window), _given(topic), None, opts)


def ask_command(
    question: str, language: str | None = None, repository: str | None = None
) -> AskCommand:
    """The ``AskCommand`` of ``/vllm-ask``'s options."""
    opts = subject_options(repository, language)
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
    opts = subject_options(repository, language)
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
    opts = subject_options(repository, language)
    return grammar.settings_command(
        scope or "channel", _given(timezone), _given(topics), reset, opts
    )


def unsubscribe_command(repository: str | None = None) -> UnsubscribeCommand:
    """The ``UnsubscribeCommand`` of ``/vllm-unsubscribe``'s options."""
    return UnsubscribeCommand(subject_options(repository))


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
    """Configured repositories (the default first, then those of the scopes), then
    ``scope:NAME`` of each configured
    scope, matching ``current``; after a comma, the list so far with each configured
    repository not in it yet (``a/b,c/d``), within Discord's 100 characters."""
    scoped = sorted({r for s in config.scopes.values() for r in s.repos if "/*" not in r})
    repos = list(dict.fromkeys([config.default_repo, *sorted(config.repos), *scoped]))
    if "," not in current:
        return _matching([*repos, *(f"{SCOPE_MARK}{n}" for n in sorted(config.scopes))], current)
    head, _, tail = current.rpartition(",")
    named = {n.strip().lower() for n in head.split(",")}
    rest = [r for r in _matching(repos, tail) if r.lower() not in named]
    return [v for v in (f"{head},{r}" for r in rest) if len(v) <= MAX_CHOICE]
