"""What a chat command does on any platform: parse it, call the core, choose the words.

The Slack and Discord handlers acknowledge, render and post what :class:`Dispatcher` returns:
a :class:`Reply` to show now, or a :class:`DigestBuild` / :class:`AnswerBuild` to run (slowly,
after acknowledging) and then render. Every handler runs its work through :func:`reported`, the
one error ladder: what the user got wrong or what the core could not do is logged at info and
worded by ``messages.error_text``; anything else is logged with its trace and the user gets the
shared words for "our fault".
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar, overload

from bot.commands import messages
from bot.commands.grammar import (
    AskCommand,
    Command,
    DigestCommand,
    HelpCommand,
    ListSubscriptionsCommand,
    SubscribeCommand,
    UnsubscribeCommand,
    UsageError,
    parse,
)
from bot.commands.runner import user_topics
from bot.commands.subscriptions import Subscriptions, to_subscription
from config.settings import AppConfig, SubscriptionConfig
from digest.errors import DigestError
from digest.models import Answer, Digest
from digest.schedule.subscription import WEEKDAYS, next_run
from digest.windows import format_moment, zone

log = logging.getLogger(__name__)

T = TypeVar("T")
Platform = messages.Platform
SubscriptionCommand = SubscribeCommand | UnsubscribeCommand | ListSubscriptionsCommand
CanManage = Callable[[], Awaitable[bool]]
"""Whether the caller may change the channel's subscriptions; asked only when it matters."""


class Core(Protocol):
    """The part of ``bot.commands.runner.ReportCore`` the chat front ends use."""

    config: AppConfig
    default_lang: str
    clock: Callable[[], datetime]

    async def digest(self, command: DigestCommand) -> Digest: ...

    async def ask(self, command: AskCommand) -> Answer: ...


@dataclass(frozen=True, slots=True)
class Reply:
    """Words for the caller now: help, a usage error or the outcome of a subscription command."""

    text: str
    command: Command | None = None  # None when the text could not be parsed
    public: bool = False  # a change of the channel's subscriptions, which the channel may see


class _Build:
    """What a digest and an answer to build have in common."""

    __slots__ = ()
    command: DigestCommand | AskCommand

    @property
    def private(self) -> bool:
        """Whether the result goes to the caller by direct message."""
        return self.command.options.private

    @property
    def working(self) -> str:
        """The acknowledgement shown while it builds."""
        return messages.WORKING_PRIVATE if self.private else messages.WORKING


@dataclass(frozen=True, slots=True)
class DigestBuild(_Build):
    """A digest to build, then render and post."""

    command: DigestCommand
    core: Core

    async def run(self) -> Digest:
        return await self.core.digest(self.command)


@dataclass(frozen=True, slots=True)
class AnswerBuild(_Build):
    """An answer to a question to build, then render and post."""

    command: AskCommand
    core: Core

    async def run(self) -> Answer:
        return await self.core.ask(self.command)


Outcome = Reply | DigestBuild | AnswerBuild


@dataclass(frozen=True, slots=True)
class Failed:
    """Work that failed and was logged; ``text`` is what to tell the user who asked."""

    text: str


async def reported(
    work: Awaitable[T],
    *,
    platform: Platform,
    now: Callable[[], datetime],
    logger: logging.Logger,
    refused: str,
    failed: str,
    fields: Mapping[str, Any],
) -> T | Failed:
    """The result of ``work``, or how it failed, logged on ``logger`` and worded for the user.

    A ``DigestError`` or ``UsageError`` is logged at info as ``refused`` (with the error's type)
    and worded by ``messages.error_text``; any other exception is logged with its trace as
    ``failed`` and worded as ``messages.INTERNAL``. Cancellation passes through.
    """
    try:
        return await work
    except (DigestError, UsageError) as exc:
        logger.info(refused, extra={**fields, "error": type(exc).__name__})
        return Failed(messages.error_text(exc, now(), platform=platform))
    except Exception:  # logged with its trace; the user gets the shared words
        logger.exception(failed, extra=dict(fields))
        return Failed(messages.INTERNAL)


def granted(allowed: bool) -> CanManage:
    """A :data:`CanManage` for a permission that is already known."""

    async def check() -> bool:
        return allowed

    return check


