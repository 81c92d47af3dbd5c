"""Channel and workspace defaults, the user's locale and time zone on Slack (bolt + the fake)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.defaults import Defaults, DefaultsStore
from bot.commands.runner import ReportCore
from bot.slack.run import HttpServer
from digest.backends.sqlite.state import SQLiteState
from tests.bot.slack.conftest import NOW, SECRET
from tests.bot.slack.test_managers import ListStore
from tests.fakes.slack import TEAM, FakeSlack, form_body, sign, slash_payload
from tests.support.slack_app import serve_http, slack_app


@pytest.fixture
async def defaults() -> AsyncIterator[DefaultsStore]:
    state = SQLiteState(":memory:", clock=lambda: NOW)
    yield DefaultsStore(state)
    await state.close()


@pytest.fixture
def store() -> ListStore:
    return ListStore()


@pytest.fixture
async def server(
    core: ReportCore, web_client: AsyncWebClient, defaults: DefaultsStore, store: ListStore
) -> AsyncIterator[HttpServer]:
    app = slack_app(
        core,
        web_client,
        signing_secret=SECRET,
        clock=lambda: NOW,
        subscriptions=store,
        defaults=defaults,
        pace_s=0,
    )
    running = await serve_http(app)
    yield running
    await running.stop(drain_s=5)


async def _command(
    server: HttpServer, text: str, *, user: str = "U0000001", trigger: str = "t1"
) -> dict[str, Any]:
    body = form_body(slash_payload(text, user=user, trigger_id=trigger))
    headers = {"Content-Type": "application/x-www-form-urlencoded", **sign(SECRET, body)}
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"http://127.0.0.1:{server.port}/slack/events", data=body.encode(), headers=headers
        ) as response,
    ):
        acked: dict[str, Any] = json.loads(await response.text())
        return acked


async def _parent(server: HttpServer, fake: FakeSlack) -> str:
    await server.jobs.idle()
    parents = [p for p in fake.posts if "thread_ts" not in p]
    assert parents
    return json.dumps(parents[-1], ensure_ascii=False)


async def test_in_a_channel_whose_default_is_zh_today_answers_in_chinese(
    server: HttpServer, fake: FakeSlack
) -> None:
    """An admin's `settings lang:zh` makes the channel's digests Chinese; `lang:en` still wins."""
    saved = await _command(server, "settings lang:zh", user="UADMIN01")
    assert saved == {
        "response_type": "in_channel",
        "text": "Defaults for this channel: language zh.",
    }
    await _command(server, "2026-01-31", trigger="t2")
    assert "开发动态报告" in await _parent(server, fake)
    await _command(server, "2026-01-31 lang:en", trigger="t3")
    assert "vLLM Development Report" in await _parent(server, fake)


async def test_the_users_slack_locale_is_used_when_nothing_else_is_set(
    server: HttpServer, fake: FakeSlack
) -> None:
    """A zh-CN Slack user gets Chinese without typing lang:zh; users.info is asked for it."""
    fake.people["U0000001"] = {"locale": "zh-CN"}
    await _command(server, "2026-01-31")
    assert "开发动态报告" in await _parent(server, fake)
    assert fake.called("users.info")[0].args["include_locale"] in ("1", "true", True)


async def test_the_workspace_default_applies_where_the_channel_sets_none(
    server: HttpServer, fake: FakeSlack, defaults: DefaultsStore
) -> None:
    """`settings workspace lang:zh` needs an admin and then covers every channel."""
    refused = await _command(server, "settings workspace lang:zh", user="U0000001")
    assert refused["text"] == (
        "Only workspace admins and owners can change this workspace's defaults."
    )
    await _command(server, "settings workspace lang:zh", user="UADMIN01", trigger="t2")
    assert await defaults.get("slack", "workspace", TEAM) == Defaults(lang="zh")
    await _command(server, "2026-01-31", trigger="t3")
    assert "开发动态报告" in await _parent(server, fake)


async def test_settings_alone_shows_both_scopes_and_members_cannot_change_them(
    server: HttpServer, defaults: DefaultsStore
) -> None:
    """Anyone may look; only a channel manager may change the channel's defaults."""
    await defaults.put("slack", "channel", "C0000001", Defaults("zh", "Europe/Berlin"))
    shown = (await _command(server, "settings"))["text"]
    assert "• this channel: language zh · time zone Europe/Berlin" in shown
    assert "• this workspace: none" in shown
    refused = await _command(server, "settings tz:Asia/Tokyo", trigger="t2")
    assert refused["text"].startswith("Only channel managers")
    bad = await _command(server, "settings tz:Mars/Olympus", user="UADMIN01", trigger="t3")
    assert "unknown timezone 'Mars/Olympus'" in bad["text"]
    reset = await _command(server, "settings reset", user="UADMIN01", trigger="t4")
    assert reset["text"] == "Defaults for this channel: none."


async def test_a_berlin_users_subscribe_without_tz_posts_at_nine_berlin_time(
    server: HttpServer, fake: FakeSlack, store: ListStore
) -> None:
    """With no tz: the requester's Slack time zone, 09:00 there, and the reply says so."""
    fake.people["UADMIN01"] = {"tz": "Europe/Berlin", "tz_label": "Central European Time"}
    reply = await _command(server, "subscribe", user="UADMIN01")
    assert reply["text"] == (
        "Subscribed: a vllm-project/vllm digest in en, daily at 09:00 (Europe/Berlin), in this "
        "channel. Next post: 2026-02-01 09:00 (UTC+1). Time zone Europe/Berlin is your time zone "
        "(from your Slack profile); choose another with `subscribe tz:Europe/Berlin`, or set "
        "this channel's with `/vllm-report settings tz:Europe/Berlin`."
    )
    [stored] = store.items
    assert (stored.time, stored.timezone) == ("09:00", "Europe/Berlin")
