"""Where channel subscriptions live: the store protocol and its shared-state implementation."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Protocol

from digest.schedule.subscription import Subscription
from digest.state.base import SharedState

log = logging.getLogger(__name__)

_SEEDED_FOR = timedelta(days=3650)  # "seeded once" markers outlive any deployment


class SubscriptionStore(Protocol):
    """Where subscriptions live; one per platform, channel and repository."""

    async def all_subscriptions(self) -> list[Subscription]: ...

    async def channel_subscriptions(self, platform: str, channel: str) -> list[Subscription]: ...

    async def put_subscription(self, subscription: Subscription) -> None: ...

    async def delete_subscription(self, platform: str, channel: str, repo: str) -> bool: ...


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
            subscription.key,
            subscription.to_dict(),
        )

    async def delete_subscription(self, platform: str, channel: str, repo: str) -> bool:
        """Delete the channel's subscription to ``repo`` (a subscription's ``subject``)."""
        return await self._state.delete_subscription(platform, channel, repo.lower())

    async def was_seeded(self, subscription_id: str) -> bool:
        """Whether the configuration file's subscription ``subscription_id`` was stored before."""
        return await self._state.get(f"seeded:{subscription_id}") is not None

    async def mark_seeded(self, subscription_id: str) -> None:
        await self._state.set(f"seeded:{subscription_id}", "1", _SEEDED_FOR)
