"""subscribe / unsubscribe / subscriptions from Slack: managers only, replies in shared wording."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

import aiohttp
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands import messages
from bot.commands.runner import ReportCore
from bot.slack.run import HttpServer
from digest.schedule.subscription import Subscription
from tests.bot.slack.conftest import NOW, SECRET, logged
from tests.fakes.slack import FakeSlack, event_payload, form_body, mention, sign, slash_payload
from tests.support.slack_app import serve_http, slack_app


class ListStore:
    """Subscriptions in a list, keyed like the real store (platform, channel, repo)."""

    def __init__(self) -> None:
        self.items: list[Subscription] = []

    async def add(self, subscription: Subscription) -> None:
        await self.remove(subscription.platform, subscription.channel, subscription.repo)
        self.items.append(subscription)

    async def remove(self, platform: str, channel: str, repo: str | None = None) -> Sequence[str]:
        gone = [
            s
            for s in self.items
            if (s.platform, s.channel) == (platform, channel) and repo in (None, s.repo)
        ]
        self.items = [s for s in self.items if s not in gone]
        return [s.repo for s in gone]

    async def list(self, platform: str, channel: str) -> Sequence[Subscription]:
        return [s for s in self.items if (s.platform, s.channel) == (platform, channel)]


@pytest.fixture
async def setup(
    core: ReportCore, web_client: AsyncWebClient
) -> AsyncIterator[tuple[HttpServer, ListStore]]:
    store = ListStore()
    app = slack_app(core, web_client, signing_secret=SECRET, clock=lambda: NOW, subscriptions=store)
    server = await serve_http(app)
    yield server, store
    await server.stop(drain_s=5)


async def _post(server: HttpServer, body: str, content_type: str) -> str:
    headers = {"Content-Type": content_type, **sign(SECRET, body)}
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"http://127.0.0.1:{server.port}/slack/events", data=body.encode(), headers=headers
        ) as response,
    ):
        return await response.text()


async def _ack_body(server: HttpServer, text: str, user: str, trigger: str) -> dict[str, Any]:
    body = form_body(slash_payload(text, user=user, trigger_id=trigger))
    acked: dict[str, Any] = json.loads(
        await _post(server, body, "application/x-www-form-urlencoded")
    )
    return acked


async def _ack(server: HttpServer, text: str, user: str, trigger: str) -> str:
    return str((await _ack_body(server, text, user, trigger))["text"])


async def test_only_managers_subscribe(
    setup: tuple[HttpServer, ListStore], fake: FakeSlack
) -> None:
    """A member is refused; an admin subscribes with the repository's defaults filled in."""
    server, store = setup
    assert await _ack(server, "subscribe", "U0000001", "t1") == messages.managers_only("slack")
    assert store.items == []
    reply = await _ack(server, "subscribe lang:zh time:09:30", "UADMIN01", "t2")
    assert reply == (
        "Subscribed: a vllm-project/vllm digest in zh, daily at 09:30 (Asia/Shanghai), in this "
        "channel. Next post: 2026-02-02 09:30 (UTC+8)."
        " Time zone Asia/Shanghai is the repository's report time zone; choose another with "
        "`subscribe tz:Europe/Berlin`, or set this channel's with "
        "`/vllm-report settings tz:Europe/Berlin`."
    )
    assert [(s.channel, s.time, s.timezone, s.lang) for s in store.items] == [
        ("C0000001", "09:30", "Asia/Shanghai", "zh")
    ]


async def test_an_admin_of_another_organisation_is_no_manager(
    setup: tuple[HttpServer, ListStore], fake: FakeSlack
) -> None:
    """A Slack Connect owner (or channel creator) from another workspace is refused; an admin
    of the bot's own workspace subscribes."""
    server, store = setup
    fake.people["UADMIN99"] = {"team_id": "T0OTHER1", "is_owner": True}
    fake.people["UCREATOR"] = {"team_id": "T0OTHER1"}
    for user in ("UADMIN99", "UCREATOR"):
        reply = await _ack(server, "subscribe", user, f"t-{user}")
        assert reply == messages.managers_only("slack")
    assert store.items == []
    assert await _ack(server, "subscribe", "UADMIN01", "t-home") != messages.managers_only("slack")
    assert len(store.items) == 1


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


