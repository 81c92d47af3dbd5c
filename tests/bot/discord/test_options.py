"""Typed command options map onto the shared grammar; autocomplete suggestions."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.commands.grammar import (
    AskCommand,
    DigestCommand,
    Options,
    SubscribeCommand,
    UsageError,
    parse,
)
from bot.discord.options import (
    ask_command,
    digest_command,
    recent_dates,
    repo_choices,
    subscribe_command,
    topic_choices,
    window_choices,
)
from config.settings import load_config


def test_digest_options_give_the_same_command_as_text() -> None:
    """Typed options build exactly the command the text grammar gives."""
    typed = digest_command("week", "rocm", "zh", "vllm-project/vllm", private=True)
    assert typed == parse("topic rocm week lang:zh repo:vllm-project/vllm private")
    assert typed == DigestCommand("week", ("rocm",), None, Options("vllm-project/vllm", "zh", True))


def test_no_options_means_today() -> None:
    """/vllm-report alone is today's digest."""
    assert digest_command() == DigestCommand("today")


@pytest.mark.parametrize(
    ("window", "topic", "repo"),
    [
        ("today private", None, None),
        ("repo:evil/x", None, None),
        ("subscribe", None, None),
        ("help", None, None),
        ("today", "rocm lang:zh", None),
        (None, None, "not a repo"),
        (None, None, "nope"),
        ("2099-99-99x", None, None),
    ],
)
def test_option_values_cannot_smuggle_words(
    window: str | None, topic: str | None, repo: str | None
) -> None:
    """A value is one word of its own kind; extra words or commands are refused."""
    with pytest.raises(UsageError):
        digest_command(window, topic, None, repo)


def test_ask_and_subscribe_options() -> None:
    """/vllm-ask and /vllm-subscribe go through the same grammar."""
    assert ask_command("what's new   in ROCm?", "zh") == AskCommand(
        "what's new in ROCm?", Options(lang="zh")
    )
    assert subscribe_command("09:00", "Europe/Berlin", "rocm", "en", None, "llm") == (
        SubscribeCommand("09:00", "Europe/Berlin", ("rocm",), "llm", Options(lang="en"))
    )
    with pytest.raises(UsageError):
        subscribe_command("25:00")


def test_subscribe_schedule_options() -> None:
    """/vllm-subscribe's schedule and day choices reach the grammar; a day implies weekly."""
    weekly = subscribe_command("09:00", schedule="weekly", day="fri")
    assert (weekly.cadence, weekly.weekday, weekly.time) == ("weekly", 4, "09:00")
    assert subscribe_command(day="sun").cadence == "weekly"
    assert subscribe_command(schedule="weekdays").cadence == "weekdays"
    with pytest.raises(UsageError, match="only with the weekly"):
        subscribe_command(schedule="daily", day="mon")


def test_recent_dates_are_complete_local_days() -> None:
    """Before the cut-off, yesterday's report day is not complete yet."""
    before = datetime(2026, 3, 11, 3, 0, tzinfo=UTC)  # 11:00 in Shanghai, cut-off 11:21
    after = datetime(2026, 3, 11, 3, 30, tzinfo=UTC)
    assert recent_dates(before, "Asia/Shanghai", "11:21", 2) == ["2026-03-09", "2026-03-08"]
    assert recent_dates(after, "Asia/Shanghai", "11:21", 2) == ["2026-03-10", "2026-03-09"]


def test_choices_filter_what_is_typed() -> None:
    """Suggestions match what the user typed so far."""
    config = load_config()
    now = datetime(2026, 3, 11, 3, 30, tzinfo=UTC)
    assert window_choices("03-0", now=now, config=config) == [
        "2026-03-09",
        "2026-03-08",
        "2026-03-07",
        "2026-03-06",
        "2026-03-05",
        "2026-03-04",
    ]
    assert window_choices("4", now=now, config=config) == ["14d", "2026-03-04"]
    assert topic_choices("", config) == ["rocm"]
    assert repo_choices("vllm", config) == ["vllm-project/vllm"]
