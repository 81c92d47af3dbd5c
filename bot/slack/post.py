"""Posting to Slack: one thread path for commands and daily posts, paced per channel.

About one message per second per channel; 429 ``Retry-After`` is honoured by the client's retry
handlers (:mod:`bot.slack.web`). A thread is posted part
by part (the parent, then each reply in order) and the caller hears of every part Slack accepted,
so the daily post can record the run as soon as its parent is out.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.buttons import Button
from bot.slack.render import (
    SlackMessage,
    SlackPost,
    render_slack,
    render_text,
    with_buttons,
    with_page_link,
)
from digest.i18n.site import site_t
from digest.models import Digest
from digest.render.charts import ChartImage

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
PartSent = Callable[[int, str], Awaitable[None]]
"""Awaited after each message of a thread Slack accepted: its index (0 is the parent), its ts."""
ChartFn = Callable[[Digest], Awaitable[ChartImage | None]]
"""The digest's chart for chat, or ``None`` when it has none (never raises)."""
PageUrlFn = Callable[[Digest], str | None]
"""The digest's page on the report website, or ``None`` when it has none."""


async def _nothing(index: int, ts: str) -> None:
    return None


def slack_error(exc: SlackApiError) -> str:
    """The ``error`` code of a failed Web API call (``not_in_channel``, ``ratelimited``...)."""
    data = exc.response.data if exc.response is not None else None
    return str(data.get("error", "")) if isinstance(data, dict) else ""


