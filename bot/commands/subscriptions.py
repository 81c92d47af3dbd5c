"""Channel subscriptions for the front ends and the scheduler: one type, one store.

The Slack and Discord front ends and the scheduler all speak
:class:`~digest.schedule.subscription.Subscription`. The repository's defaults (repository,
time, timezone) are resolved once, by :func:`new_subscription`, when a subscription is made in
chat or seeded from the configuration file's ``subscriptions`` (the one use of
:class:`~config.settings.SubscriptionConfig`), so the stored schedule never changes behind a
channel's back when the configuration does.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Protocol

from bot.commands.runner import config_fingerprint, digest_request, scope_request, user_topics
from bot.commands.subjects import configured_scope
from config.settings import AppConfig, SubscriptionConfig
from digest.builder import DigestRequest
from digest.errors import DigestError
from digest.models import Lang, Window
from digest.schedule.subscription import WEEKDAYS, Subscription, next_run
from digest.schedule.subscriptions import SubscriptionStore
from digest.scope import Scope
from digest.windows import format_moment, zone

log = logging.getLogger(__name__)

DEFAULT_TIME = "09:00"  # of a subscription in another zone than its repository's
ChannelCheck = Callable[[str], object]
"""Raises ``ValueError`` when a channel is not one of its platform's (a Discord id is numeric)."""


class Subscriptions(Protocol):
    """Daily-post subscriptions of chat channels, as the Slack and Discord front ends see them."""

    async def add(self, subscription: Subscription) -> None:
        """Create or replace the subscription of (platform, channel, repo)."""

    async def remove(self, platform: str, channel: str, repo: str | None = None) -> Sequence[str]:
        """Remove the channel's subscription to ``repo`` (all when ``None``); the repos removed."""

    async def list(self, platform: str, channel: str) -> Sequence[Subscription]:
        """The channel's subscriptions."""


def new_subscription(
    config: AppConfig,
    platform: str,
    channel: str,
    *,
    repo: str | None = None,
    time: str | None = None,
    timezone: str | None = None,
    lang: Lang = Lang.EN,
    topics: Iterable[str] | None = None,
    writer: str | None = None,
    cadence: str = "daily",
    weekday: int = 0,
    since: datetime | None = None,
    scope: str | None = None,
    repos: tuple[str, ...] = (),
    quiet_days: str = "note",
) -> Subscription:
    """A subscription with the repository's defaults filled in; the one place they are.

    The repository's cut-off time is the default in the repository's own timezone; in another
    zone the default is :data:`DEFAULT_TIME`. A configured ``scope`` (its name) or several
    ``repos`` take the scope's time zone and cut-off, else their first repository's.

    A bad timezone is a ``DigestError``, an unknown topic or scope a ``UsageError``, all raised
    now rather than at posting time. ``writer`` ``None`` follows the deployment's default.
    """
    subject = configured_scope(config, scope) if scope else None
    if subject is not None:
        scope, repos = subject.name, ()
    if len(repos) == 1:
        repo, repos = repos[0], ()
    repo = (subject.repos[0] if subject else None) or (repos[0] if repos else repo)
    repo = repo or config.default_repo
    defaults = config.repo(repo)
    own_zone = (subject.timezone if subject else None) or defaults.timezone
    own_start = (subject.day_start if subject else None) or defaults.day_start
    timezone = timezone or own_zone
    zone(timezone)
    chosen = tuple(topics) if topics is not None else None
    user_topics(config, chosen or ())
    # the repository's cut-off is a time in its own zone; elsewhere a morning post
    default_time = own_start if timezone == own_zone else DEFAULT_TIME
    return Subscription(
        platform=platform,
        channel=channel,
        repo=repo,
        time=time or default_time,
        timezone=timezone,
        lang=lang,
        topics=chosen,
        writer=writer,
        since=since,
        cadence=cadence,
        weekday=weekday,
        scope=scope,
        repos=repos,
        quiet_days=quiet_days,
    )


