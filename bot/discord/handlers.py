"""What Discord commands and mentions do: call the core, render, post; errors in shared words."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar, cast

import discord

from bot.commands import messages
from bot.commands.buttons import ButtonRefused, DigestButtons
from bot.commands.defaults import Caller, DefaultsStore
from bot.commands.dispatch import (
    Core,
    DigestBuild,
    Dispatcher,
    Failed,
    Outcome,
    RateLimiter,
    Reply,
    SubscriptionCommand,
    granted,
    reported,
)
from bot.commands.grammar import AskCommand, Command, DigestCommand, SettingsCommand
from bot.commands.subscriptions import Subscriptions
from bot.commands.tracking import UNTRACKED, ThreadJournal, ThreadTracker, open_thread, posting
from bot.discord.post import (
    NO_MENTIONS,
    THREAD_ARCHIVE_MINUTES,
    ChartFn,
    command_post,
    http_failed,
    image_sender,
    message_kwargs,
    post_thread,
)
from bot.discord.render import (
    DiscordPost,
    MessageSpec,
    clip,
    render_answer,
    render_discord,
    render_text,
)
from digest.models import Digest
from digest.render.charts import ChartImage

log = logging.getLogger(__name__)

T = TypeVar("T")
C = TypeVar("C", bound=Command)
Interaction = discord.Interaction[Any]


def _known(value: str | None) -> Callable[[], Awaitable[str | None]]:
    async def read() -> str | None:
        return value

    return read


def custom_id(interaction: Interaction) -> str:
    """The ``custom_id`` of a component interaction ("" for any other)."""
    data: Mapping[str, Any] = cast("Mapping[str, Any]", interaction.data or {})
    return str(data.get("custom_id") or "")


def interaction_caller(interaction: Interaction) -> Caller:
    """The :class:`Caller` of an interaction: its channel, guild, and the user's and guild's
    locales (Discord sends both with every interaction; it tells no time zone)."""
    guild_locale = interaction.guild_locale
    permissions = interaction.permissions
    return Caller(
        channel=str(interaction.channel_id),
        workspace=str(interaction.guild_id) if interaction.guild_id else None,
        locale=_known(str(interaction.locale.value) if interaction.locale else None),
        can_manage_workspace=granted(interaction.guild_id is not None and permissions.manage_guild),
        fallback_locale=str(guild_locale.value) if guild_locale is not None else None,
        user=str(interaction.user.id),
    )


def message_caller(message: discord.Message) -> Caller:
    """The :class:`Caller` of a mention: its channel and guild (a message carries no locale)."""
    author = message.author
    manage_guild = isinstance(author, discord.Member) and author.guild_permissions.manage_guild
    return Caller(
        channel=str(message.channel.id),
        workspace=str(message.guild.id) if message.guild else None,
        can_manage_workspace=granted(manage_guild),
        user=str(author.id),
    )


def mention_text(content: str, bot_id: int) -> str:
    """The text of a message with the mentions of the bot removed."""
    return " ".join(re.sub(rf"<@!?{bot_id}>", " ", content).split())


class DiscordFrontEnd:
    """The behaviour behind every Discord command and mention, a few lines each."""

    def __init__(
        self,
        *,
        core: Core,
        subscriptions: Subscriptions,
        clock: Callable[[], datetime],
        defaults: DefaultsStore | None = None,
        buttons: DigestButtons | None = None,
        chart: ChartFn | None = None,
        threads: ThreadJournal | None = None,
        limiter: RateLimiter | None = None,
    ) -> None:
        self.core = core
        self.buttons = buttons
        self.chart = chart
        self.threads = threads
        self.clock = clock
        self.dispatch = Dispatcher(
            core, subscriptions, platform="discord", defaults=defaults, limiter=limiter
        )

    # Slash commands

    async def report(
        self, interaction: Interaction, command: DigestCommand, *, clicked: bool = False
    ) -> None:
        """``/vllm-report``: defer, build, then the parent message and its thread."""
        build = self.dispatch.build(command, interaction_caller(interaction), clicked=clicked)
        await interaction.response.defer(thinking=True, ephemeral=build.private)

        async def built() -> tuple[Any, Digest]:
            request = await build.request()
            return request, await build.digest(request)

        outcome = await self._guarded(interaction, command, built())
        if isinstance(outcome, Failed):
            return
        request, digest = outcome
        post = command_post(digest, site_url=self.core.site_url, buttons=self.buttons)
        image = await self.chart(digest) if self.chart is not None else None
        tracker = UNTRACKED
        if not build.private:
            tracker = await open_thread(
                self.threads,
                platform="discord",
                channel=str(interaction.channel_id),
                user=str(interaction.user.id),
                request=request,
            )
        await self._deliver(interaction, post, private=build.private, image=image, tracker=tracker)

    async def button(self, interaction: Interaction) -> None:
        """A click on a digest's button: that digest, posted as ``/vllm-report`` would post it
        (deferred at once); a forged or stale value is refused to the clicker only."""
        value = custom_id(interaction)
        try:
            if self.buttons is None:
                raise ButtonRefused(messages.BUTTON_STALE)
            command = self.buttons.signer.command(value)
        except ButtonRefused as exc:
            log.info("discord.button_refused", extra={"channel_id": interaction.channel_id})
            await interaction.response.send_message(
                messages.button_refused(str(exc)), ephemeral=True, allowed_mentions=NO_MENTIONS
            )
            return
        log.info("discord.button", extra={"channel_id": interaction.channel_id})
        await self.report(interaction, command, clicked=True)

    async def ask(self, interaction: Interaction, command: AskCommand) -> None:
        """``/vllm-ask``: a short linked answer as follow-ups."""
        await interaction.response.defer(thinking=True)
        build = self.dispatch.build(command, interaction_caller(interaction))
        answer = await self._guarded(interaction, command, build.run())
        if not isinstance(answer, Failed):
            await self._deliver_messages(interaction, render_answer(answer))

    async def manage(
        self, interaction: Interaction, command: SubscriptionCommand | SettingsCommand
    ) -> None:
        """``/vllm-subscribe``, ``/vllm-unsubscribe``, ``/vllm-subscriptions``,
        ``/vllm-settings``."""
        can_manage = interaction.guild_id is None or interaction.permissions.manage_channels
        channel = str(interaction.channel_id)
        caller = interaction_caller(interaction)
        work = (
            self.dispatch.settings(command, caller=caller, can_manage=granted(can_manage))
            if isinstance(command, SettingsCommand)
            else self.dispatch.subscription(
                command, channel=channel, can_manage=granted(can_manage), caller=caller
            )
        )
        reply = await self._reported(
            work,
            refused="discord.command_refused",
            failed="discord.command_failed",
            fields=self._fields(interaction, command),
        )
        public = not isinstance(reply, Failed) and reply.public
        await interaction.response.send_message(
            reply.text, ephemeral=not public, allowed_mentions=NO_MENTIONS
        )

    async def help(self, interaction: Interaction) -> None:
        """``/vllm-help``: the shared help text, only to the user who asked."""
        first, *rest = render_text(messages.help_text("discord"))
        await interaction.response.send_message(ephemeral=True, **message_kwargs(first))
        for spec in rest:
            await interaction.followup.send(ephemeral=True, **message_kwargs(spec))

    async def run(
        self,
        interaction: Interaction,
        make: Callable[[], C],
        then: Callable[[Interaction, C], Awaitable[None]],
    ) -> None:
        """Make the command from a slash command's options, then run it with ``then``.

        Options that make no command (a ``UsageError``) are answered only to the user.
        """

        async def parse() -> C:
            return make()

        command = await self._reported(
            parse(),
            refused="discord.command_refused",
            failed="discord.command_failed",
            fields=self._fields(interaction),
        )
        if isinstance(command, Failed):
            await interaction.response.send_message(
                command.text, ephemeral=True, allowed_mentions=NO_MENTIONS
            )
            return
        await then(interaction, command)

    def _reported(
        self, work: Awaitable[T], *, refused: str, failed: str, fields: dict[str, Any]
    ) -> Awaitable[T | Failed]:
        return reported(
            work,
            platform="discord",
            now=self.clock,
            logger=log,
            refused=refused,
            failed=failed,
            fields=fields,
        )

    async def _guarded(
        self, interaction: Interaction, command: Command, work: Awaitable[T]
    ) -> T | Failed:
        """The result of ``work``, or how it failed once that has been told to the user."""
        done = await self._reported(
            work,
            refused="discord.command_refused",
            failed="discord.command_failed",
            fields=self._fields(interaction, command),
        )
        if isinstance(done, Failed):
            await self._fail(interaction, done.text)
        return done

    async def _fail(self, interaction: Interaction, text: str) -> None:
        # The first follow-up would replace the "thinking" message and keep its (public) flags,
        # so remove that message first: the error then reaches only the user who asked.
        try:
            await interaction.delete_original_response()
        except discord.HTTPException:
            log.info("discord.original_not_deleted", extra={"interaction_id": interaction.id})
        await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS)

    async def _deliver(
        self,
        interaction: Interaction,
        post: DiscordPost,
        *,
        private: bool,
        image: ChartImage | None = None,
        tracker: ThreadTracker = UNTRACKED,
    ) -> None:
        """Post ``post`` as follow-ups (or by DM); ``image``, the digest's chart, is attached
        to the parent and shown in its embed (a refused upload posts the text alone). Each
        part out is recorded with ``tracker``, so another replica completes the thread if this
        one dies."""
        if private:
            said = await self._send_dm(interaction.user, post.messages)
            if said == messages.SENT_PRIVATE:
                await interaction.followup.send(said, ephemeral=True, allowed_mentions=NO_MENTIONS)
            else:
                await self._fail(interaction, said)
            return

        async def raw(**kwargs: Any) -> discord.WebhookMessage:
            return await interaction.followup.send(wait=True, **kwargs)

        async def follow_up(spec: MessageSpec) -> discord.abc.Snowflake:
            return await raw(**message_kwargs(spec))

        send = follow_up if image is None else image_sender(raw, image)

        parent_out = False

        async def sent(index: int, message_id: str) -> None:
            nonlocal parent_out
            parent_out = True
            await tracker.sent(index, message_id)

        try:
            async with posting(tracker):
                await post_thread(post, channel=interaction.channel, send=send, sent=sent)
        except discord.HTTPException as exc:
            http_failed("discord.post_failed", exc, channel_id=interaction.channel_id)
            if not parent_out:
                await self._fail(interaction, messages.INTERNAL)
                return
            await interaction.followup.send(
                messages.INTERNAL, ephemeral=True, allowed_mentions=NO_MENTIONS
            )

    async def _deliver_messages(
        self, interaction: Interaction, specs: Sequence[MessageSpec]
    ) -> None:
        for spec in specs:
            await interaction.followup.send(**message_kwargs(spec))

    async def _send_dm(
        self, user: discord.User | discord.Member, specs: Sequence[MessageSpec]
    ) -> str:
        """Send ``specs`` to ``user`` by direct message; the words that say how it went."""
        try:
            await self._send_all(await user.create_dm(), specs)
        except discord.Forbidden:
            return messages.CANNOT_DM
        except discord.HTTPException as exc:
            http_failed("discord.dm_failed", exc, user_id=user.id)
            return messages.INTERNAL
        return messages.SENT_PRIVATE

    @staticmethod
    async def _send_all(
        channel: discord.abc.Messageable,
        specs: Sequence[MessageSpec],
        reference: discord.Message | None = None,
        tracker: ThreadTracker = UNTRACKED,
    ) -> None:
        for i, spec in enumerate(specs):
            if i == 0 and reference is not None:
                sent = await channel.send(
                    reference=reference, mention_author=False, **message_kwargs(spec)
                )
            else:
                sent = await channel.send(**message_kwargs(spec))
            await tracker.sent(i, str(sent.id))

    @staticmethod
    def _fields(interaction: Interaction, command: Command | None = None) -> dict[str, Any]:
        return {
            "command": type(command).__name__ if command is not None else None,
            "guild_id": interaction.guild_id,
            "channel_id": interaction.channel_id,
            "user_id": interaction.user.id,
        }

    # Mentions and direct messages

    async def on_message(self, message: discord.Message, me: discord.ClientUser) -> None:
        """Answer a message that mentions the bot (or a DM) in a thread started from it."""
        if message.author.bot or message.author.id == me.id:
            return
        if message.guild is not None and all(u.id != me.id for u in message.mentions):
            return
        fields = {
            "guild_id": message.guild.id if message.guild else None,
            "channel_id": message.channel.id,
            "user_id": message.author.id,
        }
        text = mention_text(message.content, me.id) or "help"  # a bare mention asks for help

        async def answer() -> None:
            try:
                outcome = await self.dispatch.text(
                    text,
                    channel=str(message.channel.id),
                    can_manage=granted(self._can_manage(message)),
                    caller=message_caller(message),
                )
                if isinstance(outcome, Reply) and outcome.command is None:
                    log.info("discord.mention_refused", extra={**fields, "error": "UsageError"})
                await self._answer(message, outcome)
            except discord.HTTPException as exc:  # Discord refused a post: nowhere to say so
                http_failed("discord.post_failed", exc, **fields)

        done = await self._reported(
            answer(),
            refused="discord.mention_refused",
            failed="discord.mention_failed",
            fields=fields,
        )
        if isinstance(done, Failed):
            await self._reply(message, done.text)

    async def _answer(self, message: discord.Message, outcome: Outcome) -> None:
        if isinstance(outcome, Reply):
            await self._reply(message, outcome.text)
            return
        request = None
        async with message.channel.typing():
            if isinstance(outcome, DigestBuild):
                request = await outcome.request()
                digest = await outcome.digest(request)
                post = render_discord(digest, site_url=self.core.site_url)
                specs, name = post.messages, post.thread_name
            else:
                specs = render_answer(await outcome.run())
                name = clip(" ".join(outcome.command.question.split()), 100)
        if outcome.private:
            await self._reply(message, await self._send_dm(message.author, specs))
            return
        target, reference = await self._reply_target(message, name)
        tracker = UNTRACKED
        if request is not None and reference is None:  # a digest in a thread of its own
            tracker = await open_thread(
                self.threads,
                platform="discord",
                channel=str(message.channel.id),
                user=str(message.author.id),
                request=request,
                thread=str(getattr(target, "id", "")),
            )
        async with posting(tracker):
            await self._send_all(target, specs, reference, tracker)

    async def _reply_target(
        self, message: discord.Message, name: str
    ) -> tuple[discord.abc.Messageable, discord.Message | None]:
        if isinstance(message.channel, discord.TextChannel):
            try:
                thread = await message.create_thread(
                    name=name or "vllm-report", auto_archive_duration=THREAD_ARCHIVE_MINUTES
                )
                return thread, None
            except discord.HTTPException as exc:
                http_failed("discord.thread_failed", exc, channel_id=message.channel.id)
        return message.channel, message

    async def _reply(self, message: discord.Message, text: str) -> None:
        await self._send_all(message.channel, render_text(text), message)

    @staticmethod
    def _can_manage(message: discord.Message) -> bool:
        if message.guild is None:
            return True
        author = message.author
        channel = message.channel
        return (
            isinstance(author, discord.Member)
            and isinstance(channel, discord.abc.GuildChannel | discord.Thread)
            and channel.permissions_for(author).manage_channels
        )
