"""Subscriptions and the post ledger on top of :class:`~digest.state.base.SharedState`.

:class:`StateLedger` works with any shared state (SQLite for one process, Redis for several),
with the state's own expiry; :class:`~digest.backends.redis.ledger.RedisLedger` is the Redis ledger
whose expiry follows the scheduler's clock.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from digest.schedule.subscription import Subscription
from digest.state.base import SharedState

log = logging.getLogger(__name__)

_SEEDED_FOR = timedelta(days=3650)  # "seeded once" markers outlive any deployment


class StateSubscriptions:
    """A :class:`~digest.schedule.scheduler.SubscriptionStore` kept in the shared state."""

    def __init__(self, state: SharedState) -> None:
        self._state = state

    async def all_subscriptions(self) -> list[Subscription]:
        return await self._load(None, None)

    async def channel_subscriptions(self, platform: str, channel: str) -> list[Subscription]:
        return await self._load(platform, channel)

    async def _load(self, platform: str | None, channel: str | None) -> list[Subscription]:
        found: list[Subscription] = []
        for doc in await self._state.subscriptions(platform, channel):
            try:
                found.append(Subscription.from_dict(dict(doc.doc)))
            except (KeyError, TypeError, ValueError) as exc:
                log.warning(
                    "schedule.subscription_unreadable",
                    extra={
                        "platform": doc.platform,
                        "channel": doc.channel,
                        "key": doc.key,
                        "error": str(exc),
                    },
                )
        return found

    async def put_subscription(self, subscription: Subscription) -> None:
        await self._state.put_subscription(
            subscription.platform,
            subscription.channel,
            subscription.repo.lower(),
            subscription.to_dict(),
        )

    async def delete_subscription(self, platform: str, channel: str, repo: str) -> bool:
        return await self._state.delete_subscription(platform, channel, repo.lower())

    async def was_seeded(self, subscription_id: str) -> bool:
        """Whether the configuration file's subscription ``subscription_id`` was stored before."""
        return await self._state.get(f"seeded:{subscription_id}") is not None

    async def mark_seeded(self, subscription_id: str) -> None:
        await self._state.set(f"seeded:{subscription_id}", "1", _SEEDED_FOR)


class StateLedger:
    """A :class:`~digest.schedule.scheduler.PostLedger` made of shared-state claims and values."""

    def __init__(self, state: SharedState) -> None:
        self._state = state
        self._tokens: dict[tuple[str, str], str] = {}

    async def claim(self, key: str, owner: str, now: datetime, ttl: timedelta) -> bool:
        token = await self._state.claim(f"run:{key}", ttl)
        if token is None:
            return False
        if await self.is_posted(key):
            await self._state.release(f"run:{key}", token)
            return False
        self._tokens[(key, owner)] = token
        return True

    async def extend(self, key: str, owner: str, now: datetime, ttl: timedelta) -> bool:
        token = self._tokens.get((key, owner))
        return token is not None and await self._state.renew(f"run:{key}", token, ttl)

    async def release(self, key: str, owner: str) -> None:
        token = self._tokens.pop((key, owner), None)
        if token is not None:
            await self._state.release(f"run:{key}", token)

    async def mark_posted(self, key: str, owner: str, now: datetime, keep: timedelta) -> None:
        await self._state.set(f"posted:{key}", owner, keep)
        await self.release(key, owner)

    async def is_posted(self, key: str) -> bool:
        return await self._state.get(f"posted:{key}") is not None
