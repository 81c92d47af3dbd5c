"""The website in chat: the day's chart in the Slack thread and the Discord parent embed, the
link to the day's page, and a digest that goes out even when the chart cannot."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import aiohttp
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.site.chat import ChatExtras
from bot.slack.post import SlackDaily, SlackPoster
from config.settings import load_config
from digest.backends.sqlite.mirror import SQLiteStore
from digest.models import Digest, Lang, Window
from tests.bot.discord.conftest import endpoints, start_bot, subscriptions  # noqa: F401
from tests.bot.discord.conftest import fake as discord_fake  # noqa: F401
from tests.bot.discord.test_post import discord_client  # noqa: F401 - the shared fixture
from tests.bot.slack.conftest import NOW, SECRET
from tests.fakes.discord import CHANNEL_ID, FakeDiscord
from tests.fakes.slack import FakeSlack, start_fake_slack, stop_fake_slack
from tests.support.scope_core import scope_config, scope_core
from tests.support.scopes import SGLANG, VLLM, scope_rig
from tests.support.serve import sample_digest, sample_store

PNG = b"\x89PNG\r\n\x1a\n"
SITE = "https://reports.example/"
PAGE = "https://reports.example/vllm-project/vllm/2026-01-31/en/"


@pytest.fixture
async def store() -> AsyncIterator[SQLiteStore]:
    store = await sample_store()
    yield store
    await store.close()


@pytest.fixture
def extras(store: SQLiteStore) -> ChatExtras:
    return ChatExtras(store=store, config=load_config(), site_url=SITE)


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    fake = await start_fake_slack()
    yield fake
    await stop_fake_slack(fake)


def _shifted(digest: Digest, minutes: int) -> Digest:
    window = digest.window
    moved = Window(
        window.start + timedelta(minutes=minutes),
        window.end + timedelta(minutes=minutes),
        window.timezone,
        window.label,
    )
    return dataclasses.replace(digest, window=moved)


async def test_page_url_names_the_days_page_only(extras: ChatExtras, store: SQLiteStore) -> None:
    """A report day links to its page; another cut-off or no site URL links nowhere."""
    digest = await sample_digest()
    assert extras.page_url(digest) == PAGE
    assert extras.page_url(_shifted(digest, 30)) is None
    unpublished = ChatExtras(store=store, config=load_config(), site_url=None)
    assert unpublished.page_url(digest) is None


async def test_a_scope_digest_links_its_page_and_charts_its_repositories() -> None:
    """A configured scope's day links to its page under scopes/ (an ad hoc one to none), and
    its chart counts both repositories' items after its filters, as its header does."""
    async with scope_rig() as rig:
        core = scope_core(rig)
        digest = await rig.digest(core.request("2026-03-10", scope="serving", lang=Lang.EN))
        extras = ChatExtras(store=rig.store, config=scope_config(), site_url=SITE)
        assert extras.page_url(digest) == f"{SITE}scopes/serving/2026-03-10/en/"
        adhoc = core.request("2026-03-10", repos=(VLLM, SGLANG), lang=Lang.EN)
        assert extras.page_url(await rig.digest(adhoc)) is None
        image = await extras.chart(digest)
        assert image is not None and image.png.startswith(PNG)
        assert "3 issues and 2 PRs opened" in image.alt  # the bumps left out
        unfiltered = await rig.digest(core.request("2026-03-10", scope="engines", lang=Lang.EN))
        image = await extras.chart(unfiltered)
        assert image is not None and "3 issues and 4 PRs opened" in image.alt


async def test_chart_is_a_png_with_alt_text(extras: ChatExtras) -> None:
    """The day's chart is a PNG named after the day, described in the digest's language."""
    image = await extras.chart(await sample_digest())
    assert image is not None and image.png.startswith(PNG)
    assert image.filename == "activity-2026-01-31.png"
    assert "Activity per hour" in image.alt and "3 issues and 4 PRs opened" in image.alt
    week = await sample_digest()
    week = dataclasses.replace(
        week, window=Window(week.window.end - timedelta(days=7), week.window.end, "UTC")
    )
    assert await extras.chart(week) is None  # a week has no hourly chart


