"""Posting: threads, pacing per channel, 429 Retry-After."""

from __future__ import annotations

import functools

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.grammar import AskCommand, DigestCommand
from bot.slack import build_slack_app, slack_bot
from bot.slack.post import ChannelPacer, SlackPoster
from bot.slack.render import SlackPost, render_slack
from config.settings import load_config
from digest.models import Answer, Digest
from tests.bot.slack.conftest import NOW, sample_digest
from tests.fakes.slack import FakeSlack


class _NoCore:
    """A core that is never asked anything (scheduled posts bring their own digest)."""

    config = load_config()
    default_lang = "en"

    async def digest(self, command: DigestCommand) -> Digest:
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


async def test_rate_limit_waits_retry_after_then_posts_once(
    fake: FakeSlack, web_client: AsyncWebClient
) -> None:
    """A 429 is retried after its Retry-After, and the message is posted exactly once."""
    clock = FakeTime()
    fake.rate_limit("chat.postMessage", retry_after=7, times=2)
    poster = SlackPoster(web_client, pace_s=0, sleep=clock.sleep, monotonic=clock.monotonic)
    await poster.post("C1", {"text": "hello"})
    assert clock.slept == [7.0, 7.0]
    assert [p["text"] for p in fake.posts] == ["hello"]
    assert len(fake.called("chat.postMessage")) == 3


async def test_rate_limit_gives_up_after_a_cap(fake: FakeSlack, web_client: AsyncWebClient) -> None:
    """Endless 429s end in an error after a capped number of attempts."""
    clock = FakeTime()
    fake.rate_limit("chat.postMessage", retry_after=1, times=20)
    poster = SlackPoster(web_client, pace_s=0, sleep=clock.sleep, monotonic=clock.monotonic)
    with pytest.raises(SlackApiError):
        await poster.post("C1", {"text": "hello"})
    assert len(fake.called("chat.postMessage")) == 5
    assert fake.posts == []


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
    app = build_slack_app(_NoCore(), web_client, signing_secret=None, clock=lambda: NOW, pace_s=0)
    digest = await sample_digest("zh")
    ts = await slack_bot(app).poster.post_thread("C0000009", render_slack(digest))
    parent, *replies = fake.posts
    assert parent["_ts"] == ts and parent["channel"] == "C0000009"
    assert parent["blocks"][0]["text"]["text"] == "vLLM 开发动态报告 - 2026-01-31"
    assert len(replies) == len(digest.sections) - 1
    assert all(r["thread_ts"] == ts for r in replies)