class SubscriptionCommands:
    """``subscribe``, ``unsubscribe`` and ``subscriptions`` in one platform's channels.

    Anyone may list; only a manager (as the platform defines it) may change. The repository's
    defaults are filled in, and the timezone and topics checked, when a subscription is made.
    """

    def __init__(
        self,
        store: Subscriptions,
        config: AppConfig,
        *,
        platform: Platform,
        default_lang: str = "en",
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self._config = config
        self._platform: Platform = platform
        self._default_lang = default_lang
        self._clock = clock

    async def reply(
        self, command: SubscriptionCommand, *, channel: str, can_manage: CanManage
    ) -> Reply:
        """The reply to ``command`` in ``channel``; a bad zone or topic raises ``DigestError``."""
        if isinstance(command, ListSubscriptionsCommand):
            found = await self._store.list(self._platform, channel)
            if not found:
                return Reply(messages.NO_SUBSCRIPTIONS, command)
            lines = [
                messages.subscription_line(
                    s.repo or self._config.default_repo,
                    messages.schedule_words(s.schedule, s.day, s.time or ""),
                    s.timezone or "",
                    s.lang,
                )
                for s in found
            ]
            return Reply(messages.subscriptions_list(lines), command)
        if not await can_manage():
            return Reply(messages.managers_only(self._platform), command)
        if isinstance(command, UnsubscribeCommand):
            removed = await self._store.remove(self._platform, channel, command.options.repo)
            if not removed:
                return Reply(messages.NO_SUBSCRIPTIONS, command)
            gone = (messages.unsubscribed(r or self._config.default_repo) for r in removed)
            return Reply("\n".join(gone), command, public=True)
        subscription = self._subscription(command, channel)
        made = to_subscription(subscription, self._config, since=None)  # checked before stored
        await self._store.add(subscription)
        log.info(
            f"{self._platform}.subscribed", extra={"channel": channel, "repo": subscription.repo}
        )
        text = messages.subscribed(
            made.repo,
            messages.schedule_words(made.cadence, made.day_name, made.time),
            made.timezone,
            made.lang,
            format_moment(next_run(made, self._clock()), made.timezone),
        )
        return Reply(text, command, public=True)

    def _subscription(self, command: SubscribeCommand, channel: str) -> SubscriptionConfig:
        config = self._config
        repo = command.options.repo or config.default_repo
        defaults = config.repo(repo)
        timezone = command.timezone or defaults.timezone
        zone(timezone)
        user_topics(config, command.topics or ())
        return SubscriptionConfig.model_validate(
            {
                "platform": self._platform,
                "channel": channel,
                "repo": repo,
                "time": command.time or defaults.day_start,
                "timezone": timezone,
                "lang": command.options.lang or self._default_lang,
                "topics": list(command.topics) if command.topics else None,
                "writer": command.writer or "auto",
                "schedule": command.cadence,
                "day": WEEKDAYS[command.weekday],
            }
        )


class Dispatcher:
    """Turns a command from a channel of one platform into what to say or build."""

    def __init__(
        self, core: Core, subscriptions: Subscriptions | None, *, platform: Platform
    ) -> None:
        self.core = core
        self.platform: Platform = platform
        self._subscriptions = (
            SubscriptionCommands(
                subscriptions,
                core.config,
                platform=platform,
                default_lang=core.default_lang,
                clock=core.clock,
            )
            if subscriptions is not None
            else None
        )

    async def text(self, text: str, *, channel: str, can_manage: CanManage) -> Outcome:
        """The outcome of a typed command; one that cannot be parsed gets the usage wording."""
        try:
            command = parse(text)
        except UsageError as exc:
            return Reply(messages.usage(exc, self.platform))
        return await self.command(command, channel=channel, can_manage=can_manage)

    async def command(self, command: Command, *, channel: str, can_manage: CanManage) -> Outcome:
        """The outcome of ``command``; subscription errors (``DigestError``) are raised."""
        if isinstance(command, HelpCommand):
            return Reply(messages.help_text(self.platform), command)
        if isinstance(command, DigestCommand | AskCommand):
            return self.build(command)
        return await self.subscription(command, channel=channel, can_manage=can_manage)

    async def subscription(
        self, command: SubscriptionCommand, *, channel: str, can_manage: CanManage
    ) -> Reply:
        """The reply to a subscription command; a bad zone or topic raises ``DigestError``."""
        if self._subscriptions is None:
            return Reply(messages.SUBSCRIPTIONS_OFF, command)
        return await self._subscriptions.reply(command, channel=channel, can_manage=can_manage)

    @overload
    def build(self, command: DigestCommand) -> DigestBuild: ...

    @overload
    def build(self, command: AskCommand) -> AnswerBuild: ...

    @overload
    def build(self, command: DigestCommand | AskCommand) -> DigestBuild | AnswerBuild: ...

    def build(self, command: DigestCommand | AskCommand) -> DigestBuild | AnswerBuild:
        """The work behind a digest or a question."""
        if isinstance(command, DigestCommand):
            return DigestBuild(command, self.core)
        return AnswerBuild(command, self.core)
