"""Commands dispatched the same way for Slack and Discord: one wording, one set of checks."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot import messages
from bot.core import ReportCore
from bot.discord_bot import MemorySubscriptions
from bot.dispatch import DigestBuild, Dispatcher, Platform, Reply, granted
from config.settings import load_config
from digest.errors import BadWindow
from digest.models import Digest
from digest.service import DigestRequest

NOW = datetime(2026, 2, 1, 4, 0, tzinfo=UTC)
PLATFORMS: tuple[Platform, ...] = ("slack", "discord")


async def _no_digest(request: DigestRequest) -> Digest:
    raise AssertionError("no digest is built here")


def _dispatcher(platform: Platform) -> tuple[Dispatcher, MemorySubscriptions]:
    core = ReportCore(config=load_config(), get_digest=_no_digest, clock=lambda: NOW)
    store = MemorySubscriptions()
    return Dispatcher(core, store, platform=platform), store


async def _reply(dispatcher: Dispatcher, text: str, *, manager: bool = True) -> Reply:
    outcome = await dispatcher.text(text, channel="C1", can_manage=granted(manager))
    assert isinstance(outcome, Reply)
    return outcome


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_unknown_timezone_is_refused_before_storing(platform: Platform) -> None:
    """A subscription in a zone that does not exist fails with the shared window wording."""
    dispatcher, store = _dispatcher(platform)
    with pytest.raises(BadWindow) as raised:
        await _reply(dispatcher, "subscribe tz:Mars/Olympus")
    assert messages.error_text(raised.value).startswith(
        "That window doesn't work: unknown timezone 'Mars/Olympus'"
    )
    assert await store.list(platform, "C1") == []


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_unsubscribing_names_every_repository(platform: Platform) -> None:
    """Removing all of a channel's subscriptions names each repository on its own line."""
    dispatcher, _ = _dispatcher(platform)
    await _reply(dispatcher, "subscribe")
    await _reply(dispatcher, "subscribe repo:sgl-project/sglang")
    reply = await _reply(dispatcher, "unsubscribe")
    assert reply.text.splitlines() == [
        messages.unsubscribed("vllm-project/vllm"),
        messages.unsubscribed("sgl-project/sglang"),
    ]
    assert reply.public


async def test_listing_never_asks_whether_the_caller_manages() -> None:
    """Anyone may list; the manager check runs only for a change."""
    asked: list[bool] = []

    async def can_manage() -> bool:
        asked.append(True)
        return False

    dispatcher, _ = _dispatcher("slack")
    listed = await dispatcher.text("subscriptions", channel="C1", can_manage=can_manage)
    assert isinstance(listed, Reply) and listed.text == messages.NO_SUBSCRIPTIONS and not asked
    refused = await dispatcher.text("subscribe", channel="C1", can_manage=can_manage)
    assert isinstance(refused, Reply) and refused.text == messages.MANAGERS_ONLY and asked


async def test_text_that_cannot_be_parsed_gets_the_usage_wording() -> None:
    """A command that is not understood is answered with the usage message, never raised."""
    dispatcher, _ = _dispatcher("discord")
    reply = await _reply(dispatcher, "topic")
    assert reply.command is None
    assert reply.text.startswith("Sorry, I didn't understand that: say which topic")


async def test_digest_commands_are_built_after_acknowledging() -> None:
    """A digest command is work to run later, acknowledged with the shared wording."""
    dispatcher, _ = _dispatcher("slack")
    outcome = await dispatcher.text("week private", channel="C1", can_manage=granted(False))
    assert isinstance(outcome, DigestBuild)
    assert outcome.private and outcome.working == messages.WORKING_PRIVATE
