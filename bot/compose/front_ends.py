"""The chat front ends ``serve`` runs: which ones the tokens allow, and each one built with its
daily post and its poster of command threads.

Each builder returns what it made; :func:`bot.compose.services.build_services` puts the posts
of every platform in the one daily poster and the one thread recovery.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Generic, TypeVar

from pydantic import SecretStr

from bot.commands import messages
from bot.commands.buttons import ButtonSigner, DigestButtons
from bot.commands.defaults import DefaultsStore
from bot.commands.runner import ReportCore
from bot.commands.subscriptions import ChannelSubscriptions, Directory
from bot.listen import MAX_BODY, HttpLimits
from bot.process.serve import SlackFrontEnd
from config.settings import Settings
from digest.models import Digest
from digest.schedule.command_threads import CommandThreads, ThreadPost
from digest.schedule.scheduler import PartFn
from digest.schedule.subscription import Subscription
from digest.state.base import SharedState
from digest.state.limiter import Limiter

if TYPE_CHECKING:
    from bot.discord.app import ReportClient
    from bot.site.chat import ChatExtras

F = TypeVar("F")

ChannelPost = Callable[[str, Digest | str, tuple[str, ...], PartFn], Awaitable[None]]
"""One platform's daily post in a channel: (channel, digest or quiet-day line, ids of the parts
already out, part_sent); see :class:`~digest.schedule.scheduler.PostFn`."""


class PlatformUnavailable(RuntimeError):
    """The subscription's platform is not configured in this process."""


class DailyPoster:
    """The scheduler's poster (``PostFn``): each daily post goes to its platform's front end."""

    def __init__(self, posts: Mapping[str, ChannelPost]) -> None:
        self._posts = dict(posts)

    async def __call__(
        self,
        subscription: Subscription,
        digest: Digest,
        *,
        late: bool,
        quiet: bool,
        done: tuple[str, ...],
        part_sent: PartFn,
    ) -> None:
        post = self._posts.get(subscription.platform)
        if post is None:
            raise PlatformUnavailable(f"{subscription.platform} is not configured here")
        content = messages.daily_post(digest, late=late, quiet=quiet)
        await post(subscription.channel, content, done, part_sent)


class DailyCorrector:
    """The scheduler's ``correct``: the correction of a daily post that went out behind, in
    its thread (under the parent ``parent``), by its platform's poster of command threads."""

    def __init__(self, posts: Mapping[str, ThreadPost]) -> None:
        self._posts = dict(posts)

    async def __call__(self, subscription: Subscription, digest: Digest, parent: str) -> None:
        post = self._posts.get(subscription.platform)
        if post is None:
            raise PlatformUnavailable(f"{subscription.platform} is not configured here")

        async def nothing(index: int, message_id: str) -> None:
            return None

        await post(subscription.channel, None, messages.correction(digest), (parent,), nothing)


@dataclass(frozen=True, slots=True)
class Plan:
    """Which front ends run, and what is missing for the others."""

    slack: str | None  # "socket" | "http" | None
    discord: bool
    problems: tuple[str, ...] = ()

    @property
    def front_ends(self) -> tuple[str, ...]:
        return (
            *((f"slack-{self.slack}",) if self.slack else ()),
            *(("discord",) if self.discord else ()),
        )


def http_limits(settings: Settings, max_body: int = MAX_BODY) -> HttpLimits:
    """The limits of an HTTP server of ``serve``, from the settings, with ``max_body``."""
    return HttpLimits(
        head_s=settings.http_head_timeout_seconds,
        body_s=settings.http_body_timeout_seconds,
        max_body=max_body,
        max_connections=settings.http_max_connections,
    )


def plan(settings: Settings) -> Plan:
    """The front ends that ``settings`` has tokens for."""
    slack, problems = None, []
    s = settings.slack
    if s.bot_token is not None:
        if s.mode == "socket" and s.app_token is not None:
            slack = "socket"
        elif s.signing_secret is not None and (s.mode == "http" or s.app_token is None):
            slack = "http"
        elif s.mode == "http":
            problems.append("Slack HTTP mode needs SLACK_SIGNING_SECRET")
        else:
            problems.append(
                "Slack Socket Mode needs SLACK_APP_TOKEN (or set "
                "SLACK_SIGNING_SECRET and SLACK_MODE=http)"
            )
    elif s.app_token is not None or s.signing_secret is not None:
        problems.append("Slack needs SLACK_BOT_TOKEN")
    return Plan(slack, settings.discord.token is not None, tuple(problems))


