"""Posting the scheduled daily digest to a channel: parent message, then its thread.

The scheduler calls a :class:`DailyPoster`. An exception before the first message is out means
"not posted": the scheduler releases the run and retries it. Once the parent message is out the
poster awaits ``parent_sent()``, which records the run as posted, so nothing after it (a failing
reply, a stop, a crash) can post the parent twice; a reply the platform refuses is logged.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import discord
from slack_sdk.errors import SlackApiError

from bot.commands import messages
from bot.discord.handlers import THREAD_ARCHIVE_MINUTES, message_kwargs
from bot.discord.render import render_discord
from bot.discord.render import render_text as discord_text
from bot.slack.post import SlackPoster, slack_error
from bot.slack.render import render_slack
from bot.slack.render import render_text as slack_text
from digest.models import Digest
from digest.schedule.subscription import Subscription
from digest.windows import format_moment, format_window

log = logging.getLogger(__name__)


SentFn = Callable[[], Awaitable[None]]


class PlatformUnavailable(RuntimeError):
    """The subscription's platform is not configured in this process."""


async def _nothing() -> None:
    return None


class ChannelPoster(Protocol):
    async def __call__(
        self,
        subscription: Subscription,
        digest: Digest,
        *,
        late: bool,
        quiet: bool,
        parent_sent: SentFn = _nothing,
    ) -> None: ...


def _late_note(digest: Digest) -> str:
    due = format_moment(digest.window.end, digest.window.timezone)
    return messages.late_post(due, digest.lang)


def daily_digest(digest: Digest, *, late: bool) -> Digest:
    """``digest`` with a visible note when it is posted after its time."""
    if not late:
        return digest
    return dataclasses.replace(digest, notes=(_late_note(digest), *digest.notes))


def quiet_text(digest: Digest, *, late: bool = False) -> str:
    """The one line posted instead of a digest of a day without activity (late ones say so)."""
    line = messages.quiet_day(digest.repo, format_window(digest.window), digest.lang)
    return f"{line} {_late_note(digest)}" if late else line


class SlackDaily:
    """Posts daily digests through the Slack front end's poster and renderer."""

    def __init__(self, poster: SlackPoster) -> None:
        self._poster = poster

    async def __call__(
        self,
        subscription: Subscription,
        digest: Digest,
        *,
        late: bool,
        quiet: bool,
        parent_sent: SentFn = _nothing,
    ) -> None:
        channel = subscription.channel
        if quiet:
            await self._poster.post(channel, slack_text(quiet_text(digest, late=late)))
            await parent_sent()
            return
        post = render_slack(daily_digest(digest, late=late))
        parent_ts = await self._poster.post(channel, post.parent)
        await parent_sent()
        for reply in post.replies:
            try:
                await self._poster.post(channel, reply, thread_ts=parent_ts)
            except SlackApiError as exc:
                log.warning(
                    "schedule.reply_failed",
                    extra={"platform": "slack", "channel": channel, "error": slack_error(exc)},
                )
                return


class DiscordDaily:
    """Posts daily digests through the Discord front end's renderer, with its own client."""

    def __init__(self, client: discord.Client) -> None:
        self._client = client

    async def _channel(self, channel_id: int) -> Any:
        found = self._client.get_channel(channel_id)
        return found if found is not None else await self._client.fetch_channel(channel_id)

    async def __call__(
        self,
        subscription: Subscription,
        digest: Digest,
        *,
        late: bool,
        quiet: bool,
        parent_sent: SentFn = _nothing,
    ) -> None:
        channel = await self._channel(int(subscription.channel))
        if quiet:
            for spec in discord_text(quiet_text(digest, late=late)):
                await channel.send(**message_kwargs(spec))
                await parent_sent()
            return
        post = render_discord(daily_digest(digest, late=late))
        parent = await channel.send(**message_kwargs(post.parent))
        await parent_sent()
        target = channel
        try:
            if isinstance(channel, discord.TextChannel):
                target = await channel.create_thread(
                    name=post.thread_name,
                    message=parent,
                    auto_archive_duration=THREAD_ARCHIVE_MINUTES,
                )
            for spec in post.thread:
                await target.send(**message_kwargs(spec))
        except discord.HTTPException as exc:
            log.warning(
                "schedule.reply_failed",
                extra={
                    "platform": "discord",
                    "channel": subscription.channel,
                    "status": exc.status,
                    "code": exc.code,
                },
            )


class DailyPoster:
    """Sends each subscription's post to the front end of its platform."""

    def __init__(self, posters: dict[str, ChannelPoster]) -> None:
        self._posters = dict(posters)

    @property
    def platforms(self) -> tuple[str, ...]:
        return tuple(self._posters)

    async def __call__(
        self,
        subscription: Subscription,
        digest: Digest,
        *,
        late: bool,
        quiet: bool,
        parent_sent: SentFn = _nothing,
    ) -> None:
        poster = self._posters.get(subscription.platform)
        if poster is None:
            raise PlatformUnavailable(f"{subscription.platform} is not configured here")
        await poster(subscription, digest, late=late, quiet=quiet, parent_sent=parent_sent)
