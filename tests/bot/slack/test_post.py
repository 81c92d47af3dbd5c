"""Posting: threads, pacing per channel, 429 Retry-After, and the daily post."""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands import messages
from bot.commands.grammar import AskCommand, DigestCommand
from bot.slack.post import ChannelPacer, SlackDaily, SlackPoster
from bot.slack.render import SlackPost, render_slack
from bot.slack.web import web_client
from config.settings import load_config
from digest.builder import DigestRequest
from digest.models import Answer, Digest, Window
from digest.schedule.subscription import Subscription
from tests.bot.slack.conftest import BOT_TOKEN, NOW
from tests.bot.slack.conftest import sample_digest as sample_day
from tests.fakes.slack import FakeSlack
from tests.support.serve import SCHEDULED, sample_digest, subscription
from tests.support.slack_app import slack_app

EMPTY = Window(SCHEDULED + timedelta(days=30), SCHEDULED + timedelta(days=31), "Asia/Shanghai")


class _NoCore:
    """A core that is never asked anything (scheduled posts bring their own digest)."""

    config = load_config()
    default_lang = "en"
    site_url = None

    def request_for(self, command: DigestCommand) -> DigestRequest:
        raise AssertionError("not used")

    async def build(self, request: DigestRequest) -> Digest:
        raise AssertionError("not used")

    async def ask(self, command: AskCommand) -> Answer:
        raise AssertionError("not used")


class FakeTime:
    """A monotonic clock that only moves when slept on."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def _post(replies: int) -> SlackPost:
    return SlackPost({"text": "parent"}, tuple({"text": f"reply {n}"} for n in range(replies)))


async def test_thread_replies_carry_the_parent_ts(
    fake: FakeSlack, web_client: AsyncWebClient
) -> None:
    """The parent is posted first; every reply goes into its thread, links never unfurled."""
    poster = SlackPoster(web_client, pace_s=0)
    ts = await poster.post_thread("C1", _post(3))
    posts = fake.posts
    assert [p["text"] for p in posts] == ["parent", "reply 0", "reply 1", "reply 2"]
    assert posts[0]["_ts"] == ts and "thread_ts" not in posts[0]
    assert all(p["thread_ts"] == ts for p in posts[1:])
    assert all(p["unfurl_links"] is False and p["unfurl_media"] is False for p in posts)


async def test_messages_to_one_channel_are_a_second_apart() -> None:
    """The pacer spaces one channel's messages by the interval; other channels are not held up."""
    clock = FakeTime()
    pacer = ChannelPacer(1.0, monotonic=clock.monotonic, sleep=clock.sleep)
    stamps: list[tuple[str, float]] = []

    async def call(channel: str) -> None:
        stamps.append((channel, clock.now))

    for channel in ("C1", "C1", "C2", "C1"):
        await pacer.run(channel, functools.partial(call, channel))
    assert stamps == [("C1", 100.0), ("C1", 101.0), ("C2", 101.0), ("C1", 102.0)]


async def test_rate_limit_waits_retry_after_then_posts_once(fake: FakeSlack) -> None:
    """A 429 is retried after its Retry-After by the client's handler, and posted exactly once."""
    client = web_client(BOT_TOKEN, fake.api_url)
    fake.rate_limit("chat.postMessage", retry_after=1, times=2)
    poster = SlackPoster(client, pace_s=0)
    started = time.monotonic()
    await poster.post("C1", {"text": "hello"})
    assert time.monotonic() - started >= 2.0
    assert [p["text"] for p in fake.posts] == ["hello"]
    assert len(fake.called("chat.postMessage")) == 3


async def test_rate_limit_gives_up_after_a_cap(fake: FakeSlack) -> None:
    """Endless 429s end in an error after a capped number of attempts."""
    client = web_client(BOT_TOKEN, fake.api_url, rate_limit_retries=1)
    fake.rate_limit("chat.postMessage", retry_after=1, times=20)
    with pytest.raises(SlackApiError):
        await SlackPoster(client, pace_s=0).post("C1", {"text": "hello"})
    assert len(fake.called("chat.postMessage")) == 2
    assert fake.posts == []