async def test_slack_daily_uploads_the_chart_into_the_thread(
    slack: FakeSlack, extras: ChatExtras
) -> None:
    """files_upload_v2 puts the PNG and its alt text first in the thread; the parent links it."""
    client = AsyncWebClient(token="xoxb-daily", base_url=slack.api_url)
    daily = SlackDaily(
        SlackPoster(client, pace_s=0.0), chart=extras.chart, page_url=extras.page_url
    )

    async def part_sent(index: int, message_id: str) -> None:
        return None

    await daily("C0000001", await sample_digest(), (), part_sent)
    parent, *replies = slack.posts
    (ask,) = slack.called("files.getUploadURLExternal")
    assert ask.args["filename"] == "activity-2026-01-31.png"
    assert "Activity per hour" in ask.args["alt_txt"]
    assert slack.uploads and next(iter(slack.uploads.values())).startswith(PNG)
    (done,) = slack.called("files.completeUploadExternal")
    assert done.args["channel_id"] == "C0000001" and done.args["thread_ts"] == parent["_ts"]
    order = [c.method for c in slack.calls]
    assert order.index("files.completeUploadExternal") < len(order) - len(replies)
    assert f"<{PAGE}|📄 On the web>" in json.dumps(parent["blocks"], ensure_ascii=False)
    assert replies and all(r["thread_ts"] == parent["_ts"] for r in replies)


async def test_slack_upload_failure_still_posts_the_digest(
    slack: FakeSlack, extras: ChatExtras, caplog: pytest.LogCaptureFixture
) -> None:
    """A refused upload is logged; the parent and every section are posted all the same."""
    slack.fail("files.getUploadURLExternal", "internal_error")
    client = AsyncWebClient(token="xoxb-daily", base_url=slack.api_url)
    daily = SlackDaily(SlackPoster(client, pace_s=0.0), chart=extras.chart)

    async def part_sent(index: int, message_id: str) -> None:
        return None

    digest = await sample_digest()
    with caplog.at_level(logging.WARNING):
        await daily("C0000001", digest, (), part_sent)
    assert not slack.uploads and not slack.called("files.completeUploadExternal")
    assert len(slack.posts) > 5
    assert any(r.message == "slack.chart_failed" for r in caplog.records)


async def test_discord_daily_shows_the_chart_in_the_parent_embed(
    discord_client: tuple[FakeDiscord, Any],  # noqa: F811 - the imported fixture
    extras: ChatExtras,
) -> None:
    """The parent carries the PNG as an attachment shown in its embed, titled with a page link."""
    fake, client = discord_client
    from bot.discord.post import DiscordDaily

    async def part_sent(index: int, message_id: str) -> None:
        return None

    daily = DiscordDaily(client, chart=extras.chart, page_url=extras.page_url)
    await daily(str(CHANNEL_ID), await sample_digest(), (), part_sent)
    parent = fake.find("POST", rf"channels/{CHANNEL_ID}/messages")[0]
    (upload,) = parent.files
    assert upload["filename"] == "activity-2026-01-31.png" and upload["data"].startswith(PNG)
    embed = parent.body["embeds"][0]
    assert embed["image"]["url"] == "attachment://activity-2026-01-31.png"
    assert embed["url"] == PAGE
    assert "Activity per hour" in parent.body["attachments"][0]["description"]
    assert parent.body["allowed_mentions"]["parse"] == []
    assert len(fake.find("POST", rf"channels/{CHANNEL_ID}/messages/\d+/threads")) == 1


