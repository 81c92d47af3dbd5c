"""The shared command grammar."""

from __future__ import annotations

import pytest

from bot.commands.grammar import (
    AskCommand,
    DigestCommand,
    HelpCommand,
    ListSubscriptionsCommand,
    SubscribeCommand,
    UnsubscribeCommand,
    UsageError,
    parse,
)


@pytest.mark.parametrize(
    ("text", "window"),
    [
        ("", "today"),
        ("today", "today"),
        ("YESTERDAY", "yesterday"),
        ("week", "week"),
        ("3d", "3d"),
        ("2026-03-10", "2026-03-10"),
        ("2026-03-01..2026-03-07", "2026-03-01..2026-03-07"),
    ],
)
def test_windows_parse_to_digest_commands(text: str, window: str) -> None:
    """Every window form of the grammar gives a digest command for that window."""
    command = parse(text)
    assert isinstance(command, DigestCommand)
    assert command.window == window


def test_options_anywhere() -> None:
    """repo:, lang: and private can stand before or after the window."""
    command = parse("lang:zh week repo:vllm-project/vllm private")
    assert isinstance(command, DigestCommand)
    assert command.window == "week"
    assert command.options.repo == "vllm-project/vllm"
    assert command.options.lang == "zh"
    assert command.options.private


def test_topic_with_and_without_window() -> None:
    """topic NAME [WINDOW] focuses the digest on one topic."""
    assert parse("topic rocm") == DigestCommand("today", ("rocm",))
    assert parse("topic ROCm week") == DigestCommand("week", ("rocm",))


@pytest.mark.parametrize(
    "text",
    [
        "ask what's new in ROCm?",
        "what's new in ROCm?",
        "ROCm 最近有什么进展",
        "private ask any news on TPU?",
    ],
)
def test_questions(text: str) -> None:
    """ask QUESTION, a question mark or Chinese text is a question."""
    command = parse(text)
    assert isinstance(command, AskCommand)
    assert "ask" not in command.question.split()[0].lower()


@pytest.mark.parametrize(
    ("text", "private", "lang"),
    [
        ("private what's new in ROCm?", True, None),
        ("what's new in ROCm? private", True, None),
        ("lang:zh what's new in ROCm?", False, "zh"),
        ("dm lang:en ask any news on TPU?", True, "en"),
    ],
)
def test_options_around_a_question(text: str, private: bool, lang: str | None) -> None:
    """private and lang: before a question, or private right after its "?", are options."""
    command = parse(text)
    assert isinstance(command, AskCommand)
    assert command.question in ("what's new in ROCm?", "any news on TPU?")
    assert (command.options.private, command.options.lang) == (private, lang)


def test_private_inside_a_question_is_a_word() -> None:
    """A question that merely contains "private" is not sent by direct message."""
    command = parse("is the private API stable now")
    assert command == AskCommand("is the private API stable now")


def test_subscription_commands() -> None:
    """subscribe takes time, tz, topics and lang; unsubscribe and subscriptions take none."""
    command = parse("subscribe time:09:30 tz:Europe/Berlin topics:rocm lang:zh")
    assert command == SubscribeCommand("09:30", "Europe/Berlin", ("rocm",), None, command.options)
    assert command.options.lang == "zh"
    assert isinstance(parse("unsubscribe"), UnsubscribeCommand)
    assert isinstance(parse("subscriptions"), ListSubscriptionsCommand)
    assert isinstance(parse("help"), HelpCommand)


@pytest.mark.parametrize(
    ("text", "cadence", "day"),
    [
        ("subscribe", "daily", 0),
        ("subscribe daily", "daily", 0),
        ("subscribe weekdays time:08:30", "weekdays", 0),
        ("subscribe weekly", "weekly", 0),
        ("subscribe weekly fri time:17:00", "weekly", 4),
        ("subscribe Weekly Sunday", "weekly", 6),
    ],
)
def test_subscribe_schedules(text: str, cadence: str, day: int) -> None:
    """subscribe takes daily (the default), weekdays, or weekly with an optional day (Monday)."""
    command = parse(text)
    assert isinstance(command, SubscribeCommand)
    assert (command.cadence, command.weekday) == (cadence, day)


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("bogus", "unknown window"),
        ("today lang:fr", "zh or en"),
        ("today repo:nope", "owner/name"),
        ("subscribe time:25:00", "HH:MM"),
        ("today time:09:00", "subscribe"),
        ("subscribe monthly", "daily, weekdays or weekly"),
        ("subscribe weekly someday", "unknown day"),
        ("subscribe weekdays mon", "unexpected"),
        ("topic", "which topic"),
        ("today week", "unexpected"),
        ("ask", "ask what"),
        ("today repo:a/b repo:c/d", "twice"),
        ("x" * 3000, "too long"),
    ],
)
def test_bad_input_gets_a_clear_message(text: str, hint: str) -> None:
    """Bad commands raise UsageError saying what to type instead."""
    with pytest.raises(UsageError, match=hint):
        parse(text)


def test_a_digest_over_several_repositories_or_a_scope() -> None:
    """``repo:a/b,c/d`` names every repository, the first as ``repo``; ``scope:NAME`` a
    configured scope; a repeated name counts once."""
    command = parse("week repo:vllm-project/vllm,sgl-project/sglang,vllm-project/vllm")
    assert isinstance(command, DigestCommand)
    assert command.options.repo == "vllm-project/vllm"
    assert command.options.repos == ("vllm-project/vllm", "sgl-project/sglang")
    one = parse("week repo:vllm-project/vllm")
    assert isinstance(one, DigestCommand) and one.options.repos == () and not one.options.several
    scoped = parse("topic rocm yesterday scope:serving lang:zh")
    assert isinstance(scoped, DigestCommand)
    assert scoped.options.scope == "serving" and scoped.options.repo is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("today repo:vllm-project/vllm,nope", "'nope' is not a repository"),
        ("today scope:serving repo:a/b", "name a scope or repositories, not both"),
        ("today scope:no/pe", "'no/pe' is not a scope name"),
        ("subscribe repo:a/b,c/d", "`subscribe` takes one repository"),
        ("subscribe scope:serving", "`subscribe` takes one repository"),
        ("settings repo:a/b,c/d", "`settings` takes one repository"),
        ("unsubscribe repo:a/b,c/d", "`unsubscribe` takes one repository"),
    ],
)
def test_several_repositories_where_one_is_meant_are_refused(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse(text)
