"""Typed application-command options mapped onto the shared grammar, and autocomplete choices."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from bot.commands.grammar import (
    AskCommand,
    DigestCommand,
    SubscribeCommand,
    UnsubscribeCommand,
    UsageError,
    parse,
)
from config.settings import AppConfig
from digest.windows import parse_day_start, zone

WINDOWS = ("today", "yesterday", "week", "3d", "7d", "14d")
MAX_CHOICES = 25
_OPTION_LIKE = re.compile(r"[:=]")


def _word(value: str | None, name: str, *, option_like: bool = False) -> str | None:
    """One word of a typed option, or None when empty; spaces never split it into two."""
    if value is None or not value.strip():
        return None
    word = value.strip()
    if any(c.isspace() for c in word) or (not option_like and _OPTION_LIKE.search(word)):
        raise UsageError(f"the {name} {word!r} must be a single word")
    return word


def _options(language: str | None, repository: str | None, private: bool = False) -> list[str]:
    words = []
    if lang := _word(language, "language"):
        words.append(f"lang:{lang}")
    if repo := _word(repository, "repository", option_like=True):
        words.append(f"repo:{repo}")
    if private:
        words.append("private")
    return words


def digest_command(
    window: str | None = None,
    topic: str | None = None,
    language: str | None = None,
    repository: str | None = None,
    private: bool = False,
) -> DigestCommand:
    """The ``DigestCommand`` of ``/vllm-report``'s options, validated by the grammar."""
    words = []
    if name := _word(topic, "topic"):
        words += ["topic", name]
    spec = _word(window, "window") or "today"
    words += [spec, *_options(language, repository, private)]
    command = parse(" ".join(words))
    if not isinstance(command, DigestCommand):
        raise UsageError(
            f"unknown window {spec!r} (try today, yesterday, week, 3d, 2026-03-10 "
            "or 2026-03-01..2026-03-07)"
        )
    return command


def ask_command(
    question: str, language: str | None = None, repository: str | None = None
) -> AskCommand:
    """The ``AskCommand`` of ``/vllm-ask``'s options."""
    text = " ".join(question.split())
    command = parse(" ".join(["ask", text, *_options(language, repository)]))
    if not isinstance(command, AskCommand):
        raise UsageError("ask what? e.g. `what's new in ROCm?`")
    return command


def subscribe_command(
    time: str | None = None,
    timezone: str | None = None,
    topics: str | None = None,
    language: str | None = None,
    repository: str | None = None,
    writer: str | None = None,
) -> SubscribeCommand:
    """The ``SubscribeCommand`` of ``/vllm-subscribe``'s options."""
    words = ["subscribe"]
    for key, value, name in (
        ("time", time, "time"),
        ("tz", timezone, "timezone"),
        ("topics", topics, "topic list"),
        ("writer", writer, "writer"),
    ):
        if word := _word(value, name, option_like=key == "time"):
            words.append(f"{key}:{word}")
    command = parse(" ".join([*words, *_options(language, repository)]))
    if not isinstance(command, SubscribeCommand):
        raise UsageError("that subscription could not be understood")
    return command


def unsubscribe_command(repository: str | None = None) -> UnsubscribeCommand:
    """The ``UnsubscribeCommand`` of ``/vllm-unsubscribe``'s options."""
    command = parse(" ".join(["unsubscribe", *_options(None, repository)]))
    if not isinstance(command, UnsubscribeCommand):
        raise UsageError("that could not be understood")
    return command


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
