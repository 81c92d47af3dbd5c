"""What may be followed, from Discord: the real discord.py client against the fake Discord,
GitHub's answers from the fake GitHub, subscriptions kept in a real state (see
``bot/commands/following.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.commands.following import Caps
from bot.commands.runner import ReportCore
from bot.commands.subscriptions import ChannelSubscriptions
from digest.github.allow_list import AllowList
from tests.bot.discord.conftest import NOW, StartBot
from tests.fakes.discord import (
    BOT_ID,
    CHANNEL_ID,
    MANAGE_CHANNELS,
    MEMBER_PERMISSIONS,
    FakeDiscord,
)
from tests.fakes.github import FakeGitHub
from tests.support.discord_helpers import in_channel, sent_messages, texts
from tests.support.following import Access, github_access, repo_requests

DM_CHANNEL = 920000000000000001
MANAGER = MEMBER_PERMISSIONS | MANAGE_CHANNELS


@pytest.fixture
async def gh() -> AsyncIterator[FakeGitHub]:
    async with FakeGitHub(clock=lambda: NOW) as server:
        for name in ("o/r1", "o/r2", "other/repo"):
            server.add_repo(name)
        server.add_repo("acme/secret", private=True)
        yield server


@pytest.fixture
async def rig(gh: FakeGitHub, request: pytest.FixtureRequest) -> AsyncIterator[Access]:
    patterns = getattr(request, "param", None)  # an allow-list, by indirect parametrization
    allow = AllowList.of(patterns) if patterns is not None else None
    async with github_access(gh, lambda: NOW, allow=allow) as made:
        yield made


@pytest.fixture
def subscriptions(rig: Access) -> ChannelSubscriptions:  # the bot's store: the real one
    return ChannelSubscriptions(rig.subscriptions, lambda: NOW)


async def _said(fake: FakeDiscord, count: int) -> list[str]:
    await fake.wait_for(lambda calls: len(sent_messages(fake)) >= count)
    return [" ".join(texts(m)) for m in sent_messages(fake)]


async def _stored(rig: Access) -> list[str]:
    return sorted(f"{s.channel} {s.repo}" for s in await rig.subscriptions.all_subscriptions())


async def test_25_subscribes_to_missing_repositories_in_a_dm_store_nothing(
    start_bot: StartBot, core: ReportCore, fake: FakeDiscord, rig: Access, gh: FakeGitHub
) -> None:
    """In a DM (managed by its user), 25 subscribes to repositories GitHub does not have are
    each refused clearly, one request each, and nothing is stored."""
    await start_bot(rig.admit_in(core))
    for i in range(25):
        await fake.mention(f"subscribe repo:ghost-{i}/nothing", direct=True, channel_id=DM_CHANNEL)
        await fake.wait_for(lambda calls, n=i + 1: len(in_channel(fake, DM_CHANNEL)) == n)
    replies = [c.body["content"] for c in in_channel(fake, DM_CHANNEL)]
    assert [r.split(" on GitHub")[0] for r in replies] == [
        f"I couldn't find ghost-{i}/nothing" for i in range(25)
    ]
    assert all(r.endswith("Nothing was stored.") for r in replies)
    assert await _stored(rig) == [] and repo_requests(gh) == 25


async def test_the_cap_per_channel_holds_on_discord(
    start_bot: StartBot, core: ReportCore, fake: FakeDiscord, rig: Access
) -> None:
    """With one subscription a channel, /vllm-subscribe to a second repository is refused
    naming the cap, and the first stays alone."""
    await start_bot(rig.admit_in(core, Caps(per_channel=1)))
    await fake.command("vllm-subscribe", {"repository": "o/r1"}, permissions=MANAGER)
    [first] = await _said(fake, 1)  # answered before the second is sent: no race for the cap
    assert first.startswith("Subscribed: a o/r1 digest")
    await fake.command("vllm-subscribe", {"repository": "o/r2"}, permissions=MANAGER)
    said = await _said(fake, 2)
    assert "the limit per channel (1)" in said[1]
    assert await _stored(rig) == [f"{CHANNEL_ID} o/r1"]


async def test_a_private_repository_is_refused_on_discord(
    start_bot: StartBot, core: ReportCore, fake: FakeDiscord, rig: Access
) -> None:
    """/vllm-subscribe and /vllm-report of a private repository not on the allow-list are
    refused, and nothing of it is fetched or stored."""
    await start_bot(rig.admit_in(core))
    await fake.command("vllm-subscribe", {"repository": "acme/secret"}, permissions=MANAGER)
    await fake.command("vllm-report", {"window": "today", "repository": "acme/secret"})
    said = await _said(fake, 2)
    assert sum("acme/secret is a private repository" in s for s in said) == 2
    assert await _stored(rig) == []


@pytest.mark.parametrize("rig", [["acme/*"]], indirect=True)
async def test_an_allow_listed_private_repository_is_followed(
    start_bot: StartBot, core: ReportCore, fake: FakeDiscord, rig: Access
) -> None:
    """On the allow-list (an owner pattern), a private repository may be subscribed to."""
    await start_bot(rig.admit_in(core))
    await fake.command("vllm-subscribe", {"repository": "acme/secret"}, permissions=MANAGER)
    [said] = await _said(fake, 1)
    assert said.startswith("Subscribed: a acme/secret digest")


@pytest.mark.parametrize("rig", [["vllm-project/*"]], indirect=True)
async def test_every_discord_command_honours_the_allow_list(
    start_bot: StartBot, core: ReportCore, fake: FakeDiscord, rig: Access, gh: FakeGitHub
) -> None:
    """/vllm-report, /vllm-ask, /vllm-subscribe, /vllm-settings and a mention off the list are
    refused naming it; GitHub is never asked."""
    from bot.commands.defaults import DefaultsStore

    await start_bot(rig.admit_in(core), defaults=DefaultsStore(rig.state))
    await fake.command("vllm-report", {"window": "today", "repository": "other/repo"})
    await fake.command("vllm-ask", {"question": "what's new?", "repository": "other/repo"})
    await fake.command("vllm-subscribe", {"repository": "other/repo"}, permissions=MANAGER)
    await fake.command("vllm-settings", {"repository": "other/repo"}, permissions=MANAGER)
    await fake.mention(f"<@{BOT_ID}> today repo:other/repo")
    said = await _said(fake, 5)
    refused = [s for s in said if "other/repo is not on this bot's list" in s]
    assert len(refused) == 5 and all("vllm-project/*" in s for s in refused)
    assert await _stored(rig) == [] and gh.requests == []
