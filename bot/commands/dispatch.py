"""What a chat command does on any platform: parse it, call the core, choose the words.

The Slack and Discord handlers acknowledge, render and post what :class:`Dispatcher` returns:
a :class:`Reply` to show now, or a :class:`DigestBuild` / :class:`AnswerBuild` to run (slowly,
after acknowledging) and then render. Every handler runs its work through :func:`reported`, the
one error ladder: what the user got wrong or what the core could not do is logged at info and
worded by ``messages.error_text``; anything else is logged with its trace and the user gets the
shared words for "our fault".
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar, overload

from bot.commands import messages
from bot.commands.defaults import Caller, Defaults, DefaultsStore, Resolver
from bot.commands.following import Following, refusal
from bot.commands.grammar import (
    AskCommand,
    Command,
    DigestCommand,
    HelpCommand,
    ListSubscriptionsCommand,
    SettingsCommand,
    SubscribeCommand,
    UnsubscribeCommand,
    UsageError,
    parse,
)
from bot.commands.runner import user_topics
from bot.commands.subscriptions import Subscriptions, new_subscription
from config.settings import AppConfig
from digest import i18n
from digest.builder import DigestRequest
from digest.errors import DigestError, RepoRefused
from digest.github.allow_list import AllowList
from digest.github.names import valid_repo
from digest.github.reserve import BudgetReserved, interactive
from digest.models import Answer, Digest, Lang
from digest.schedule.subscription import Subscription, next_run
from digest.state.limiter import Limited, Limiter
from digest.windows import format_moment, zone

log = logging.getLogger(__name__)

T = TypeVar("T")
Platform = messages.Platform
SubscriptionCommand = SubscribeCommand | UnsubscribeCommand | ListSubscriptionsCommand
RateLimiter = Limiter  # for the front ends, which import no state module
CanManage = Callable[[], Awaitable[bool]]
"""Whether the caller may change the channel's subscriptions; asked only when it matters."""


class Core(Protocol):
    """The part of ``bot.commands.runner.ReportCore`` the chat front ends use."""

    config: AppConfig
    default_lang: Lang
    clock: Callable[[], datetime]
    site_url: str | None  # the report website, where chat links long lists in full

    def request_for(self, command: DigestCommand) -> DigestRequest: ...

    async def build(self, request: DigestRequest) -> Digest: ...

    async def ask(self, command: AskCommand) -> Answer: ...

    async def admit(self, repo: str) -> None:
        """Refuse (``RepoRefused``) a repository chat may not use."""


@dataclass(frozen=True, slots=True)
class Reply:
    """Words for the caller now: help, a usage error or the outcome of a subscription command."""

    text: str
    command: Command | None = None  # None when the text could not be parsed
    public: bool = False  # a change of the channel's subscriptions, which the channel may see


class _Build:
    """What a digest and an answer to build have in common: the caller's rate limits, taken
    before anything is spent, and the GitHub reserve, which interactive work leaves alone."""

    __slots__ = ()
    command: DigestCommand | AskCommand
    caller: Caller | None
    limiter: Limiter | None
    platform: str
    kind: str

    @property
    def private(self) -> bool:
        """Whether the result goes to the caller by direct message."""
        return self.command.options.private

    @property
    def working(self) -> str:
        """The acknowledgement shown while it builds."""
        return messages.WORKING_PRIVATE if self.private else messages.WORKING

    async def within_limits(self, lang: Lang) -> None:
        """Take this work from the caller's and the channel's buckets; ``Limited`` (in
        ``lang``) when one is empty. Costs no GitHub request and no model call."""
        if self.limiter is None or self.caller is None:
            return
        user = self.caller.user
        subjects = {
            "user": f"{self.platform}:{user}" if user else None,
            "channel": f"{self.platform}:{self.caller.channel}",
        }
        refusal = await self.limiter.take(self.kind, subjects)
        if refusal is not None:
            raise Limited(refusal, lang)


