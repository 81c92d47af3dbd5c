"""Language by guild, channel and user locale on Discord, through discord.py and the fake."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.commands.defaults import Defaults, DefaultsStore
from bot.commands.runner import ReportCore
from digest.backends.sqlite.state import SQLiteState
from tests.bot.discord.conftest import NOW, StartBot
from tests.fakes.discord import (
    CHANNEL_ID,
    GUILD_ID,
    MANAGE_CHANNELS,
    MEMBER_PERMISSIONS,
    FakeDiscord,
)
from tests.support.discord_helpers import CALLBACK, WEBHOOK, payload

MANAGE_GUILD = 1 << 5


@pytest.fixture
async def defaults() -> AsyncIterator[DefaultsStore]:
    state = SQLiteState(":memory:", clock=lambda: NOW)
    yield DefaultsStore(state)
    await state.close()


async def _parent_title(fake: FakeDiscord) -> str:
    await fake.wait_for(lambda calls: bool(fake.find("POST", WEBHOOK)))
    return str(payload(fake.find("POST", WEBHOOK)[0])["embeds"][0]["title"])


async def test_a_chinese_speaking_user_in_a_guild_without_defaults_reads_chinese(
    start_bot: StartBot, core: ReportCore, fake: FakeDiscord, defaults: DefaultsStore
) -> None:
    """A zh-CN Discord client's /vllm-report in a guild with no default gets the Chinese report."""
    await start_bot(core, defaults=defaults)
    await fake.command("vllm-report", {"window": "2026-01-31"}, locale="zh-CN")
    assert "开发动态报告" in await _parent_title(fake)


async def test_an_explicit_language_beats_the_users_locale(
    start_bot: StartBot, core: ReportCore, fake: FakeDiscord, defaults: DefaultsStore
) -> None:
    """`language: English` wins over a zh-TW client."""
    await start_bot(core, defaults=defaults)
    await fake.command("vllm-report", {"window": "2026-01-31", "language": "en"}, locale="zh-TW")
    assert (await _parent_title(fake)).startswith("vLLM Development Report")


async def test_the_channels_default_beats_the_users_locale(
    start_bot: StartBot, core: ReportCore, fake: FakeDiscord, defaults: DefaultsStore
) -> None:
    """A channel whose default is en answers a zh-CN user in English; the guild's zh loses."""
    await defaults.put("discord", "channel", str(CHANNEL_ID), Defaults(lang="en"))
    await defaults.put("discord", "workspace", str(GUILD_ID), Defaults(lang="zh"))
    await start_bot(core, defaults=defaults)
    await fake.command("vllm-report", {"window": "2026-01-31"}, locale="zh-CN")
    assert (await _parent_title(fake)).startswith("vLLM Development Report")


async def test_settings_need_manage_channels_and_server_settings_manage_server(
    start_bot: StartBot, core: ReportCore, fake: FakeDiscord, defaults: DefaultsStore
) -> None:
    """/vllm-settings: a member is refused; a channel manager sets the channel's language; the
    server's needs Manage Server; afterwards /vllm-report follows the guild's default."""
    await start_bot(core, defaults=defaults)
    tries = (
        ({"language": "zh"}, MEMBER_PERMISSIONS),
        ({"scope": "workspace", "language": "zh"}, MANAGE_CHANNELS),
        (
            {"scope": "workspace", "language": "zh", "timezone": "Europe/Berlin"},
            MEMBER_PERMISSIONS | MANAGE_GUILD,
        ),
    )
    for n, (options, permissions) in enumerate(tries, 1):  # one at a time: replies in order
        await fake.command("vllm-settings", options, permissions=permissions)
        await fake.wait_for(lambda calls, n=n: len(fake.find("POST", CALLBACK)) == n)
    said = [c.body["data"]["content"] for c in fake.find("POST", CALLBACK)]
    assert said[0].startswith("Only channel managers")
    assert said[1] == (
        "Only members with the Manage Server permission can change this server's defaults."
    )
    assert said[2] == "Defaults for this server: language zh · time zone Europe/Berlin."
    assert await defaults.get("discord", "workspace", str(GUILD_ID)) == Defaults(
        "zh", "Europe/Berlin"
    )
    await fake.command("vllm-report", {"window": "2026-01-31"}, locale="en-US")
    assert "开发动态报告" in await _parent_title(fake)