@pytest.mark.parametrize(
    ("method", "call"),
    [
        ("auth.test", lambda c: c.auth_test()),
        ("conversations.open", lambda c: c.conversations_open(users="U1")),
        ("chat.postEphemeral", lambda c: c.chat_postEphemeral(channel="C1", user="U1", text="x")),
        ("users.info", lambda c: c.users_info(user="U1")),
    ],
)
async def test_every_web_api_call_waits_out_a_rate_limit(
    fake: FakeSlack, method: str, call: Any
) -> None:
    """Not only chat.postMessage: any Web API method the bot calls is retried after a 429."""
    client = web_client(BOT_TOKEN, fake.api_url)
    fake.rate_limit(method, retry_after=1, times=1)
    response = await call(client)
    assert response["ok"] is True
    assert len(fake.called(method)) == 2


async def test_other_errors_are_not_retried(fake: FakeSlack, web_client: AsyncWebClient) -> None:
    """A post that failed for another reason is not retried (it could have been posted)."""
    fake.fail("chat.postMessage", "internal_error", status=500)
    poster = SlackPoster(web_client, pace_s=0)
    with pytest.raises(SlackApiError):
        await poster.post("C1", {"text": "hello"})
    assert len(fake.called("chat.postMessage")) == 1


async def test_scheduled_post_uses_the_apps_poster(
    fake: FakeSlack, web_client: AsyncWebClient
) -> None:
    """A digest posted by the scheduler lands as parent + thread, like a command's."""
    app = slack_app(_NoCore(), web_client, signing_secret=None, clock=lambda: NOW, pace_s=0)
    digest = await sample_day("zh")
    ts = await app.bot.poster.post_thread("C0000009", render_slack(digest))
    parent, *replies = fake.posts
    assert parent["_ts"] == ts and parent["channel"] == "C0000009"
    assert parent["blocks"][0]["text"]["text"] == "vLLM 开发动态报告 - 2026-01-31"
    assert len(replies) == len(digest.sections) - 1
    assert all(r["thread_ts"] == ts for r in replies)


DailyFn = Callable[..., Awaitable[None]]


async def _no_part(index: int, ts: str) -> None:
    return None


@pytest.fixture
def slack(fake: FakeSlack) -> FakeSlack:
    return fake


def slack_daily(fake: FakeSlack, *, pace_s: float = 0.0) -> DailyFn:
    """A subscription's daily post through :class:`SlackDaily`, as the scheduler makes it."""
    client = AsyncWebClient(token="xoxb-daily", base_url=fake.api_url)
    daily = SlackDaily(SlackPoster(client, pace_s=pace_s))

    async def post(
        sub: Subscription,
        digest: Digest,
        *,
        late: bool,
        quiet: bool,
        done: tuple[str, ...] = (),
        part_sent: Callable[[int, str], Awaitable[None]] = _no_part,
    ) -> None:
        content = messages.daily_post(digest, late=late, quiet=quiet)
        await daily(sub.channel, content, done, part_sent)

    return post


async def test_slack_digest_is_a_parent_with_a_thread(slack: FakeSlack) -> None:
    """The parent message comes first; every section follows in its thread, unfurls off."""
    digest = await sample_digest()
    await slack_daily(slack)(subscription(), digest, late=False, quiet=False)
    parent, *replies = slack.posts
    assert "thread_ts" not in parent and parent["channel"] == "C0000001"
    assert replies and all(r["thread_ts"] == parent["_ts"] for r in replies)
    assert all(p["unfurl_links"] in (False, "false", "0", 0) for p in slack.posts)
    assert "Posted late" not in json.dumps(parent)


async def test_slack_late_digest_says_so(slack: FakeSlack) -> None:
    """A late post carries a note with the time it was due."""
    digest = await sample_digest()
    await slack_daily(slack)(subscription(), digest, late=True, quiet=False)
    assert "Posted late: this daily digest was due at 2026-02-01 11:21 (UTC+8)" in json.dumps(
        slack.posts[0], ensure_ascii=False
    )


async def test_slack_quiet_day_is_one_line(slack: FakeSlack) -> None:
    """A day without activity is one short message, no thread."""
    digest = await sample_digest(EMPTY)
    await slack_daily(slack)(subscription(), digest, late=False, quiet=True)
    assert len(slack.posts) == 1
    assert slack.posts[0]["text"].startswith("Quiet day in vllm-project/vllm: no new or closed")


async def test_chinese_quiet_and_late_lines_are_in_chinese(slack: FakeSlack) -> None:
    """A zh subscription's quiet-day line and late note are written in Chinese."""
    digest = await sample_digest(EMPTY, lang="zh")
    await slack_daily(slack)(subscription(), digest, late=True, quiet=True)
    (post,) = slack.posts
    assert post["text"].startswith("vllm-project/vllm 今日无动态")
    assert "延迟发布" in post["text"] and "Posted late" not in post["text"]