@dataclass(frozen=True, slots=True)
class DigestBuild(_Build):
    """A digest to build, then render and post; unset options follow the caller's defaults."""

    command: DigestCommand
    core: Core
    resolver: Resolver | None = None
    caller: Caller | None = None
    limiter: Limiter | None = None
    platform: str = ""
    kind: str = "digest"  # "button" for a click on a digest's button

    async def taken(self) -> DigestBuild:
        """This build with its limits taken now (``Limited`` in the caller's language when
        refused), so that an acknowledgement can say so: the build left takes none again."""
        if self.limiter is None:
            return self
        await self.within_limits((await self.resolved()).options.lang or self.core.default_lang)
        return replace(self, limiter=None)

    async def resolved(self) -> DigestCommand:
        """The command with the channel's, workspace's or caller's defaults filled in."""
        if self.resolver is None or self.caller is None:
            return self.command
        return await self.resolver.digest(self.command, self.caller)

    async def request(self) -> DigestRequest:
        """The digest request the command, its defaults filled in, stands for, once the
        caller's limits gave it a token (``Limited``); a repository chat may not use is refused
        (``RepoRefused``) in the command's language."""
        command = await self.resolved()
        lang = command.options.lang or self.core.default_lang
        await self.within_limits(lang)  # first: a refusal spends nothing
        try:
            request = self.core.request_for(command)
            with interactive():  # the existence check spends within the reserve
                for repo in request.repos:  # each repository of a scope, as one alone
                    await _admit(self.core, repo)
        except RepoRefused as exc:
            raise exc.worded_in(lang) from None
        except BudgetReserved as exc:
            raise exc.speaking(lang) from None
        return request

    async def digest(self, request: DigestRequest) -> Digest:
        """The digest of ``request`` (this build's :meth:`request`, which took the limits),
        within the GitHub reserve."""
        with interactive():
            try:
                return await self.core.build(request)
            except BudgetReserved as exc:
                raise exc.speaking(request.lang) from None

    async def run(self) -> Digest:
        return await self.digest(await self.request())


@dataclass(frozen=True, slots=True)
class AnswerBuild(_Build):
    """An answer to a question to build, then render and post; the channel's or workspace's
    repository and language apply when the question names none (else its own language)."""

    command: AskCommand
    core: Core
    resolver: Resolver | None = None
    caller: Caller | None = None
    limiter: Limiter | None = None
    platform: str = ""
    kind: str = "question"

    async def taken(self) -> AnswerBuild:
        """This build with its limits taken now (see :meth:`DigestBuild.taken`)."""
        if self.limiter is None:
            return self
        await self.within_limits(self.command.options.lang or self.core.default_lang)
        return replace(self, limiter=None)

    async def run(self) -> Answer:
        command = self.command
        if self.resolver is not None and self.caller is not None:
            command = await self.resolver.ask(command, self.caller)
        lang = command.options.lang or self.core.default_lang
        await self.within_limits(lang)
        with interactive():
            try:
                repo = command.options.repo
                if repo is not None and valid_repo(repo):
                    try:
                        await _admit(self.core, repo)
                    except RepoRefused as exc:
                        raise exc.worded_in(lang) from None
                return await self.core.ask(command)
            except BudgetReserved as exc:
                raise exc.speaking(lang) from None