def seeded(entry: SubscriptionConfig, config: AppConfig, *, since: datetime) -> Subscription:
    """The subscription a configuration file's entry asks for."""
    return new_subscription(
        config,
        entry.platform,
        entry.channel,
        repo=entry.repo,
        time=entry.time,
        timezone=entry.timezone,
        lang=entry.lang,
        topics=entry.topics,
        writer=None if entry.writer == "auto" else entry.writer,
        cadence=entry.schedule,
        weekday=WEEKDAYS.index(entry.day),
        since=since,
    )


def entry_of(subscription: Subscription) -> dict[str, object]:
    """A stored subscription as an entry of the configuration file's ``subscriptions``: what
    ``vllm-report subscriptions export`` writes and ``import`` (or the seeding) reads back."""
    entry: dict[str, object] = {
        "platform": subscription.platform,
        "channel": subscription.channel,
        "repo": subscription.repo,
        "time": subscription.time,
        "timezone": subscription.timezone,
        "lang": str(subscription.lang),
    }
    if subscription.topics is not None:
        entry["topics"] = list(subscription.topics)
    if subscription.writer is not None:
        entry["writer"] = subscription.writer
    if subscription.cadence != "daily":
        entry["schedule"] = subscription.cadence
    if subscription.cadence == "weekly":
        entry["day"] = WEEKDAYS[subscription.weekday]
    return entry


async def export_entries(store: SubscriptionStore) -> list[dict[str, object]]:
    """Every stored subscription as a configuration entry, in a stable order."""
    found = await store.all_subscriptions()
    return [entry_of(s) for s in sorted(found, key=lambda s: (s.platform, s.channel, s.repo))]


async def import_entries(
    store: SubscriptionStore,
    entries: Iterable[SubscriptionConfig],
    config: AppConfig,
    clock: Callable[[], datetime],
) -> tuple[int, list[str]]:
    """Store each entry, replacing the channel's subscription to its repository; how many were
    stored, and a line for each that could not be used (an unknown topic, say)."""
    stored, skipped = 0, []
    for entry in entries:
        try:
            subscription = seeded(entry, config, since=clock())
        except (DigestError, ValueError) as exc:
            skipped.append(f"{entry.platform}:{entry.channel}: {exc}")
            continue
        await store.put_subscription(subscription)
        stored += 1
    return stored, skipped


class ChannelSubscriptions:
    """The ``Subscriptions`` of the Slack and Discord front ends, kept where the scheduler reads."""

    def __init__(self, store: SubscriptionStore, clock: Callable[[], datetime]) -> None:
        self._store = store
        self._clock = clock

    async def add(self, subscription: Subscription) -> None:
        """Create or replace the subscription; it starts with the next scheduled run."""
        made = dataclasses.replace(subscription, since=self._clock())
        await self._store.put_subscription(made)
        log.info(
            "schedule.subscribed",
            extra={"subscription": made.id, "time": made.time, "timezone": made.timezone},
        )

    async def remove(self, platform: str, channel: str, repo: str | None = None) -> Sequence[str]:
        """Remove the channel's subscription to ``repo`` (a subject: ``owner/name``,
        ``scope:NAME`` or ``a/b,c/d``; all when ``None``); the subjects removed."""
        removed: list[str] = []
        for sub in await self._store.channel_subscriptions(platform, channel):
            if repo is not None and sub.key != repo.lower():
                continue
            if await self._store.delete_subscription(platform, channel, sub.key):
                removed.append(sub.subject)
                log.info("schedule.unsubscribed", extra={"subscription": sub.id})
        return removed

    async def list(self, platform: str, channel: str) -> Sequence[Subscription]:
        """The channel's subscriptions, oldest repository name first."""
        found = await self._store.channel_subscriptions(platform, channel)
        return sorted(found, key=lambda s: s.key)