async def test_a_change_is_shown_to_the_channel(
    setup: tuple[HttpServer, ListStore], fake: FakeSlack
) -> None:
    """A subscription change is acked in the channel, as on Discord; a refusal only to its user."""
    server, _ = setup
    refused = await _ack_body(server, "subscribe", "U0000001", "t1")
    assert refused["response_type"] == "ephemeral"
    done = await _ack_body(server, "subscribe", "UADMIN01", "t2")
    assert done == {
        "response_type": "in_channel",
        "text": (
            "Subscribed: a vllm-project/vllm digest in en, daily at 11:21 (Asia/Shanghai), in "
            "this channel. Next post: 2026-02-02 11:21 (UTC+8)."
            " Time zone Asia/Shanghai is the repository's report time zone; choose another with "
            "`subscribe tz:Europe/Berlin`, or set this channel's with "
            "`/vllm-report settings tz:Europe/Berlin`."
        ),
    }


async def test_unknown_topic_by_slash_command_gets_the_usage_words(
    setup: tuple[HttpServer, ListStore], fake: FakeSlack
) -> None:
    """An unknown topic in a slash command is a usage reply, as in a mention or on Discord."""
    server, store = setup
    reply = await _ack(server, "subscribe topics:nosuchtopic", "UADMIN01", "t1")
    assert reply.startswith("Sorry, I didn't understand that:") and "nosuchtopic" in reply
    assert reply != messages.INTERNAL and store.items == []


async def test_subscribe_by_mention_is_answered_in_the_thread(
    setup: tuple[HttpServer, ListStore], fake: FakeSlack
) -> None:
    """An admin's "@vllm-report subscribe" is confirmed for everyone in the mention's thread."""
    server, store = setup
    event = mention("subscribe time:08:30", user="UADMIN01", ts="1769839200.000100")
    await _post(server, json.dumps(event_payload(event, event_id="EvSub")), "application/json")
    await fake.wait_until(lambda: len(fake.posts) == 1)
    await server.jobs.idle()
    [post] = fake.posts
    assert post["text"] == (
        "Subscribed: a vllm-project/vllm digest in en, daily at 08:30 (Asia/Shanghai), in this "
        "channel. Next post: 2026-02-02 08:30 (UTC+8)."
        " Time zone Asia/Shanghai is the repository's report time zone; choose another with "
        "`subscribe tz:Europe/Berlin`, or set this channel's with "
        "`/vllm-report settings tz:Europe/Berlin`."
    )
    assert post["thread_ts"] == "1769839200.000100" and not fake.called("chat.postEphemeral")
    assert [s.time for s in store.items] == ["08:30"]


class BrokenStore(ListStore):
    """A store that fails in a way nobody planned for."""

    async def add(self, subscription: Subscription) -> None:
        raise RuntimeError("disk on fire at /var/lib/secret")


async def test_unexpected_failure_is_acked_with_the_shared_words(
    core: ReportCore,
    web_client: AsyncWebClient,
    fake: FakeSlack,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A crash while handling a command is logged with its trace; the user reads INTERNAL."""
    app = slack_app(
        core, web_client, signing_secret=SECRET, clock=lambda: NOW, subscriptions=BrokenStore()
    )
    server = await serve_http(app)
    try:
        with caplog.at_level(logging.INFO, logger="bot.slack"):
            acked = await _ack_body(server, "subscribe", "UADMIN01", "t1")
    finally:
        await server.stop(drain_s=5)
    assert acked == {"response_type": "ephemeral", "text": messages.INTERNAL}
    assert logged(caplog, "slack.command_failed") == 1
    assert "xoxb" not in caplog.text