async def _admit(core: Core, repo: str) -> None:
    """``core.admit(repo)``, for a core that admits (a test's stand-in may not)."""
    admit = getattr(core, "admit", None)
    if admit is not None:
        await admit(repo)


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
    defaults are filled in, and the timezone and topics checked, when a subscription is made;
    a repository off ``allow`` or one ``following`` refuses (missing, private, a cap reached)
    gets its refusal in the subscription's language and nothing is stored. The listing marks
    the subscriptions of a repository that stopped answering.
    """

    def __init__(
        self,
        store: Subscriptions,
        config: AppConfig,
        *,
        platform: Platform,
        default_lang: Lang = Lang.EN,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        resolver: Resolver | None = None,
        allow: AllowList | None = None,
        following: Following | None = None,
    ) -> None:
        self._store = store
        self._config = config
        self._allow = allow or AllowList()
        self._following = following
        self._platform: Platform = platform
        self._clock = clock
        self._resolver = resolver or Resolver(None, platform, default_lang)

    async def reply(
        self,
        command: SubscriptionCommand,
        *,
        channel: str,
        can_manage: CanManage,
        caller: Caller | None = None,
    ) -> Reply:
        """The reply to ``command`` in ``channel``; a bad zone or topic raises ``DigestError``."""
        if isinstance(command, ListSubscriptionsCommand):
            found = await self._store.list(self._platform, channel)
            if not found:
                return Reply(messages.NO_SUBSCRIPTIONS, command)
            lines = [
                messages.subscription_line(
                    s.repo,
                    messages.schedule_words(s.cadence, s.day_name, s.time),
                    s.timezone,
                    s.lang,
                )
                + await self._lapse_mark(s)
                for s in found
            ]
            return Reply(messages.subscriptions_list(lines), command)
        if not await can_manage():
            return Reply(messages.managers_only(self._platform), command)
        if isinstance(command, UnsubscribeCommand):
            removed = await self._store.remove(self._platform, channel, command.options.repo)
            if not removed:
                return Reply(messages.NO_SUBSCRIPTIONS, command)
            gone = (messages.unsubscribed(r) for r in removed)
            return Reply("\n".join(gone), command, public=True)
        wanted_zone = command.timezone is None
        resolved = await self._resolver.resolve(caller or Caller(channel), want_zone=wanted_zone)
        made = dataclasses.replace(
            self._subscription(command, channel, resolved.defaults),
            workspace=caller.workspace if caller is not None else None,
        )
        refused = await self._refusal(made)
        if refused is not None:
            log.info(f"{self._platform}.subscribe_refused", extra={"repo": made.repo})
            return Reply(refused, command)
        await self._store.add(made)
        log.info(f"{self._platform}.subscribed", extra={"channel": channel, "repo": made.repo})
        shown_in = resolved.channel.timezone or made.timezone  # the channel's own zone
        text = messages.subscribed(
            made.repo,
            messages.schedule_words(made.cadence, made.day_name, made.time),
            made.timezone,
            made.lang,
            format_moment(next_run(made, self._clock()), shown_in),
        )
        if wanted_zone:
            source = resolved.zone_from or "repo"
            text += " " + messages.zone_source(source, made.timezone, self._platform)
        return Reply(text, command, public=True)

    async def _refusal(self, made: Subscription) -> str | None:
        """Why ``made`` may not be stored, in its language; None when it may."""
        try:
            if not self._allow.allows(made.repo):
                raise RepoRefused(made.repo, "not_allowed", allowed=self._allow.shown())
            if self._following is None:
                return None
            await self._following.admit(made.repo)
        except RepoRefused as exc:
            return refusal(exc.worded_in(made.lang), subscribing=True)
        cap = await self._following.cap_reached(made)
        return cap.text(made.lang, self._platform) if cap is not None else None

    async def _lapse_mark(self, subscription: Subscription) -> str:
        """`` (repository not found; not followed any more)`` for a lapsed repository."""
        if self._following is None or not await self._following.lapsed(subscription.repo):
            return ""
        return i18n.t("follow.lapsed", subscription.lang)

    def _subscription(
        self, command: SubscribeCommand, channel: str, found: Defaults
    ) -> Subscription:
        """The command's subscription over the channel's and workspace's defaults, then the
        repository's (filled in by ``new_subscription``)."""
        topics = command.topics if command.topics is not None else found.topics
        return new_subscription(
            self._config,
            self._platform,
            channel,
            repo=command.options.repo or found.repo,
            time=command.time,
            timezone=command.timezone or found.timezone,
            lang=command.options.lang or found.lang or Lang.EN,  # the resolver always sets it
            topics=topics or None,
            writer=command.writer,
            cadence=command.cadence,
            weekday=command.weekday,
        )


