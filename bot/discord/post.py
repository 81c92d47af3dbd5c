"""Posting to Discord: one thread path for commands and daily posts, never able to mention.

A digest is a parent message, a thread started from it and the sections inside, posted part by
part in order; the caller hears of every part Discord accepted, so the daily post can record the
run as soon as its parent is out. Where no thread can be started (a direct message, a channel
that is not a text channel) the sections follow the parent where it went.
"""

from __future__ import annotations

import dataclasses
import io
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Literal

import discord

from bot.commands.buttons import Button
from bot.connection import Connection
from bot.discord.render import (
    DiscordPost,
    MessageSpec,
    render_discord,
    render_text,
    with_buttons,
)
from digest.models import Digest
from digest.render.charts import ChartImage

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()
THREAD_ARCHIVE_MINUTES: Literal[1440] = 1440
READY_TIMEOUT_S = 60.0  # a daily post waits this long for the gateway before it is retried

Send = Callable[[MessageSpec], Awaitable[discord.abc.Snowflake]]
"""Sends one rendered message where the thread's parent goes; returns the message sent."""
PartSent = Callable[[int, str], Awaitable[None]]
"""Awaited after each message Discord accepted: its index (0 is the parent) and its id. A thread
started from a message has that message's id, so the parent's id also names the thread."""
ChartFn = Callable[[Digest], Awaitable[ChartImage | None]]
"""The digest's chart for chat, or ``None`` when it has none (never raises)."""
PageUrlFn = Callable[[Digest], str | None]
"""The digest's page on the report website, or ``None`` when it has none."""
_CHANNEL_ID = re.compile(r"[0-9]{1,20}")


async def _nothing(index: int, message_id: str) -> None:
    return None


def channel_id(channel: str) -> int:
    """The id of the Discord channel a subscription names; ``ValueError`` if it is not one."""
    if not _CHANNEL_ID.fullmatch(channel):
        raise ValueError(f"a Discord channel is its numeric id, not {channel!r}")
    return int(channel)


def button_view(buttons: Sequence[Button]) -> discord.ui.View:
    """A row of buttons; a click is answered by the client's ``on_interaction`` (the value is
    the button's signed ``custom_id``), so the view needs no state and outlives restarts."""
    view = discord.ui.View(timeout=None)
    for button in buttons:
        if button.url is not None:
            view.add_item(
                discord.ui.Button(
                    style=discord.ButtonStyle.link, label=button.label, url=button.url
                )
            )
        else:
            view.add_item(
                discord.ui.Button(
                    style=discord.ButtonStyle.secondary,
                    label=button.label,
                    custom_id=button.value,
                    disabled=button.disabled,
                )
            )
    return view


def message_kwargs(spec: MessageSpec) -> dict[str, Any]:
    """Keyword arguments of ``send`` for a rendered message, never able to mention anyone."""
    kwargs: dict[str, Any] = {
        "content": spec.content or None,
        "embeds": [discord.Embed.from_dict(e.to_dict()) for e in spec.embeds],
        "allowed_mentions": NO_MENTIONS,
    }
    if spec.buttons:
        kwargs["view"] = button_view(spec.buttons)
    return kwargs


def http_failed(event: str, exc: discord.HTTPException, **fields: Any) -> None:
    """Log a request Discord refused, with its status and error code."""
    log.warning(event, extra={**fields, "status": exc.status, "code": exc.code})


def channel_sender(channel: discord.abc.Messageable) -> Send:
    """A :data:`Send` posting in ``channel``."""

    async def send(spec: MessageSpec) -> discord.Message:
        return await channel.send(**message_kwargs(spec))

    return send


def image_sender(raw: Callable[..., Awaitable[Any]], image: ChartImage) -> Send:
    """A :data:`Send` over ``raw`` (``channel.send``, a follow-up's ``send``) whose first
    message carries ``image``, shown in its first embed.

    When Discord refuses the upload, that message goes again without the image: a chart
    never stops the digest.
    """
    first = True

    async def send(spec: MessageSpec) -> Any:
        nonlocal first
        if not first:
            return await raw(**message_kwargs(spec))
        first = False
        kwargs = message_kwargs(spec)
        if kwargs["embeds"]:
            kwargs["embeds"][0].set_image(url=f"attachment://{image.filename}")
        upload = discord.File(io.BytesIO(image.png), filename=image.filename, description=image.alt)
        try:
            return await raw(**kwargs, file=upload)
        except discord.HTTPException as exc:
            http_failed("discord.chart_failed", exc, image=image.filename)
            return await raw(**message_kwargs(spec))

    return send


