"""Channel subscriptions for the front ends and the scheduler: one store, two views.

The Slack and Discord front ends speak :class:`~config.settings.SubscriptionConfig` (``add``,
``remove``, ``list``); the scheduler reads
:class:`~digest.schedule.subscription.Subscription`. Defaults (repository, time, timezone)
are resolved when a subscription is made, so the stored schedule never changes behind a
channel's back when the configuration does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import Protocol

from bot.commands.runner import config_fingerprint, digest_request
from config.settings import AppConfig, SubscriptionConfig
from digest.builder import DigestRequest
from digest.errors import DigestError
from digest.models import Window
from digest.schedule.subscription import WEEKDAYS, Subscription
from digest.schedule.subscriptions import SubscriptionStore

log = logging.getLogger(__name__)


class Subscriptions(Protocol):
    """Daily-post subscriptions of chat channels, as the Slack and Discord front ends see them."""

    async def add(self, subscription: SubscriptionConfig) -> None:
        """Create or replace the subscription of (platform, channel, repo)."""

    async def remove(self, platform: str, channel: str, repo: str | None = None) -> Sequence[str]:
        """Remove the channel's subscription to ``repo`` (all when ``None``); the repos removed."""

    async def list(self, platform: str, channel: str) -> Sequence[SubscriptionConfig]:
        """The channel's subscriptions."""


def to_subscription(
    entry: SubscriptionConfig, config: AppConfig, *, since: datetime | None
) -> Subscription:
    """The schedule of ``entry``, with the repository's defaults filled in."""
    repo = entry.repo or config.default_repo
    defaults = config.repo(repo)
    for name in entry.topics or ():
        config.topic(name)  # unknown topics fail now, not at posting time
    return Subscription(
        platform=entry.platform,
        channel=entry.channel,
        repo=repo,
        time=entry.time or defaults.day_start,
        timezone=entry.timezone or defaults.timezone,
        lang=entry.lang,
        topics=tuple(entry.topics) if entry.topics is not None else None,
        writer=None if entry.writer == "auto" else entry.writer,
        since=since,
        cadence=entry.schedule,
        weekday=WEEKDAYS.index(entry.day),
    )


def to_config(subscription: Subscription) -> SubscriptionConfig:
    """The front ends' view of a stored subscription."""
    return SubscriptionConfig.model_validate(
        {
            "platform": subscription.platform,
            "channel": subscription.channel,
            "repo": subscription.repo,
            "time": subscription.time,
            "timezone": subscription.timezone,
            "lang": subscription.lang,
            "topics": list(subscription.topics) if subscription.topics is not None else None,
            "writer": subscription.writer or "auto",
            "schedule": subscription.cadence,
            "day": subscription.day_name,
        }
    )


class ChannelSubscriptions:
    """The ``Subscriptions`` of the Slack and Discord front ends, kept where the scheduler reads."""

    def __init__(
        self, store: SubscriptionStore, config: AppConfig, clock: Callable[[], datetime]
    ) -> None:
        self._store = store
        self._config = config
        self._clock = clock

    async def add(self, subscription: SubscriptionConfig) -> None:
        """Create or replace the subscription; it starts with the next scheduled run."""
        made = to_subscription(subscription, self._config, since=self._clock())
        await self._store.put_subscription(made)
        log.info(
            "schedule.subscribed",
            extra={"subscription": made.id, "time": made.time, "timezone": made.timezone},
        )

    async def remove(self, platform: str, channel: str, repo: str | None = None) -> Sequence[str]:
        """Remove the channel's subscription to ``repo`` (all when ``None``); the repos removed."""
        removed: list[str] = []
        for sub in await self._store.channel_subscriptions(platform, channel):
            if repo is not None and sub.repo.lower() != repo.lower():
                continue
            if await self._store.delete_subscription(platform, channel, sub.repo):
                removed.append(sub.repo)
                log.info("schedule.unsubscribed", extra={"subscription": sub.id})
        return removed

    async def list(self, platform: str, channel: str) -> Sequence[SubscriptionConfig]:
        """The channel's subscriptions, oldest repository name first."""
        found = await self._store.channel_subscriptions(platform, channel)
        return [to_config(s) for s in sorted(found, key=lambda s: s.repo.lower())]


class SeedableStore(SubscriptionStore, Protocol):
    """A subscription store that remembers which configured subscriptions it stored once."""

    async def was_seeded(self, subscription_id: str) -> bool: ...

    async def mark_seeded(self, subscription_id: str) -> None: ...


async def seed_subscriptions(
    store: SeedableStore, config: AppConfig, clock: Callable[[], datetime]
) -> int:
    """Store the configuration file's subscriptions that were never stored; how many were new.

    Each is stored once: a change made in chat afterwards, an ``unsubscribe`` included, wins over
    the file. An entry that cannot be used (an unknown topic, say) is logged and skipped.
    """
    existing = {s.id for s in await store.all_subscriptions()}
    added = 0
    for entry in config.subscriptions:
        try:
            sub = to_subscription(entry, config, since=clock())
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
        return digest_request(
            self._config,
            window,
            repo=subscription.repo,
            lang=subscription.lang,
            writer=self._writer(subscription.writer),
            topics=subscription.topics,
            fingerprint=self._fingerprint,
        )