class Dispatcher:
    """Turns a command from a channel of one platform into what to say or build."""

    def __init__(
        self,
        core: Core,
        subscriptions: Subscriptions | None,
        *,
        platform: Platform,
        defaults: DefaultsStore | None = None,
        limiter: Limiter | None = None,
    ) -> None:
        self.core = core
        self.platform: Platform = platform
        self.limiter = limiter
        self.resolver = Resolver(defaults, platform, core.default_lang)
        self._subscriptions = (
            SubscriptionCommands(
                subscriptions,
                core.config,
                platform=platform,
                default_lang=core.default_lang,
                clock=core.clock,
                resolver=self.resolver,
                allow=getattr(core, "allow", None),
                following=getattr(core, "following", None),
            )
            if subscriptions is not None
            else None
        )

    async def text(
        self, text: str, *, channel: str, can_manage: CanManage, caller: Caller | None = None
    ) -> Outcome:
        """The outcome of a typed command; one that cannot be parsed gets the usage wording."""
        try:
            command = parse(text)
        except UsageError as exc:
            return Reply(messages.usage(exc, self.platform))
        return await self.command(command, channel=channel, can_manage=can_manage, caller=caller)

    async def command(
        self,
        command: Command,
        *,
        channel: str,
        can_manage: CanManage,
        caller: Caller | None = None,
    ) -> Outcome:
        """The outcome of ``command``; subscription errors (``DigestError``) are raised."""
        who = caller or Caller(channel)
        if isinstance(command, HelpCommand):
            return Reply(messages.help_text(self.platform), command)
        if isinstance(command, DigestCommand | AskCommand):
            return self.build(command, who)
        if isinstance(command, SettingsCommand):
            return await self.settings(command, caller=who, can_manage=can_manage)
        return await self.subscription(command, channel=channel, can_manage=can_manage, caller=who)

    async def lapsed(self, found: Iterable[Subscription]) -> frozenset[str]:
        """The repositories of ``found`` (lower case) that stopped answering."""
        following: Following | None = getattr(self.core, "following", None)
        if following is None:
            return frozenset()
        names = {s.repo.lower(): s.repo for s in found}
        gone = {key for key, name in names.items() if await following.lapsed(name)}
        return frozenset(gone)

    async def subscription(
        self,
        command: SubscriptionCommand,
        *,
        channel: str,
        can_manage: CanManage,
        caller: Caller | None = None,
    ) -> Reply:
        """The reply to a subscription command; a bad zone or topic raises ``DigestError``."""
        if self._subscriptions is None:
            return Reply(messages.SUBSCRIPTIONS_OFF, command)
        return await self._subscriptions.reply(
            command, channel=channel, can_manage=can_manage, caller=caller
        )

    async def settings(
        self, command: SettingsCommand, *, caller: Caller, can_manage: CanManage
    ) -> Reply:
        """Show the defaults, or change one scope's (its managers only)."""
        store = self.resolver.store
        if store is None:
            return Reply(messages.SETTINGS_OFF, command)
        channel, workspace = await self.resolver.scopes(caller)
        if not command.changes:
            return Reply(messages.settings_view(channel, workspace, self.platform), command)
        if command.scope == "workspace":
            if caller.workspace is None:
                return Reply(messages.NO_WORKSPACE, command)
            if not await caller.can_manage_workspace():
                return Reply(messages.workspace_managers_only(self.platform), command)
            ident, old = caller.workspace, workspace
        else:
            if not await can_manage():
                return Reply(messages.managers_only(self.platform), command)
            ident, old = caller.channel, channel
        new = Defaults() if command.reset else self._changed(command).over(old)
        await store.put(
            self.platform, "workspace" if command.scope == "workspace" else "channel", ident, new
        )
        log.info(f"{self.platform}.settings_changed", extra={"scope": command.scope})
        return Reply(
            messages.settings_saved(command.scope, new, self.platform), command, public=True
        )

    def _changed(self, command: SettingsCommand) -> Defaults:
        """The values ``command`` sets, checked: a zone that exists, configured topics."""
        opts = command.options
        if command.timezone is not None:
            zone(command.timezone)
        if command.topics is not None:
            user_topics(self.core.config, command.topics)
        if opts.repo is not None and not valid_repo(opts.repo):
            raise UsageError(f"{opts.repo!r} is not a repository (use owner/name)")
        allow: AllowList = getattr(self.core, "allow", None) or AllowList()
        if opts.repo is not None and not allow.allows(opts.repo):
            lang = opts.lang or self.core.default_lang
            raise RepoRefused(opts.repo, "not_allowed", allowed=allow.shown(), lang=lang)
        return Defaults(opts.lang, command.timezone, opts.repo, command.topics)

    @overload
    def build(
        self, command: DigestCommand, caller: Caller | None = None, *, clicked: bool = False
    ) -> DigestBuild: ...

    @overload
    def build(
        self, command: AskCommand, caller: Caller | None = None, *, clicked: bool = False
    ) -> AnswerBuild: ...

    @overload
    def build(
        self,
        command: DigestCommand | AskCommand,
        caller: Caller | None = None,
        *,
        clicked: bool = False,
    ) -> DigestBuild | AnswerBuild: ...

    def build(
        self,
        command: DigestCommand | AskCommand,
        caller: Caller | None = None,
        *,
        clicked: bool = False,
    ) -> DigestBuild | AnswerBuild:
        """The work behind a digest or a question; ``caller`` brings its defaults and its
        limits (a digest ``clicked`` on a button counts as a click)."""
        if isinstance(command, DigestCommand):
            kind = "button" if clicked else "digest"
            return DigestBuild(
                command, self.core, self.resolver, caller, self.limiter, self.platform, kind
            )
        return AnswerBuild(command, self.core, self.resolver, caller, self.limiter, self.platform)