def with_page_link(post: DiscordPost, url: str) -> DiscordPost:
    """``post`` whose parent embed's title links to the digest's web page."""
    embeds = post.parent.embeds
    if not embeds:
        return post
    first = dataclasses.replace(embeds[0], url=url)
    parent = dataclasses.replace(post.parent, embeds=(first, *embeds[1:]))
    return dataclasses.replace(post, parent=parent)


async def send_parts(
    send: Send, specs: Sequence[MessageSpec], *, sent: PartSent = _nothing, first: int = 0
) -> None:
    """Send ``specs`` one by one, awaiting ``sent(index, id)`` after each (from ``first``)."""
    for index, spec in enumerate(specs, first):
        message = await send(spec)
        await sent(index, str(message.id))


async def start_thread(
    channel: Any, name: str, parent: discord.abc.Snowflake, *, strict: bool = False
) -> discord.Thread | None:
    """The thread the replies to ``parent`` go into, or None where they follow the parent.

    In a thread, that thread; in a text channel, a new thread from ``parent``; elsewhere None.
    A thread Discord refuses to start is logged and None, unless ``strict`` (then it raises).
    """
    if isinstance(channel, discord.Thread):
        return channel
    if not isinstance(channel, discord.TextChannel):
        return None
    try:
        # A follow-up's message has no guild: the thread is started from the channel.
        return await channel.create_thread(
            name=name, message=parent, auto_archive_duration=THREAD_ARCHIVE_MINUTES
        )
    except discord.HTTPException as exc:
        if strict:
            raise
        http_failed("discord.thread_failed", exc, channel_id=channel.id)
        return None


async def post_thread(
    post: DiscordPost,
    *,
    channel: Any,
    send: Send,
    sent: PartSent = _nothing,
    strict: bool = False,
) -> None:
    """Post ``post.parent`` with ``send``, then the thread's messages in order in its thread.

    ``channel`` is where the parent lands (the thread is started there); see
    :func:`start_thread` for ``strict``. The first failure is raised; nothing after it is posted.
    """
    parent = await send(post.parent)
    await sent(0, str(parent.id))
    thread = await start_thread(channel, post.thread_name, parent, strict=strict)
    replies = send if thread is None else channel_sender(thread)
    await send_parts(replies, post.thread, sent=sent, first=1)


async def resume_thread(
    post: DiscordPost, *, client: discord.Client, channel: Any, done: Sequence[str], sent: PartSent
) -> None:
    """Post the parts of ``post`` after the ``done`` ones, in the thread of the parent ``done[0]``.

    A thread started from a message has the message's id: it is looked up by it, and started
    when the interrupted post had not got that far.
    """
    parent = discord.Object(id=int(done[0]))
    thread: Any = None
    if isinstance(channel, discord.TextChannel):
        try:
            thread = client.get_channel(parent.id) or await client.fetch_channel(parent.id)
        except discord.NotFound:
            thread = await start_thread(channel, post.thread_name, parent, strict=True)
    replies = channel_sender(channel if thread is None else thread)
    await send_parts(replies, post.thread[len(done) - 1 :], sent=sent, first=len(done))


class GatewayNotReady(RuntimeError):
    """The gateway is not connected: nothing was posted, the run is retried."""


async def ready_channel(
    client: discord.Client, gateway: Connection | None, wait_s: float, name: str
) -> Any:
    """The channel ``name`` once the gateway is ready (its cache fills from it), else fetched;
    :class:`GatewayNotReady` when the gateway is not ready within ``wait_s`` seconds."""
    if gateway is not None and not await gateway.wait_up(wait_s):
        raise GatewayNotReady(f"the Discord gateway is not ready after {wait_s} s")
    wanted = channel_id(name)
    found = client.get_channel(wanted)
    return found if found is not None else await client.fetch_channel(wanted)


