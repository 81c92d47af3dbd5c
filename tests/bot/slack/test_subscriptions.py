"""subscribe / unsubscribe / subscriptions from Slack: managers only, replies in shared wording."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence

import aiohttp
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot import messages
from bot.core import ReportCore
from bot.slack import build_slack_app, start_http
from bot.slack.run import HttpServer
from config.settings import SubscriptionConfig
from tests.bot.slack.conftest import NOW, SECRET
from tests.fakes.slack import FakeSlack, form_body, sign, slash_payload


class ListStore:
    """Subscriptions in a list, keyed like the real store (platform, channel, repo)."""

    def __init__(self) -> None:
        self.items: list[SubscriptionConfig] = []

    async def add(self, subscription: SubscriptionConfig) -> None:
        await self.remove(subscription.platform, subscription.channel, subscription.repo)
        self.items.append(subscription)

    async def remove(self, platform: str, channel: str, repo: str | None = None) -> Sequence[str]:
        gone = [
            s
            for s in self.items
            if (s.platform, s.channel) == (platform, channel) and repo in (None, s.repo)
        ]
        self.items = [s for s in self.items if s not in gone]
        return [s.repo or "" for s in gone]

    async def list(self, platform: str, channel: str) -> Sequence[SubscriptionConfig]:
        return [s for s in self.items if (s.platform, s.channel) == (platform, channel)]


@pytest.fixture
async def setup(
    core: ReportCore, web_client: AsyncWebClient
) -> AsyncIterator[tuple[HttpServer, ListStore]]:
    store = ListStore()
    app = build_slack_app(
        core, web_client, signing_secret=SECRET, clock=lambda: NOW, subscriptions=store
    )
    server = await start_http(app, 0, host="127.0.0.1")
    yield server, store
    await server.stop(drain_s=5)


async def _ack(server: HttpServer, text: str, user: str, trigger: str) -> str:
    body = form_body(slash_payload(text, user=user, trigger_id=trigger))
    headers = {"Content-Type": "application/x-www-form-urlencoded", **sign(SECRET, body)}
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"http://127.0.0.1:{server.port}/slack/events", data=body.encode(), headers=headers
        ) as response,
    ):
        return str(json.loads(await response.text())["text"])


async def test_only_managers_subscribe(
    setup: tuple[HttpServer, ListStore], fake: FakeSlack
) -> None:
    """A member is refused; an admin subscribes with the repository's defaults filled in."""
    server, store = setup
    assert await _ack(server, "subscribe", "U0000001", "t1") == messages.MANAGERS_ONLY
    assert store.items == []
    reply = await _ack(server, "subscribe lang:zh time:09:30", "UADMIN01", "t2")
    assert reply == messages.subscribed("vllm-project/vllm", "09:30", "Asia/Shanghai", "zh")
    assert [(s.channel, s.time, s.timezone, s.lang) for s in store.items] == [
        ("C0000001", "09:30", "Asia/Shanghai", "zh")
    ]


async def test_creator_lists_and_unsubscribes(
    setup: tuple[HttpServer, ListStore], fake: FakeSlack
) -> None:
    """The channel's creator manages it; anyone may list its subscriptions."""
    server, store = setup
    assert await _ack(server, "subscriptions", "U0000001", "t1") == messages.NO_SUBSCRIPTIONS
    await _ack(server, "subscribe", "UCREATOR", "t2")
    listing = await _ack(server, "subscriptions", "U0000001", "t3")
    assert "vllm-project/vllm: daily at 11:21 (Asia/Shanghai) in en" in listing
    reply = await _ack(server, "unsubscribe", "UCREATOR", "t4")
    assert reply == messages.unsubscribed("vllm-project/vllm")
    assert store.items == []