async def test_discord_upload_failure_still_posts_the_digest(
    discord_client: tuple[FakeDiscord, Any],  # noqa: F811 - the imported fixture
    extras: ChatExtras,
) -> None:
    """When Discord refuses the attachment, the parent goes again as text and the thread follows."""
    fake, client = discord_client
    from bot.discord.post import DiscordDaily

    async def part_sent(index: int, message_id: str) -> None:
        return None

    fake.fail_next(
        "POST", rf"channels/{CHANNEL_ID}/messages", 413, {"message": "Request entity too large"}
    )
    daily = DiscordDaily(client, chart=extras.chart)
    await daily(str(CHANNEL_ID), await sample_digest(), (), part_sent)
    sent = [c for c in fake.calls if c.matches("POST", rf"channels/{CHANNEL_ID}/messages")]
    failed, parent = sent[:2]
    assert failed.status == 413 and failed.files
    assert parent.status == 200 and not parent.files and "image" not in parent.body["embeds"][0]
    assert len(fake.find("POST", rf"channels/{CHANNEL_ID}/messages/\d+/threads")) == 1


async def test_slack_command_digest_carries_the_chart(slack: FakeSlack, store: SQLiteStore) -> None:
    """/vllm-report 2026-01-31 posts its digest with the day's chart first in the thread."""
    from bot.commands.runner import ReportCore
    from bot.compose.questions import question_asker
    from tests.bot.slack.conftest import builder
    from tests.fakes.slack import form_body, sign, slash_payload
    from tests.support.slack_app import serve_http, slack_app

    extras = ChatExtras(store=store, config=load_config(), site_url=None)
    config = load_config()
    core = ReportCore(
        config=config,
        get_digest=builder(store).build,
        clock=lambda: NOW,
        asker=question_asker(config, store, clock=lambda: NOW),
    )
    client = AsyncWebClient(token="xoxb-command", base_url=slack.api_url)
    app = slack_app(
        core, client, signing_secret=SECRET, clock=lambda: NOW, chart=extras.chart, pace_s=0
    )
    server = await serve_http(app)
    try:
        body = form_body(slash_payload("2026-01-31"))
        headers = {"Content-Type": "application/x-www-form-urlencoded", **sign(SECRET, body)}
        async with (
            aiohttp.ClientSession() as session,
            session.post(
                f"http://127.0.0.1:{server.port}/slack/events", data=body, headers=headers
            ) as response,
        ):
            assert response.status == 200
        await app.jobs.idle()
    finally:
        await server.stop(drain_s=5)
    parent = next(p for p in slack.posts if "thread_ts" not in p)
    (done,) = slack.called("files.completeUploadExternal")
    assert done.args["thread_ts"] == parent["_ts"]
    assert "Activity per hour" in slack.called("files.getUploadURLExternal")[0].args["alt_txt"]


@pytest.fixture
def fake(discord_fake: FakeDiscord) -> FakeDiscord:  # noqa: F811 - start_bot's fake Discord
    return discord_fake


async def test_discord_command_digest_shows_the_chart(
    start_bot: Any,  # noqa: F811 - the imported fixture
    fake: FakeDiscord,
    store: SQLiteStore,
) -> None:
    """/vllm-report 2026-01-31 in Discord: the parent follow-up carries the chart in its embed."""
    from tests.bot.discord.conftest import make_core
    from tests.support.discord_helpers import WEBHOOK

    extras = ChatExtras(store=store, config=load_config(), site_url=None)
    await start_bot(make_core(store), chart=extras.chart)
    await fake.command("vllm-report", {"window": "2026-01-31"})
    await fake.wait_for(
        lambda calls: any(c.matches("POST", r"channels/\d+/messages/\d+/threads") for c in calls)
    )
    parent = next(c for c in fake.calls if c.matches("POST", WEBHOOK))
    (upload,) = parent.files
    assert upload["filename"] == "activity-2026-01-31.png" and upload["data"].startswith(PNG)
    assert parent.body["embeds"][0]["image"]["url"] == "attachment://activity-2026-01-31.png"
    assert "Activity per hour" in parent.body["attachments"][0]["description"]
