"""Which language, zone and repository a command gets: option, channel, workspace, user, config."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from bot.commands.defaults import Caller, Defaults, DefaultsStore, Resolver, locale_lang
from bot.commands.grammar import DigestCommand, Options, SettingsCommand, UsageError, parse
from bot.commands.runner import ReportCore
from config.settings import AppConfig, load_config
from digest.backends.sqlite.state import SQLiteState
from digest.models import Lang

NOW = datetime(2026, 2, 1, 4, 0, tzinfo=UTC)


@pytest.fixture
async def store() -> AsyncIterator[DefaultsStore]:
    state = SQLiteState(":memory:", clock=lambda: NOW)
    yield DefaultsStore(state)
    await state.close()


def _says(value: str | None) -> Caller:
    async def locale() -> str | None:
        return value

    return Caller("C1", "T1", locale=locale)


@pytest.mark.parametrize(
    ("locale", "lang"),
    [
        ("zh-CN", "zh"),
        ("zh-TW", "zh"),
        ("zh_HK", "zh"),
        ("en-GB", "en"),
        ("de-DE", None),
        (None, None),
    ],
)
def test_a_locale_names_its_report_language(locale: str | None, lang: str | None) -> None:
    """Every Chinese locale reads Chinese, every English one English; others say nothing."""
    assert locale_lang(locale) == lang


async def test_precedence_option_channel_workspace_user_config(store: DefaultsStore) -> None:
    """The command's option beats the channel, the channel the workspace, the workspace the
    user's locale, and the locale the configured default."""
    resolver = Resolver(store, "slack", "en")
    bare = DigestCommand("today")
    assert (await resolver.digest(bare, _says(None))).options.lang == "en"
    assert (await resolver.digest(bare, _says("zh-CN"))).options.lang == "zh"
    await store.put("slack", "workspace", "T1", Defaults(lang="en", repo="sgl-project/sglang"))
    assert (await resolver.digest(bare, _says("zh-CN"))).options.lang == "en"
    await store.put("slack", "channel", "C1", Defaults(lang="zh", topics=("rocm",)))
    made = await resolver.digest(bare, _says("en-US"))
    assert (made.options.lang, made.options.repo, made.topics) == (
        "zh",
        "sgl-project/sglang",
        ("rocm",),
    )
    explicit = DigestCommand("today", options=Options(lang="en"))
    assert (await resolver.digest(explicit, _says("zh-CN"))).options.lang == "en"


async def test_defaults_are_kept_per_platform_and_survive_a_new_store(store: DefaultsStore) -> None:
    """A Slack channel's defaults are not a Discord channel's of the same id."""
    await store.put("slack", "channel", "1", Defaults(lang="zh"))
    assert await store.get("discord", "channel", "1") == Defaults()
    assert await store.get("slack", "channel", "1") == Defaults(lang="zh")


async def test_a_stored_language_that_is_none_of_ours_is_not_a_default() -> None:
    """A channel's stored ``lang`` that names no language is unset (the rest is kept): the
    caller's locale decides, as if the channel had none."""
    state = SQLiteState(":memory:", clock=lambda: NOW)
    raw = '{"lang": "fr", "repo": "sgl-project/sglang", "timezone": null, "topics": null}'
    await state.set("defaults:slack:channel:C1", raw, timedelta(days=1))
    store = DefaultsStore(state)
    assert await store.get("slack", "channel", "C1") == Defaults(repo="sgl-project/sglang")
    resolved = await Resolver(store, "slack", Lang.EN).resolve(_says("zh-CN"))
    assert resolved.defaults.lang is Lang.ZH
    await state.close()


def test_the_configured_default_language_is_the_last_resort() -> None:
    """`default_lang: zh` in the configuration makes the core's fallback Chinese."""
    config = AppConfig.model_validate({**load_config().model_dump(), "default_lang": "zh"})

    async def never(request: object) -> object:
        raise AssertionError

    core = ReportCore(config=config, get_digest=never, clock=lambda: NOW)  # type: ignore[arg-type]
    assert core.default_lang == "zh"


@pytest.mark.parametrize(
    ("text", "scope", "changes"),
    [
        ("settings", "channel", False),
        ("settings lang:zh tz:Europe/Berlin", "channel", True),
        ("settings workspace repo:sgl-project/sglang", "workspace", True),
        ("settings server reset", "workspace", True),
    ],
)
def test_settings_grammar(text: str, scope: str, changes: bool) -> None:
    """`settings [workspace|server] [reset]` with options; alone it only shows."""
    command = parse(text)
    assert isinstance(command, SettingsCommand)
    assert (command.scope, command.changes) == (scope, changes)


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("settings reset lang:zh", "takes no options"),
        ("settings time:09:00", "only with subscribe"),
        ("settings tz:not a zone", "unexpected"),
        ("settings private", "not by direct message"),
    ],
)
def test_bad_settings_are_refused_clearly(text: str, hint: str) -> None:
    """Settings that cannot be kept say why."""
    with pytest.raises(UsageError, match=hint):
        parse(text)


async def test_a_question_takes_the_channels_repository_and_language(store: DefaultsStore) -> None:
    """In a channel set to zh and sglang, a bare question asks sglang in Chinese; without
    channel or workspace defaults it keeps its own language (no locale override)."""
    from bot.commands.grammar import AskCommand

    resolver = Resolver(store, "slack", "en")
    question = AskCommand("what's new in ROCm?")
    assert (await resolver.ask(question, _says("zh-CN"))).options == Options()
    await store.put("slack", "channel", "C1", Defaults(lang="zh", repo="sgl-project/sglang"))
    asked = await resolver.ask(question, _says(None))
    assert (asked.options.lang, asked.options.repo) == ("zh", "sgl-project/sglang")
