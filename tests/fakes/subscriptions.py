"""Channel subscriptions kept in memory (:class:`bot.commands.subscriptions.Subscriptions`)."""

from __future__ import annotations

from collections.abc import Sequence

from digest.schedule.subscription import Subscription


class MemorySubscriptions:
    """Subscriptions kept in a dict, for tests and single-process runs without a store."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, str, str], Subscription] = {}

    @staticmethod
    def _key(platform: str, channel: str, repo: str) -> tuple[str, str, str]:
        return platform, channel, repo.lower()

    async def add(self, subscription: Subscription) -> None:
        key = self._key(subscription.platform, subscription.channel, subscription.key)
        self._items[key] = subscription

    async def remove(self, platform: str, channel: str, repo: str | None = None) -> Sequence[str]:
        gone = [
            k
            for k in self._items
            if k[:2] == (platform, channel) and (repo is None or k[2] == repo.lower())
        ]
        return [self._items.pop(k).subject for k in gone]

    async def list(self, platform: str, channel: str) -> Sequence[Subscription]:
        return [s for k, s in self._items.items() if k[:2] == (platform, channel)]