class SeedableStore(SubscriptionStore, Protocol):
    """A subscription store that remembers which configured subscriptions it stored once."""

    async def was_seeded(self, subscription_id: str) -> bool: ...

    async def mark_seeded(self, subscription_id: str) -> None: ...


async def seed_subscriptions(
    store: SeedableStore,
    config: AppConfig,
    clock: Callable[[], datetime],
    *,
    checks: Mapping[str, ChannelCheck] | None = None,
) -> int:
    """Store the configuration file's subscriptions that were never stored; how many were new.

    Each is stored once: a change made in chat afterwards, an ``unsubscribe`` included, wins over
    the file. An entry that cannot be used (an unknown topic, a channel ``checks`` of its
    platform refuses) is logged and skipped.
    """
    existing = {s.id for s in await store.all_subscriptions()}
    added = 0
    for entry in config.subscriptions:
        try:
            sub = seeded(entry, config, since=clock())
            check = (checks or {}).get(sub.platform)
            if check is not None:
                check(sub.channel)
        except (DigestError, ValueError) as exc:
            log.error(
                "schedule.seed_skipped",
                extra={"platform": entry.platform, "channel": entry.channel, "error": str(exc)},
            )
            continue
        if await store.was_seeded(sub.id):
            continue
        if sub.id not in existing:
            await store.put_subscription(sub)
            existing.add(sub.id)
            added += 1
        await store.mark_seeded(sub.id)
    if added:
        log.info("schedule.seeded", extra={"subscriptions": added})
    return added


class ScheduledRequests:
    """Turns a subscription and a run window into the digest request the core would build.

    A writer that is not available here (``llm`` without an endpoint) falls back to the default.
    """

    def __init__(
        self, config: AppConfig, *, default_writer: str, writers: Collection[str] | None = None
    ) -> None:
        self._config = config
        self._default_writer = default_writer
        self._writers = writers
        self._fingerprint = config_fingerprint(config)

    def _writer(self, wanted: str | None) -> str:
        if wanted is None or (self._writers is not None and wanted not in self._writers):
            return self._default_writer
        return wanted

    def __call__(self, subscription: Subscription, window: Window) -> DigestRequest:
        subject = self._scope(subscription)
        if subject is not None:
            return scope_request(
                self._config,
                window,
                subject,
                lang=subscription.lang,
                writer=self._writer(subscription.writer),
                topics=subscription.topics,
                fingerprint=self._fingerprint,
            )
        return digest_request(
            self._config,
            window,
            repo=subscription.repo,
            lang=subscription.lang,
            writer=self._writer(subscription.writer),
            topics=subscription.topics,
            fingerprint=self._fingerprint,
        )

    def _scope(self, subscription: Subscription) -> Scope | None:
        """The scope a subscription names (its configured one, as configured now), or None."""
        if subscription.scope:
            return configured_scope(self._config, subscription.scope)
        return Scope(subscription.repos) if subscription.repos else None


Directory = Callable[[], Awaitable[Sequence[Subscription]]]
"""Every stored subscription (a Home tab lists its workspace's)."""


def overview(
    found: Iterable[Subscription],
    platform: str,
    now: datetime,
    mention: Callable[[str], str],
    lapsed: Collection[str] = (),
) -> list[str]:
    """One line per subscription of ``platform`` (channel, repository, schedule, language and
    next post in its zone), in channel order; ``mention`` writes a channel as the platform
    links it. A repository in ``lapsed`` (lower case) says it is not followed any more instead
    of its next post."""
    from bot.commands import messages
    from digest import i18n

    mine = sorted((s for s in found if s.platform == platform), key=lambda s: (s.channel, s.repo))
    return [
        messages.home_subscription_line(
            mention(s.channel),
            s.repo,
            messages.schedule_words(s.cadence, s.day_name, s.time),
            s.timezone,
            s.lang,
            format_moment(next_run(s, now), s.timezone),
            gone=i18n.t("follow.lapsed", s.lang) if s.repo.lower() in lapsed else None,
        )
        for s in mine
    ]