def command_post(
    digest: Digest,
    *,
    site_url: str | None,
    buttons: Callable[[Digest], Iterable[Button]] | None = None,
) -> DiscordPost:
    """The thread a command's digest is posted as (and completed as, after a crash)."""
    post = render_discord(digest, site_url=site_url)
    return with_buttons(post, buttons(digest)) if buttons is not None else post


class DiscordThreads:
    """Completes a command's thread another replica left short (a ``ThreadPost``).

    The digest's parts after ``done`` go into the thread started from the parent ``done[0]``
    (started now when the interrupted post had not got that far), or, for a digest asked for in
    a mention, into the thread every part of it went into; a note goes into that thread, or the
    channel when no part is out.
    """

    def __init__(
        self,
        client: discord.Client,
        *,
        gateway: Connection | None = None,
        ready_timeout: float = READY_TIMEOUT_S,
        site_url: str | None = None,
        buttons: Callable[[Digest], Iterable[Button]] | None = None,
    ) -> None:
        self._client = client
        self._gateway = gateway
        self._ready_timeout = ready_timeout
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
        found = await ready_channel(self._client, self._gateway, self._ready_timeout, channel)
        if thread is not None:  # asked for in a mention: every part went into its thread
            inside = channel_sender(await ready_channel(self._client, None, 0, thread))
            if isinstance(content, str):
                await send_parts(inside, render_text(content))
                return
            post = render_discord(content, site_url=self._site_url)
            rest = post.messages[len(done) :]
            await send_parts(inside, rest, sent=part_sent, first=len(done))
            return
        if isinstance(content, str):
            target = found
            if done and isinstance(found, discord.TextChannel):
                try:
                    target = await ready_channel(self._client, None, 0, done[0])
                except discord.NotFound:
                    target = found
            await send_parts(channel_sender(target), render_text(content))
            return
        post = command_post(content, site_url=self._site_url, buttons=self._buttons)
        if done:
            await resume_thread(post, client=self._client, channel=found, done=done, sent=part_sent)
            return
        await post_thread(
            post, channel=found, send=channel_sender(found), sent=part_sent, strict=True
        )


class DiscordDaily:
    """The daily post in a Discord channel: the digest as a thread, or the quiet-day line.

    With ``chart``, the day's chart is attached to the parent and shown in its embed; with
    ``page_url``, the parent embed's title links to the day's page on the report website.

    It waits for the gateway to be ready (``gateway``) first: the channel cache fills from it.
    Each part Discord accepted is reported to ``part_sent``; a failure is raised, and the thread
    is resumed later from the next part (``done``; a resumed thread gets no chart).
    """

    def __init__(
        self,
        client: discord.Client,
        *,
        gateway: Connection | None = None,
        ready_timeout: float = READY_TIMEOUT_S,
        chart: ChartFn | None = None,
        page_url: PageUrlFn | None = None,
        site_url: str | None = None,
        buttons: Callable[[Digest], Iterable[Button]] | None = None,
    ) -> None:
        self._client = client
        self._buttons = buttons
        self._gateway = gateway
        self._ready_timeout = ready_timeout
        self._chart = chart
        self._page_url = page_url
        self._site_url = site_url

    async def __call__(
        self, name: str, content: Digest | str, done: tuple[str, ...], part_sent: PartSent
    ) -> None:
        channel = await ready_channel(self._client, self._gateway, self._ready_timeout, name)
        send = channel_sender(channel)
        if isinstance(content, str):
            rest = render_text(content)[len(done) :]
            await send_parts(send, rest, sent=part_sent, first=len(done))
            return
        post = render_discord(content, site_url=self._site_url)
        url = self._page_url(content) if self._page_url is not None else None
        if url is not None:
            post = with_page_link(post, url)
        if self._buttons is not None:
            post = with_buttons(post, self._buttons(content))
        if done:  # an interrupted thread: the rest of it, under its parent (no chart)
            await resume_thread(
                post, client=self._client, channel=channel, done=done, sent=part_sent
            )
            return
        image = await self._chart(content) if self._chart is not None else None
        if image is not None:
            send = image_sender(channel.send, image)
        await post_thread(post, channel=channel, send=send, sent=part_sent, strict=True)