class ChannelPacer:
    """Spaces the messages of each channel at least ``interval`` seconds apart."""

    def __init__(
        self,
        interval: float,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._interval = interval
        self._monotonic = monotonic
        self._sleep = sleep
        self._locks: dict[str, asyncio.Lock] = {}
        self._last: dict[str, float] = {}

    async def run(self, channel: str, call: Callable[[], Awaitable[Any]]) -> Any:
        """Run ``call`` in ``channel``'s turn."""
        lock = self._locks.setdefault(channel, asyncio.Lock())
        async with lock:
            last = self._last.get(channel)
            if last is not None:
                wait = last + self._interval - self._monotonic()
                if wait > 0:
                    await self._sleep(wait)
            try:
                return await call()
            finally:
                self._last[channel] = self._monotonic()


class SlackPoster:
    """Posts messages and threads through an ``AsyncWebClient``."""

    def __init__(
        self,
        client: AsyncWebClient,
        *,
        pace_s: float = 1.0,
        sleep: Sleep = asyncio.sleep,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self._pacer = ChannelPacer(pace_s, monotonic=monotonic, sleep=sleep)

    async def post(
        self, channel: str, message: SlackMessage, *, thread_ts: str | None = None
    ) -> str:
        """Post ``message`` in ``channel`` (in a thread when ``thread_ts``); returns its ``ts``."""
        args: dict[str, Any] = {
            "channel": channel,
            "text": message.get("text", ""),
            "unfurl_links": False,
            "unfurl_media": False,
        }
        if message.get("blocks"):
            args["blocks"] = message["blocks"]
        if thread_ts:
            args["thread_ts"] = thread_ts
        # 429s are retried by the client's retry handlers (bot.slack.web), in this turn
        response = await self._pacer.run(channel, lambda: self.client.chat_postMessage(**args))
        return str(response["ts"])

    async def post_thread(
        self,
        channel: str,
        post: SlackPost,
        *,
        thread_ts: str | None = None,
        sent: PartSent = _nothing,
        done: Sequence[str] = (),
    ) -> str:
        """Post the parent, then every reply in its thread (or all in ``thread_ts``), in order.

        ``sent(index, ts)`` is awaited after each message Slack accepted (0 is the parent); the
        first failure is raised, and nothing after it is posted. ``done`` holds the ``ts`` of the
        parts already out (an interrupted thread): posting resumes at the next part, under the
        parent ``done[0]``. Returns the parent's ``ts``.
        """
        if done:
            parent_ts = done[0]
        else:
            parent_ts = await self.post(channel, post.parent, thread_ts=thread_ts)
            await sent(0, parent_ts)
        for index, reply in enumerate(post.replies, 1):
            if index < len(done):
                continue
            ts = await self.post(channel, reply, thread_ts=thread_ts or parent_ts)
            await sent(index, ts)
        return parent_ts

    async def upload_chart(self, channel: str, thread_ts: str, image: ChartImage) -> bool:
        """Upload ``image`` into the thread ``thread_ts`` with its alt text (files_upload_v2).

        A failure is logged and returns ``False``: a chart never stops the digest.
        """
        try:
            await self._pacer.run(
                channel,
                lambda: self.client.files_upload_v2(
                    channel=channel,
                    thread_ts=thread_ts,
                    content=image.png,
                    filename=image.filename,
                    title=image.title,
                    alt_txt=image.alt,
                ),
            )
        except SlackApiError as exc:
            log.warning("slack.chart_failed", extra={"channel": channel, "error": slack_error(exc)})
            return False
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.warning(
                "slack.chart_failed", extra={"channel": channel, "error": type(exc).__name__}
            )
            return False
        return True

    async def open_dm(self, user: str) -> str:
        """The id of the direct-message channel with ``user``."""
        response = await self.client.conversations_open(users=user)
        return str(response["channel"]["id"])

    async def ephemeral(
        self, channel: str, user: str, text: str, *, thread_ts: str | None = None
    ) -> None:
        """Show ``text`` to ``user`` only."""
        args: dict[str, Any] = {"channel": channel, "user": user, "text": text}
        if thread_ts:
            args["thread_ts"] = thread_ts
        await self.client.chat_postEphemeral(**args)


def command_post(
    digest: Digest,
    *,
    site_url: str | None,
    buttons: Callable[[Digest], Iterable[Button]] | None = None,
) -> SlackPost:
    """The thread a command's digest is posted as (and completed as, after a crash)."""
    post = render_slack(digest, site_url=site_url)
    return with_buttons(post, buttons(digest)) if buttons is not None else post


class SlackThreads:
    """Completes a command's thread another replica left short (a ``ThreadPost``).

    The digest's parts after ``done`` go under the parent ``done[0]`` (or into the thread the
    command was asked in); a note goes into that thread, or the channel when no part is out.
    """

    def __init__(
        self,
        poster: SlackPoster,
        *,
        site_url: str | None = None,
        buttons: Callable[[Digest], Iterable[Button]] | None = None,
    ) -> None:
        self._poster = poster
        self._site_url = site_url
        self._buttons = buttons

    async def __call__(
        self,
        channel: str,
        thread: str | None,
        content: Digest | str,
        done: tuple[str, ...],
        part_sent: PartSent,
    ) -> None:
        if isinstance(content, str):
            under = thread or (done[0] if done else None)
            await self._poster.post(channel, render_text(content), thread_ts=under)
            return
        post = command_post(content, site_url=self._site_url, buttons=self._buttons)
        await self._poster.post_thread(channel, post, thread_ts=thread, sent=part_sent, done=done)


class SlackDaily:
    """The daily post in a Slack channel: the digest as a thread, or the one quiet-day line.

    With ``chart``, the day's chart is uploaded first into the thread; with ``page_url``, the
    parent links to the day's page on the report website.

    Each part Slack accepted is reported to ``part_sent``; a failure is raised, and the thread is
    resumed later from the next part (``done``; a resumed thread gets no chart).
    """

    def __init__(
        self,
        poster: SlackPoster,
        *,
        chart: ChartFn | None = None,
        page_url: PageUrlFn | None = None,
        site_url: str | None = None,
        buttons: Callable[[Digest], Iterable[Button]] | None = None,
    ) -> None:
        self._poster = poster
        self._chart = chart
        self._page_url = page_url
        self._site_url = site_url
        self._buttons = buttons

    async def __call__(
        self, channel: str, content: Digest | str, done: tuple[str, ...], part_sent: PartSent
    ) -> None:
        image: ChartImage | None = None
        if isinstance(content, str):
            post = SlackPost(render_text(content))
        else:
            post = render_slack(content, site_url=self._site_url)
            url = self._page_url(content) if self._page_url is not None else None
            if url is not None:
                post = with_page_link(post, url, site_t("site.page_link", content.lang))
            if self._buttons is not None:
                post = with_buttons(post, self._buttons(content))
            if self._chart is not None and not done:
                image = await self._chart(content)

        async def sent(index: int, ts: str) -> None:
            await part_sent(index, ts)
            if index == 0 and image is not None:  # first in the thread, above the sections
                await self._poster.upload_chart(channel, ts, image)

        await self._poster.post_thread(channel, post, sent=sent, done=done)