async def test_slack_parent_failure_raises_so_the_run_is_retried(slack: FakeSlack) -> None:
    """When the parent cannot be posted the poster raises; nothing is half-posted."""
    slack.fail("chat.postMessage", "not_in_channel")
    with pytest.raises(SlackApiError):
        await slack_daily(slack)(subscription(), await sample_digest(), late=False, quiet=False)
    assert slack.posts == []


async def test_slack_reply_failure_raises_after_the_parts_that_are_out(slack: FakeSlack) -> None:
    """A failing reply ends the thread with an error (the run is resumed later); the parts that
    Slack accepted were reported, and nothing after the failure was posted."""
    digest = await sample_digest()
    seen: list[tuple[int, str]] = []

    async def part_sent(index: int, ts: str) -> None:
        seen.append((index, ts))

    poster = slack_daily(slack, pace_s=0.3)
    task = asyncio.create_task(
        poster(subscription(), digest, late=False, quiet=False, part_sent=part_sent)
    )
    await slack.wait_until(lambda: len(slack.posts) >= 1)
    slack.fail("chat.postMessage", "msg_too_long", times=50)
    with pytest.raises(SlackApiError):
        await asyncio.wait_for(task, 5)
    assert len(slack.posts) == 1 and seen == [(0, slack.posts[0]["_ts"])]
    assert len(slack.called("chat.postMessage")) == 2


async def test_slack_reports_each_part_as_it_goes_out(slack: FakeSlack) -> None:
    """``part_sent(index, ts)`` follows every message Slack accepted, the parent first."""
    seen: list[tuple[int, str, int]] = []

    async def part_sent(index: int, ts: str) -> None:
        seen.append((index, ts, len(slack.posts)))

    poster = slack_daily(slack)
    await poster(
        subscription(), await sample_digest(), late=False, quiet=False, part_sent=part_sent
    )
    assert seen == [(i, p["_ts"], i + 1) for i, p in enumerate(slack.posts)] and len(seen) > 2


async def test_slack_resumed_thread_posts_only_the_missing_parts_under_its_parent(
    slack: FakeSlack,
) -> None:
    """Given the ts of the parent and two replies already out, the rest of the thread is posted
    in order under that parent, and nothing that was out is posted again."""
    digest = await sample_digest()
    await slack_daily(slack)(subscription(), digest, late=False, quiet=False)
    whole = [p["text"] for p in slack.posts]
    done = tuple(p["_ts"] for p in slack.posts[:3])
    first = len(slack.posts)
    seen: list[int] = []

    async def part_sent(index: int, ts: str) -> None:
        seen.append(index)

    poster = slack_daily(slack)
    await poster(subscription(), digest, late=False, quiet=False, done=done, part_sent=part_sent)
    resumed = slack.posts[first:]
    assert [p["text"] for p in resumed] == whole[3:]
    assert all(p["thread_ts"] == done[0] for p in resumed)
    assert seen == list(range(3, len(whole)))


async def test_slack_late_quiet_day_says_it_is_late(slack: FakeSlack) -> None:
    """A quiet day caught up after downtime is still one line, with the time it was due."""
    await slack_daily(slack)(subscription(), await sample_digest(EMPTY), late=True, quiet=True)
    (line,) = slack.posts
    assert line["text"].startswith("Quiet day in vllm-project/vllm")
    assert line["text"].endswith(
        "Posted late: this daily digest was due at 2026-03-04 11:21 (UTC+8)."
    )


async def test_the_daily_post_carries_the_digest_buttons(fake: FakeSlack) -> None:
    """A daily post's parent has the same signed buttons as a command's; its replies have none."""
    from bot.commands.buttons import ButtonSigner, DigestButtons

    signer = ButtonSigner.from_secret("xoxb-daily")
    buttons = DigestButtons(signer, load_config(), lambda: NOW)
    client = AsyncWebClient(token="xoxb-daily", base_url=fake.api_url)
    daily = SlackDaily(SlackPoster(client, pace_s=0), buttons=buttons)
    digest = await sample_day("en")
    await daily("C0000001", digest, (), _no_part)
    parent, *replies = fake.posts
    [actions] = [b for b in parent["blocks"] if b["type"] == "actions"]
    previous = next(e for e in actions["elements"] if e["action_id"] == "vr_prev")
    assert signer.command(previous["value"]).options.repo == digest.repo
    assert all(b["type"] != "actions" for r in replies for b in r.get("blocks", []))