@dataclass(frozen=True, slots=True)
class ChatParts:
    """What every chat front end is built with."""

    core: ReportCore
    state: SharedState  # de-duplicated deliveries and the channels' defaults
    channels: ChannelSubscriptions
    directory: Directory  # every stored subscription
    clock: Callable[[], datetime]
    threads: CommandThreads  # the journal of the command threads, as they go out
    site_url: str | None = None
    extras: ChatExtras | None = None  # the day's chart and page link
    limiter: Limiter | None = None  # the rate limits of members and channels

    def buttons(self, token: SecretStr) -> DigestButtons:
        """The digest buttons, signed with a key derived from the platform's ``token``."""
        return DigestButtons(
            ButtonSigner.from_secret(token.get_secret_value()),
            self.core.config,
            self.clock,
            page_url=self.extras.page_url if self.extras is not None else None,
        )


@dataclass(frozen=True, slots=True)
class ChatFrontEnd(Generic[F]):
    """One platform's front end, with its daily post and its poster of command threads."""

    platform: str
    front_end: F
    daily: ChannelPost
    threads: ThreadPost


def slack_front_end(
    settings: Settings, chosen: Plan, chat: ChatParts, *, pace_s: float, ping_s: float
) -> ChatFrontEnd[SlackFrontEnd] | None:
    """The Slack app, bot and poster when the plan has Slack; one poster paces every message
    of the app, command threads and daily posts alike, per channel."""
    token = settings.slack.bot_token
    if not chosen.slack or token is None:
        return None
    from bot.slack import SlackBot, SlackPoster, build_slack_app
    from bot.slack.post import SlackDaily, SlackThreads
    from bot.slack.web import web_client

    client = web_client(token.get_secret_value(), settings.slack.api_url)
    secret = settings.slack.signing_secret
    signing = secret.get_secret_value() if secret is not None else None
    buttons = chat.buttons(token)
    extras = chat.extras
    chart = extras.chart if extras is not None else None
    poster = SlackPoster(client, pace_s=pace_s)
    bot = SlackBot(
        chat.core,
        poster,
        clock=chat.clock,
        claims=chat.state,
        subscriptions=chat.channels,
        defaults=DefaultsStore(chat.state),
        buttons=buttons,
        directory=chat.directory,
        chart=chart,
        threads=chat.threads,
        limiter=chat.limiter,
    )
    app = build_slack_app(bot, client, signing_secret=signing)
    app_token = settings.slack.app_token if chosen.slack == "socket" else None
    front_end = SlackFrontEnd(
        app,
        client,
        bot.jobs,
        signed=bool(signing),
        app_token=app_token.get_secret_value() if app_token is not None else None,
        port=settings.slack.port,
        host=settings.slack.host,
        limits=http_limits(settings, settings.slack.max_body_bytes),
        ping_s=ping_s,
    )
    daily = SlackDaily(
        poster,
        chart=chart,
        page_url=extras.page_url if extras is not None else None,
        site_url=chat.site_url,
        buttons=buttons,
    )
    threads = SlackThreads(poster, site_url=chat.site_url, buttons=buttons)
    return ChatFrontEnd("slack", front_end, daily, threads)


def discord_front_end(
    settings: Settings, chosen: Plan, chat: ChatParts
) -> ChatFrontEnd[ReportClient] | None:
    """The Discord client and its front end when the plan has Discord."""
    token = settings.discord.token
    if not chosen.discord or token is None:
        return None
    from bot.discord import DiscordFrontEnd, build_discord_client
    from bot.discord.post import DiscordDaily, DiscordThreads

    buttons = chat.buttons(token)
    extras = chat.extras
    chart = extras.chart if extras is not None else None
    front = DiscordFrontEnd(
        core=chat.core,
        subscriptions=chat.channels,
        clock=chat.clock,
        defaults=DefaultsStore(chat.state),
        buttons=buttons,
        chart=chart,
        threads=chat.threads,
        limiter=chat.limiter,
    )
    client = build_discord_client(front, settings.discord)
    daily = DiscordDaily(
        client,
        gateway=client.gateway,
        chart=chart,
        page_url=extras.page_url if extras is not None else None,
        site_url=chat.site_url,
        buttons=buttons,
    )
    threads = DiscordThreads(
        client, gateway=client.gateway, site_url=chat.site_url, buttons=buttons
    )
    return ChatFrontEnd("discord", client, daily, threads)
